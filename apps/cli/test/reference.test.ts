import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ERROR_CATALOGUE } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { COMMAND_IDS } from "./support/cli.js";
import { CLI_DOC, expectDocumented, manifestCommands } from "./support/reference.js";

// docs/reference/cli.md agrees with the built CLI: one section per command, every argument, flag and example the
// command declares, and only links to error codes that errors.md documents. No process is started.

const ERRORS_DOC = fileURLToPath(new URL("../../../docs/reference/errors.md", import.meta.url));

async function load() {
  const [doc, errors, commands] = await Promise.all([
    readFile(CLI_DOC, "utf8"),
    readFile(ERRORS_DOC, "utf8"),
    manifestCommands(),
  ]);
  return { doc, errors, commands };
}

describe("docs/reference/cli.md", () => {
  test.for(COMMAND_IDS)("documents %s: arguments, flags and examples", async (id) => {
    const { doc, commands } = await load();
    const command = commands[id];
    expect(command, `${id} is not in the manifest`).toBeDefined();
    expectDocumented(doc, id, command);
  });

  test("documents the global flags and links only to documented error codes", async () => {
    const { doc, errors } = await load();
    for (const flag of ["`--cwd=<value>`", "`--json`", "`--help`"]) expect(doc).toContain(flag);
    const linked = [...doc.matchAll(/\]\(errors\.md#([a-z_]+)\)/g)].map((match) => match[1] ?? "");
    expect(linked.length).toBeGreaterThan(0);
    for (const code of new Set(linked)) {
      expect(Object.hasOwn(ERROR_CATALOGUE, code), `${code} is not a catalogue code`).toBe(true);
      expect(errors, `errors.md has no "## ${code}"`).toContain(`\n## ${code}\n`);
    }
  });
});
