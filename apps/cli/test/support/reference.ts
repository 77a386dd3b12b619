import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { MANIFEST } from "./cli.js";

// The CLI reference (docs/reference/cli.md) beside the built manifest: what the tests holding the page to the
// commands share.

export const CLI_DOC = fileURLToPath(new URL("../../../../docs/reference/cli.md", import.meta.url));

export interface ManifestCommand {
  args: Record<string, unknown>;
  flags: Record<string, { type: string; helpGroup?: string }>;
  examples: string[];
}

/** The built manifest's commands, by id. */
export async function manifestCommands(): Promise<Record<string, ManifestCommand>> {
  return (JSON.parse(await readFile(MANIFEST, "utf8")) as { commands: Record<string, ManifestCommand> })
    .commands;
}

/** The text of `## <heading>` up to the next command's section (the commands come last on the page). */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) return "";
  const end = doc.indexOf("\n## kxm ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** `doc` has a section for command `id` naming every argument, flag and example `command` declares. */
export function expectDocumented(doc: string, id: string, command: ManifestCommand | undefined): void {
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
}
