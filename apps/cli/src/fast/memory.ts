import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { terminalJson, terminalLine, terminalText } from "../terminal-text.js";

// `kxm memory brief` and `kxm memory revision` without oclif, for the SessionStart hook that runs the brief at
// every session start. The commands in src/commands/memory/ stay the reference: this path prints the same bytes
// and exits with the same codes (the CLI's tests run through it), and it takes only the plain forms, `--json` and
// `--cwd <folder>` at most once each. Anything else (--help, another flag, KXM_DEBUG, JSON to a terminal, which
// oclif colours, and for the brief KXM_HUB_URL, a hub to ask) returns false and goes to oclif.

type BriefLib = typeof import("./brief-lib.js");
type RevisionLib = typeof import("./revision-lib.js");

const EXIT = { failed: 1, usage: 2 } as const;

/** The plain forms this path takes: `--json` and `--cwd` at most once each, or undefined. */
function plainFlags(rest: readonly string[]): { json: boolean; cwd: string | undefined } | undefined {
  let json = false;
  let cwd: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--json" && !json) json = true;
    else if (arg === "--cwd" && cwd === undefined && (rest[i + 1] ?? "-").match(/^[^-]/)) cwd = rest[++i];
    else if (arg.startsWith("--cwd=") && arg.length > 6 && cwd === undefined) cwd = arg.slice(6);
    else return undefined;
  }
  return { json, cwd };
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

class Usage extends Error {}

/** Runs the command and returns true, or returns false without doing anything when oclif should run it. */
export async function runMemoryFast(argv: readonly string[]): Promise<boolean> {
  const [topic, command, ...rest] = argv;
  if (topic !== "memory" || (command !== "brief" && command !== "revision")) return false;
  // biome-ignore lint/style/noProcessEnv: the fast path loads no zod (env.ts does); any KXM_DEBUG hands over to oclif.
  if (process.env.KXM_DEBUG) return false;
  // A configured hub is asked what it withholds (memory-withheld.ts), which this path does not do: oclif runs it.
  // biome-ignore lint/style/noProcessEnv: as above; only whether it is set is read, env.ts validates it.
  if (command === "brief" && process.env.KXM_HUB_URL) return false;
  const flags = plainFlags(rest);
  if (flags === undefined || (flags.json && process.stdout.isTTY)) return false;
  const name = `memory ${command}`;
  let lib: BriefLib | RevisionLib;
  try {
    lib = await import(command === "brief" ? "./brief-lib.bundle.js" : "./revision-lib.bundle.js");
  } catch (error) {
    // A build without the bundles (scripts/bundle.mjs did not run): oclif runs the command.
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return false;
    throw error;
  }
  // The same output boundary as base.ts: exact JSON never raw, human text without escapes or controls.
  const print = (value: unknown) => process.stdout.write(terminalJson(value));
  try {
    const folder = flags.cwd === undefined ? process.cwd() : resolve(flags.cwd);
    if (flags.cwd !== undefined && !(await isFolder(folder)))
      throw new Usage(`--cwd: no folder at ${flags.cwd}`);
    const root = await lib.findProjectRoot(folder);
    if (command === "brief") {
      const { deliverableFacts, renderBrief } = lib as BriefLib;
      const facts = await deliverableFacts(root, new Date());
      const text = renderBrief(facts);
      if (!flags.json) process.stdout.write(`${terminalText(text)}\n`);
      else {
        const listed = facts.map(({ id, scope, kind, summary, file }) => ({
          id,
          scope,
          kind,
          summary,
          file,
        }));
        print({ count: facts.length, text, facts: listed });
      }
    } else {
      const revision = await (lib as RevisionLib).computeMemoryRevision(root);
      if (flags.json) print({ revision });
      else process.stdout.write(`${terminalText(revision)}\n`);
    }
  } catch (error) {
    if (error instanceof Usage) {
      if (flags.json) print({ error: { code: "invalid_usage", message: error.message } });
      else process.stderr.write(`${terminalLine(error.message)}\nSee: kxm ${name} --help\n`);
      process.exitCode = EXIT.usage;
      return true;
    }
    const known = lib.isKxmError(error);
    const message = known
      ? error.message
      : `unexpected error: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`;
    const code = known ? error.code : "internal_error";
    if (flags.json) print({ error: { code, message } });
    else process.stderr.write(`${terminalLine(`${name} failed: ${message}`)}\n`);
    process.exitCode = EXIT.failed;
  }
  return true;
}
