// Every guide is followed from an empty folder, as a new user would, and must work as printed. A guide's runnable
// blocks are the fenced blocks marked `run=<guide>`, taken in the order the guide shows them and run by one bash in
// a fresh temporary folder, so `cd` and `export` carry from block to block:
//
// - a `bash` block runs as printed and must succeed; a `background` block starts a server with `&` (what the
//   guide says may run in a terminal of its own), and the next block waits until the block's output shows a URL;
// - a block with `create=<path>` is a file the guide says to create: it is written at that path, relative to the
//   folder the shell is in at that point, byte for byte;
// - a `text` block is a transcript: each `$ ` line is a command, run as printed, and the lines after it are what it
//   prints (standard output and error through one pipe, as a terminal shows), ending with `(exit N)` when it exits
//   N rather than 0. `…` stands for any text within a line, for values that differ from run to run.
//
// `kxm` is on PATH by name (a shim starting the built CLI, standing in for an installed one), and so are git, curl,
// jq and node; HOME is a fresh folder whose .gitconfig names a user, as on a developer's machine. A guide that
// starts a hub gets KXM_PORT and KXM_HUB_URL for a free loopback port, standing in for the default 7420 (which
// another process may hold): `127.0.0.1:7420` in the guide's commands means that port, and the port is written
// back as 7420 in what they print. The browser guide gets a Steel stand-in (@kxm/steel-test-server, the cloud
// flavour, a real Chromium per session started at its first CDP connection): `https://steel.example.com` in its
// commands means that server's URL, written back as `https://steel.example.com` in what they print; STEEL_API_KEY
// (random each run) is in the shell's environment, never on a command line, and KXM_BROWSER_STATE_DIR is a folder
// of its own, so the session tracker starts empty. The self-hosting guide's scale-out run gets a throwaway
// PostgreSQL cluster (@kxm/test-support's startPostgres, with an empty database `kxm`): `127.0.0.1:5432` in its
// commands means that server, and its second and third hubs' ports 7421 and 7422 mean free ports, each written
// back as printed. The arbiter guide's packages come from the workspace build
// (linked into the folder's node_modules), standing in for its install step.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startSteelTestServer } from "@kxm/steel-test-server";
import { createDatabase, freePort, startPostgres } from "@kxm/test-support";
import { afterAll, describe, expect, test } from "vitest";
import { docs, type Fence, fences, ROOT } from "./fences.js";

/** Each guide's time limit, starting processes on 2 busy cores included. */
const GUIDE_TIMEOUT_MS = 150_000;
const CLI = join(ROOT, "apps", "cli", "bin", "run.js");
const work = mkdtempSync(join(tmpdir(), "kxm-guides-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Command {
  fence: Fence;
  command: string;
  expected: string;
  exit: number;
}

type Step =
  | { kind: "shell"; fence: Fence; background: boolean }
  | { kind: "create"; fence: Fence; path: string }
  | { kind: "transcript"; fence: Fence; commands: Command[] };

/** A transcript's commands with what each prints; a command ending in ` \` goes on on the next line. */
function transcript(fence: Fence): Command[] {
  const commands: Command[] = [];
  let continued = false;
  for (const line of fence.body.slice(0, -1).split("\n")) {
    const last = commands[commands.length - 1];
    if (continued && last) {
      last.command += `\n${line}`;
      continued = line.endsWith("\\");
    } else if (line.startsWith("$ ")) {
      commands.push({ fence, command: line.slice(2), expected: "", exit: 0 });
      continued = line.endsWith("\\");
    } else if (!last) {
      throw new Error(`${fence.doc}:${fence.line}: a transcript starts with a "$ " command`);
    } else {
      last.expected += `${line}\n`;
    }
  }
  for (const command of commands) {
    const exit = /\n?\(exit (\d+)\)\n*$/.exec(command.expected);
    if (exit) {
      command.exit = Number(exit[1]);
      command.expected = command.expected.slice(0, exit.index);
    }
    command.expected = command.expected.trimEnd();
  }
  return commands;
}

/** The guides and their steps, from every doc's `run=` blocks. */
function guides(): Map<string, Step[]> {
  const found = new Map<string, Step[]>();
  for (const fence of docs().flatMap(fences)) {
    const guide = fence.attributes.run;
    if (guide === undefined) continue;
    const steps = found.get(guide) ?? [];
    if (steps[0] && steps[0].fence.doc !== fence.doc) {
      throw new Error(`run=${guide} is used by ${steps[0].fence.doc} and ${fence.doc}`);
    }
    const create = fence.attributes.create;
    if (create !== undefined) steps.push({ kind: "create", fence, path: create });
    else if (fence.lang === "bash") {
      steps.push({ kind: "shell", fence, background: "background" in fence.attributes });
    } else if (fence.lang === "text") steps.push({ kind: "transcript", fence, commands: transcript(fence) });
    else throw new Error(`${fence.doc}:${fence.line}: a run= block is bash, text, or has create=`);
    found.set(guide, steps);
  }
  return found;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/** The guides' stand-ins for what a reader has: the hub's port, and the browser guide's Steel deployment. */
interface Stand {
  port: number;
  /** The Steel test server's URL, standing in for `STEEL`. */
  steel?: string;
  /** More `127.0.0.1:<port>` addresses the guide names, each to the free port standing in for it. */
  ports?: Map<number, number>;
}

/**
 * Every `127.0.0.1:<port>` the guide names, and every extra hub's `--port <port>`, to the port it means here (and
 * back, with `back`).
 */
function addresses(text: string, stand: Stand, back = false): string {
  const pairs: Array<[number, number]> = [[7420, stand.port], ...(stand.ports ?? new Map())];
  let result = text;
  for (const [printed, real] of pairs) {
    const [from, to] = back ? [real, printed] : [printed, real];
    result = result.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
    // A hub the guide starts on that port (`kxm hub serve --port 7421`) listens on the stand-in.
    if (!back && printed !== 7420) result = result.replaceAll(`--port ${from}`, `--port ${to}`);
  }
  return result;
}

/** The Steel deployment the browser guide's commands name. */
const STEEL = "https://steel.example.com";

/** One bash script for a guide's steps; what each step prints goes to its own file under `out`. */
function script(steps: Step[], out: string, stand: Stand): string {
  const local = (text: string) => {
    const hub = addresses(text, stand);
    return stand.steel === undefined ? hub : hub.replaceAll(STEEL, stand.steel);
  };
  const lines = [
    "set -e",
    // Whatever the guide started in the background stops with it.
    "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT",
  ];
  let n = 0;
  for (const step of steps) {
    const at = join(out, String(++n));
    lines.push(`printf '%s' ${n} > ${quote(join(out, "current"))}`);
    if (step.kind === "create") {
      const eof = `KXM_GUIDE_EOF_${n}`;
      expect(step.fence.body, `${step.fence.doc}:${step.fence.line}`).not.toContain(eof);
      lines.push(`mkdir -p "$(dirname ${quote(step.path)})"`);
      lines.push(`cat > ${quote(step.path)} <<'${eof}'\n${step.fence.body}${eof}`);
    } else if (step.kind === "shell") {
      const log = quote(`${at}.log`);
      lines.push(`{\n${local(step.fence.body)}} > ${log} 2>&1`);
      // What it started in the background prints the URL it listens on: wait for it, for at most 60 s.
      if (step.background) {
        lines.push(
          `for i in $(seq 600); do grep -q 'http://' ${log} && break; sleep 0.1; done`,
          `grep -q 'http://' ${log} || { echo 'nothing printed a URL within 60 s' >> ${log}; exit 1; }`,
        );
      }
    } else {
      step.commands.forEach((command, i) => {
        const file = quote(`${at}.${i}`);
        lines.push(
          `set +e\n{\n${local(command.command)}\n} > ${file}.out 2>&1\necho $? > ${file}.code\nset -e`,
        );
      });
    }
  }
  lines.push(`printf done > ${quote(join(out, "current"))}`);
  return `${lines.join("\n")}\n`;
}

/** An empty folder for the guide, a HOME and a PATH holding `kxm`. */
function prepare(guide: string): { folder: string; env: NodeJS.ProcessEnv } {
  const base = mkdtempSync(join(work, `${guide}-`));
  const folder = join(base, "work");
  const home = join(base, "home");
  const bin = join(base, "bin");
  for (const dir of [folder, home, bin]) mkdirSync(dir);
  writeFileSync(join(bin, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "kxm"), 0o755);
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Dana Lee\n\temail = dana@example.com\n");
  if (guide === "arbiter") {
    mkdirSync(join(folder, "node_modules", "@kxm"), { recursive: true });
    for (const name of ["arbiter", "provenance", "contract"]) {
      symlinkSync(join(ROOT, "packages", name), join(folder, "node_modules", "@kxm", name), "dir");
    }
  }
  const env: NodeJS.ProcessEnv = {
    PATH: [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: home,
    LANG: "C.UTF-8",
    TMPDIR: base,
    GIT_CONFIG_NOSYSTEM: "1",
  };
  return { folder, env };
}

function run(
  source: string,
  folder: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", source], {
      cwd: folder,
      env,
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), GUIDE_TIMEOUT_MS - 5_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** What a command printed, with the guide's stand-ins put back: the hub's port, Steel's URL, and durations. */
function shown(text: string, stand: Stand): string {
  const hub = addresses(text, stand, true);
  return durations(stand.steel === undefined ? hub : hub.replaceAll(stand.steel, STEEL)).trimEnd();
}

/** A step's duration (`done in 0.1 s`) differs from run to run. */
function durations(text: string): string {
  return text.replace(/ in \d+\.\d s\b/g, " in <t> s");
}

/** Whether a transcript's expected text matches what was printed; `…` matches any text within a line. */
function matches(expected: string, actual: string): boolean {
  const pattern = expected
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^\\n]*");
  return new RegExp(`^${pattern}$`).test(actual);
}

const all = guides();

describe("the guides, followed from an empty folder", () => {
  test("every guide has runnable blocks", () => {
    const guided = new Set([...all.values()].map((steps) => steps[0]!.fence.doc));
    const guidesDir = join(ROOT, "docs", "guides");
    const every = readdirSync(guidesDir).filter((name) => name.endsWith(".md"));
    expect(every.length).toBeGreaterThanOrEqual(5);
    expect([...guided].sort()).toEqual(every.map((name) => `docs/guides/${name}`).sort());
  });

  test.each([...all.keys()])("%s", { timeout: GUIDE_TIMEOUT_MS }, async (guide) => {
    const steps = all.get(guide)!;
    const { folder, env } = prepare(guide);
    const port = await freePort();
    const hub = steps.some((step) => step.kind === "shell" && step.background);
    if (hub) Object.assign(env, { KXM_PORT: String(port), KXM_HUB_URL: `http://127.0.0.1:${port}` });
    const out = join(dirname(folder), "out");
    mkdirSync(out);
    const stand: Stand = { port };
    // Steel is an outside service: the browser guide gets a stand-in for the reader's deployment.
    const steelKey = randomBytes(24).toString("hex");
    const steel =
      guide === "browser" ? await startSteelTestServer({ apiKey: steelKey, launch: "lazy" }) : undefined;
    if (steel) {
      stand.steel = steel.url;
      Object.assign(env, {
        STEEL_API_KEY: steelKey,
        KXM_BROWSER_STATE_DIR: join(dirname(folder), "browser-state"),
      });
    }
    // PostgreSQL is a server the reader runs: the scale-out run gets a throwaway cluster with an empty `kxm`.
    const postgres = guide === "scale-out" ? await startPostgres() : undefined;
    if (postgres) {
      await createDatabase(postgres.url("postgres"), "kxm");
      stand.ports = new Map([
        [5432, postgres.port],
        [7421, await freePort()],
        [7422, await freePort()],
      ]);
    }
    const result = await run(script(steps, out, stand), folder, env).finally(() => {
      steel?.close();
      postgres?.stop();
    });
    const reached = existsSync(join(out, "current")) ? readFileSync(join(out, "current"), "utf8") : "0";
    if (reached !== "done") {
      const failed = steps[Number(reached) - 1];
      const log = join(out, `${reached}.log`);
      expect.fail(
        `${failed ? `${failed.fence.doc}:${failed.fence.line}` : guide} failed (exit ${result.code}):\n` +
          `${existsSync(log) ? readFileSync(log, "utf8") : ""}${result.stderr}`,
      );
    }
    steps.forEach((step, n) => {
      if (step.kind !== "transcript") return;
      step.commands.forEach((command, i) => {
        const at = join(out, `${n + 1}.${i}`);
        const where = `${command.fence.doc}:${command.fence.line} $ ${command.command}`;
        const printed = shown(readFileSync(`${at}.out`, "utf8"), stand);
        expect.soft(Number(readFileSync(`${at}.code`, "utf8")), `${where}\n${printed}`).toBe(command.exit);
        const expected = durations(command.expected);
        if (!matches(expected, printed)) expect.soft(printed, where).toBe(expected);
      });
    });
  });
});
