import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ERROR_CATALOGUE } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { COMMAND_IDS, MANIFEST } from "./support/cli.js";

// docs/reference/cli.md agrees with the built CLI: one section per command, every argument, flag and example the
// command declares, and only links to error codes that errors.md documents. No process is started.

const CLI_DOC = fileURLToPath(new URL("../../../docs/reference/cli.md", import.meta.url));
const ERRORS_DOC = fileURLToPath(new URL("../../../docs/reference/errors.md", import.meta.url));

interface ManifestCommand {
  args: Record<string, unknown>;
  flags: Record<string, { type: string; helpGroup?: string }>;
  examples: string[];
}

async function load() {
  const [doc, errors, manifestText] = await Promise.all([
    readFile(CLI_DOC, "utf8"),
    readFile(ERRORS_DOC, "utf8"),
    readFile(MANIFEST, "utf8"),
  ]);
  const manifest = JSON.parse(manifestText) as { commands: Record<string, ManifestCommand> };
  return { doc, errors, manifest };
}

/** The text of `## <heading>` up to the next command's section (the commands come last on the page). */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) return "";
  const end = doc.indexOf("\n## kxm ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe("docs/reference/cli.md", () => {
  test.for(COMMAND_IDS)("documents %s: arguments, flags and examples", async (id) => {
    const { doc, manifest } = await load();
    const command = manifest.commands[id];
    expect(command, `${id} is not in the manifest`).toBeDefined();
    const words = id.split(":").join(" ");
    const text = section(doc, `kxm ${words}`);
    expect(text, `no "## kxm ${words}" section`).not.toBe("");
    for (const name of Object.keys(command?.args ?? {})) expect(text).toContain(`\`${name.toUpperCase()}\``);
    for (const [name, flag] of Object.entries(command?.flags ?? {})) {
      if (flag.helpGroup === "GLOBAL") continue;
      expect(text, `--${name}`).toContain(`\`--${name}`);
    }
    for (const example of command?.examples ?? []) {
      const line = example.replaceAll("<%= config.bin %>", "kxm").replaceAll("<%= command.id %>", words);
      expect(text, example).toContain(line);
    }
    for (const heading of ["**Output", "**Exit codes:**", "**Errors", "**Examples**"]) {
      expect(text, heading).toContain(heading);
    }
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
