// @ts-check
// Hostile invocations of the built CLI, and how each is judged: shared by apps/cli/test/hostile.test.ts (the table,
// each row a test) and the cli-bad-input scenario (the table and generated variants, as figures). Every row must
// exit non-zero with one line on stderr (a usage error adds its "See: kxm ... --help" line; `run status` one line
// per broken run), print no stack trace, and let no escape or control character reach the terminal.
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "./paths.mjs";

/** A stack frame as Node prints it, or an error class dumped with its name. */
const STACK = /^\s+at (?:.+ \()?[^\s()]+:\d+:\d+\)?$|^\w*Error(?: \[\w+\])?: |node:internal/m;
/** What may not reach the terminal: C0 controls but tab and newline, ESC, DEL, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/**
 * @typedef {object} CliCase
 * @property {string} name what the row tries
 * @property {string[]} args the command line after `kxm`
 * @property {string} [project] the fixture project to run in (a key of {@link PROJECTS}); default "good"
 * @property {string} [cwd] a folder to run in instead of a project
 * @property {Record<string, string>} [env] extra environment variables
 * @property {1 | 2} exit the exit code expected: 1 a failure, 2 a usage error
 * @property {number} [lines] lines on stderr (default 1; a usage error also prints its "See:" line)
 * @property {boolean} [json] --json is given: stderr empty, stdout one JSON object with an error (or `broken`)
 */

/**
 * @typedef {object} CliResult
 * @property {number | null} code
 * @property {string} stdout
 * @property {string} stderr
 * @property {boolean} timedOut
 */

/** Builds a string of `n` plain words, long but not a secret to redaction. @param {number} n */
const words = (n) => Array.from({ length: n }, (_, i) => `word${i % 10}`).join(" ");

const GOOD_STEP = {
  id: "build",
  agent: "coder",
  instructions: "Build it.",
  requiredEvidence: [],
  allowedOutcomes: ["done"],
  permission: "write",
};

/** The fixture projects, by name: each a folder with a .git marker and the broken files named. */
const PROJECTS = {
  /** A clean project. */
  good: {},
  /** One good run and one broken run of each kind. */
  runs: {
    ".kxm/runs/run_good/run.json": `${JSON.stringify({
      schema: "kxm.run.v1",
      runId: "run_good",
      project: "fixture",
      workflow: { name: "ship", steps: [GOOD_STEP] },
      prompt: "Ship it.",
      createdAt: "2026-01-01T00:00:00.000Z",
    })}\n`,
    ".kxm/runs/run_truncated/run.json": '{"schema":"kxm.run.v1","runId":"run_trun',
    ".kxm/runs/run_empty/run.json": "",
    ".kxm/runs/run_array/run.json": "[1, 2, 3]\n",
    ".kxm/runs/run_schema/run.json": '{"schema":"kxm.run.v1","runId":"run_schema"}\n',
    ".kxm/runs/run_osc/run.json": `{"schema":"kxm.run.v1","runId":"\u001b]0;owned\u0007run_osc"}\n`,
    ".kxm/runs/not-a-run/notes.txt": "a folder with no run.json is not a run\n",
  },
  /** Configuration files that are not what they should be. */
  yaml: {
    ".kxm/workflows/unclosed.yaml": "steps: [\n  - id: a\n",
    ".kxm/workflows/list.yaml": "- 1\n- 2\n",
    ".kxm/workflows/alias.yaml": "a: &x [1]\nsteps: *x\n",
    ".kxm/workflows/escape.yaml": "steps:\n  - id: \u001b]0;owned\u0007a\n",
    ".kxm/workflows/good.yaml": `steps:\n  - id: build\n    agent: coder\n    instructions: Build it.\n    requiredEvidence: []\n    allowedOutcomes: [done]\n    permission: write\n`,
    ".kxm/agents.yaml": "agents: {{{\n",
    ".kxm/modes.yaml": "\u001b]0;owned\u0007: [\n",
  },
  /** A memory fact whose front matter is not YAML, and one whose summary carries an escape sequence. */
  memory: {
    ".kxm/memory/broken.md": "---\nid: [\nsummary: \u001b[2Jgone\n---\nbody\n",
  },
  /** A promoted skill whose metadata.json is not JSON. */
  skills: {
    ".kxm/skills/promoted/skill_a/metadata.json": "{\u001b]0;owned\u0007",
    ".kxm/skills/promoted/skill_a/SKILL.md": "---\nname: a\ndescription: A\n---\nDo a.\n",
  },
  /** Where the CLI writes is a regular file: candidates, runs. */
  blocked: {
    ".kxm/memory/candidates": "a file where a folder should be\n",
    ".kxm/runs": "a file where a folder should be\n",
    ".kxm/workflows/good.yaml": `steps:\n  - id: build\n    agent: coder\n    instructions: Build it.\n    requiredEvidence: []\n    allowedOutcomes: [done]\n    permission: write\n`,
    ".kxm/agents.yaml": 'default:\n  command: ["true"]\n',
    "skill/SKILL.md": "---\nname: skill\ndescription: A skill\n---\nDo it.\n",
    ".kxm/skills": "a file where a folder should be\n",
    ".kxm/knowledge": "a file where a folder should be\n",
  },
};

/**
 * Writes the fixture projects under `dir` (a marker `.git` folder each, so the project root is found there).
 * @param {string} dir
 * @returns {Record<string, string>} each project's folder, by name, and "file": a regular file
 */
export function prepareProjects(dir) {
  /** @type {Record<string, string>} */
  const folders = {};
  for (const [name, files] of Object.entries(PROJECTS)) {
    const root = join(dir, name);
    mkdirSync(join(root, ".git"), { recursive: true });
    for (const [rel, text] of Object.entries(files)) {
      const path = join(root, ...rel.split("/"));
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, text);
    }
    folders[name] = root;
  }
  const file = join(dir, "a-file.txt");
  writeFileSync(file, "not a folder\n");
  folders.file = file;
  return folders;
}

/**
 * The table: every row a hostile invocation. `hubs` holds the URLs of the hubs the hub rows call: a real hub
 * (`real`, with `token` its admin token), one that refuses connections and the fake ones (fake-hubs.mjs).
 * @param {{ real: string, token: string, refusing: string, garbage: string, html: string, problem: string, hang: string, file: string }} hubs
 * @returns {CliCase[]}
 */
export function cliCases(hubs) {
  const admin = { KXM_AUTH_TOKEN: hubs.token };
  const fast = { KXM_HUB_TIMEOUT_MS: "1500" };
  const propose = [
    "context",
    "propose",
    "fixture",
    "--key",
    "release.branch",
    "--authority",
    "evidence",
    "--confidence",
    "probable",
  ];
  /** @type {CliCase[]} */
  const rows = [
    // The command line itself.
    { name: "an unknown flag", args: ["memory", "sync", "--bogus"], exit: 2, lines: 2 },
    { name: "an unknown flag on a fast path", args: ["memory", "brief", "--bogus"], exit: 2, lines: 2 },
    { name: "an unknown top-level flag", args: ["--bogus"], exit: 2, lines: 2 },
    { name: "an unknown topic", args: ["nosuch", "thing"], exit: 2, lines: 2 },
    { name: "an unknown command", args: ["memory", "forget"], exit: 2, lines: 2 },
    { name: "an escape sequence as a command", args: ["\u001b]0;owned\u0007"], exit: 2, lines: 2 },
    { name: "an unknown command with --json", args: ["nosuch", "--json"], exit: 2, json: true },
    { name: "a missing argument", args: ["memory", "note"], exit: 2, lines: 2 },
    { name: "an extra argument", args: ["run", "status", "a", "b"], exit: 2, lines: 2 },
    { name: "a missing required flag", args: ["run", "start", "good"], project: "yaml", exit: 2, lines: 2 },
    { name: "a flag without its value", args: ["memory", "note", "x", "--kind"], exit: 2, lines: 2 },
    {
      name: "a value not among the options",
      args: ["memory", "note", "x", "--scope", "world"],
      exit: 2,
      lines: 2,
    },
    { name: "a flag with an escape sequence", args: ["memory", "sync", "--\u001b[2Jx"], exit: 2, lines: 2 },
    { name: "--cwd at a file", args: ["memory", "validate", "--cwd", hubs.file], exit: 2, lines: 2 },
    {
      name: "--cwd at a file on a fast path",
      args: ["memory", "revision", "--cwd", hubs.file],
      exit: 2,
      lines: 2,
    },
    { name: "--cwd at nothing", args: ["run", "status", "--cwd", `${hubs.file}/below`], exit: 2, lines: 2 },
    { name: "an invalid run id", args: ["run", "status", "../../etc"], exit: 1 },
    {
      name: "an invalid KXM_HUB_URL",
      args: ["hub", "projects", "list"],
      env: { KXM_HUB_URL: "ftp://x" },
      exit: 2,
      lines: 2,
    },
    { name: "an invalid --hub", args: ["hub", "projects", "list", "--hub", "not a url"], exit: 2, lines: 2 },
    {
      name: "an invalid KXM_HUB_TIMEOUT_MS",
      args: ["hub", "projects", "list"],
      env: { KXM_HUB_TIMEOUT_MS: "soon" },
      exit: 2,
      lines: 2,
    },
    // Over the limits.
    { name: "a summary over the limit", args: ["memory", "note", words(900)], exit: 1 },
    {
      name: "a task over the limit",
      args: ["context", "get", "fixture", "--role", "implementer", "--task", words(400), "--hub", hubs.real],
      env: admin,
      exit: 1,
    },
    {
      name: "a proposal's summary over the limit",
      args: [...propose, "--summary", words(900), "--evidence", "pr:1", "--hub", hubs.real],
      env: admin,
      exit: 1,
    },
    {
      name: "too many evidence refs",
      args: [
        ...propose,
        "--summary",
        "Main.",
        ...Array.from({ length: 40 }, (_, i) => ["--evidence", `pr:${i + 1}`]).flat(),
        "--hub",
        hubs.real,
      ],
      env: admin,
      exit: 1,
    },
    {
      name: "a state key over the limit",
      args: ["context", "state", "fixture", "k".repeat(300), "--hub", hubs.real],
      env: admin,
      exit: 1,
    },
    {
      name: "a budget over the limit",
      args: [
        "context",
        "get",
        "fixture",
        "--role",
        "implementer",
        "--task",
        "x",
        "--budget",
        "99999999",
        "--hub",
        hubs.real,
      ],
      env: admin,
      exit: 1,
    },
    // Files that are not what they should be.
    { name: "a truncated run.json", args: ["run", "status", "run_truncated"], project: "runs", exit: 1 },
    { name: "an empty run.json", args: ["run", "status", "run_empty"], project: "runs", exit: 1 },
    {
      name: "a run.json that is not an object",
      args: ["run", "manifest", "run_array"],
      project: "runs",
      exit: 1,
    },
    {
      name: "a run.json off its schema",
      args: ["run", "prompt", "ship", "--step", "build", "--run", "run_schema"],
      project: "runs",
      exit: 1,
    },
    {
      name: "a run.json with an escape sequence",
      args: ["run", "status", "run_osc"],
      project: "runs",
      exit: 1,
    },
    { name: "listing runs with broken ones", args: ["run", "status"], project: "runs", exit: 1, lines: 5 },
    {
      name: "listing runs with broken ones, --json",
      args: ["run", "status", "--json"],
      project: "runs",
      exit: 1,
      json: true,
    },
    {
      name: "a workflow that is not YAML",
      args: ["run", "prompt", "unclosed", "--step", "a"],
      project: "yaml",
      exit: 1,
    },
    {
      name: "a workflow that is a list",
      args: ["run", "start", "list", "--prompt", "x"],
      project: "yaml",
      exit: 1,
    },
    {
      name: "a workflow with an alias",
      args: ["run", "prompt", "alias", "--step", "a"],
      project: "yaml",
      exit: 1,
    },
    {
      name: "a workflow with an escape sequence",
      args: ["run", "prompt", "escape", "--step", "a"],
      project: "yaml",
      exit: 1,
    },
    {
      name: "agents.yaml that is not YAML",
      args: ["run", "start", "good", "--prompt", "x"],
      project: "yaml",
      exit: 1,
    },
    { name: "modes.yaml that is not YAML", args: ["explain", "--mode", "x"], project: "yaml", exit: 1 },
    {
      name: "modes.yaml that is not YAML, --json",
      args: ["explain", "--mode", "x", "--json"],
      project: "yaml",
      exit: 1,
      json: true,
    },
    { name: "a memory fact that is not YAML (brief)", args: ["memory", "brief"], project: "memory", exit: 1 },
    {
      name: "a memory fact that is not YAML (brief --json)",
      args: ["memory", "brief", "--json"],
      project: "memory",
      exit: 1,
      json: true,
    },
    { name: "a memory fact that is not YAML (sync)", args: ["memory", "sync"], project: "memory", exit: 1 },
    {
      name: "a memory fact that is not YAML (validate)",
      args: ["memory", "validate"],
      project: "memory",
      exit: 1,
      lines: 2,
    },
    {
      name: "a skill's metadata.json that is not JSON",
      args: ["skills", "list"],
      project: "skills",
      exit: 1,
    },
    // Outputs that cannot be written (we run as root: a file in the way, not permission bits).
    {
      name: "candidates folder is a file",
      args: ["memory", "note", "Use pnpm."],
      project: "blocked",
      exit: 1,
    },
    {
      name: "runs folder is a file",
      args: ["run", "start", "good", "--prompt", "x"],
      project: "blocked",
      exit: 1,
    },
    { name: "skills folder is a file", args: ["skills", "propose", "skill"], project: "blocked", exit: 1 },
    {
      name: "wiki output under a file",
      args: ["context", "wiki-compile", "fixture", "--out", hubs.file, "--hub", hubs.real],
      env: admin,
      exit: 2,
      lines: 2,
    },
    {
      name: "wiki output at a folder below a file",
      args: ["context", "wiki-compile", "fixture", "--out", `${hubs.file}/below`, "--hub", hubs.real],
      env: admin,
      exit: 2,
      lines: 2,
    },
    {
      name: "wiki output where .kxm/knowledge is a file",
      args: ["context", "wiki-compile", "fixture", "--out", ".", "--hub", hubs.real],
      project: "blocked",
      env: admin,
      exit: 1,
    },
    // Hubs that are not there, or not hubs.
    {
      name: "a hub that refuses connections",
      args: ["hub", "projects", "list", "--hub", hubs.refusing],
      env: admin,
      exit: 1,
    },
    {
      name: "a hub that answers garbage",
      args: ["hub", "projects", "list", "--hub", hubs.garbage],
      env: admin,
      exit: 1,
    },
    {
      name: "a hub that answers HTML 200",
      args: ["hub", "projects", "list", "--hub", hubs.html],
      env: admin,
      exit: 1,
    },
    {
      name: "a hub that answers HTML 200, --json",
      args: ["hub", "agents", "list", "fixture", "--hub", hubs.html, "--json"],
      env: admin,
      exit: 1,
      json: true,
    },
    {
      name: "a hub with an OSC in its problem",
      args: ["context", "recall", "fixture", "--query", "x", "--hub", hubs.problem],
      env: admin,
      exit: 1,
    },
    {
      name: "a hub with an OSC in its problem, --json",
      args: ["context", "state", "fixture", "release.branch", "--hub", hubs.problem, "--json"],
      env: admin,
      exit: 1,
      json: true,
    },
    {
      name: "a hub that hangs",
      args: ["hub", "operators", "list", "--hub", hubs.hang],
      env: { ...admin, ...fast },
      exit: 1,
    },
  ];
  return rows;
}

/**
 * Runs the built CLI with `row`'s arguments in its project (or cwd), at most `timeoutMs`.
 * @param {CliCase} row
 * @param {Record<string, string>} folders from {@link prepareProjects}
 * @param {{ home: string, timeoutMs?: number }} options
 * @returns {Promise<CliResult>}
 */
export function runCase(row, folders, options) {
  const cwd = row.cwd ?? folders[row.project ?? "good"] ?? folders.good;
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: options.home,
    NO_COLOR: "1",
    KXM_ACTOR: "hostile@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    ...row.env,
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...row.args],
      { cwd, env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 8 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        const failure = /** @type {(Error & { code?: unknown, killed?: boolean }) | null} */ (error);
        resolve({
          code: failure === null ? 0 : typeof failure.code === "number" ? failure.code : null,
          stdout,
          stderr,
          timedOut: failure?.killed === true,
        });
      },
    );
  });
}

/**
 * What is wrong with `result` for `row`, by figure: a zero exit (or the wrong code), more (or fewer) lines than
 * the documented format, a stack trace, a control character. Empty when the row held.
 * @param {CliCase} row
 * @param {CliResult} result
 * @returns {{ zeroExit: boolean, wrongCode: boolean, shape: string | undefined, stack: boolean, control: boolean }}
 */
export function judge(row, result) {
  const zeroExit = result.code === 0 || result.timedOut;
  const wrongCode = !zeroExit && result.code !== row.exit;
  let shape;
  if (row.json) {
    if (result.stderr !== "") shape = `stderr not empty with --json: ${JSON.stringify(result.stderr)}`;
    else {
      try {
        const value = JSON.parse(result.stdout);
        if (value === null || typeof value !== "object" || !("error" in value || "broken" in value))
          shape = "--json printed no error";
      } catch {
        shape = `--json printed no JSON: ${JSON.stringify(result.stdout.slice(0, 200))}`;
      }
    }
  } else {
    const lines = result.stderr.split("\n");
    const last = lines.pop();
    const expected = row.lines ?? 1;
    if (last !== "") shape = "stderr does not end with a newline";
    else if (lines.length !== expected) shape = `${lines.length} lines on stderr, not ${expected}`;
    else if (lines.some((line) => line.trim() === "")) shape = "an empty line on stderr";
    else if (row.exit === 2 && !/^See: kxm .*--help$/.test(lines.at(-1) ?? "")) shape = "no See: line";
  }
  return {
    zeroExit,
    wrongCode,
    shape,
    stack: STACK.test(result.stderr) || STACK.test(result.stdout),
    control: CONTROL.test(result.stderr) || CONTROL.test(result.stdout),
  };
}

/** Runs `tasks` with at most `limit` at a time, in order. @template T @param {(() => Promise<T>)[]} tasks @param {number} limit */
export async function limited(tasks, limit) {
  /** @type {T[]} */
  const out = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      out[index] = await /** @type {() => Promise<T>} */ (tasks[index])();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}
