import { type ChildProcess, spawn } from "node:child_process";
import { isAbsolute } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";

/**
 * Why a file under checked paths is not committed content. `modified`, `deleted` and `staged` compare the work
 * tree and the index with HEAD (a work-tree change wins over a staged one when both exist); `conflicted` is an
 * unmerged path; `assume-unchanged` and `skip-worktree` are tracked files whose index flag makes `git status`
 * stop looking at them, so their content cannot be vouched for.
 */
export type GitFileState =
  | "modified"
  | "staged"
  | "deleted"
  | "untracked"
  | "ignored"
  | "conflicted"
  | "assume-unchanged"
  | "skip-worktree";

/** The answer of {@link checkTrackedClean}. */
export type GitCheck =
  | { status: "clean" }
  | { status: "dirty"; files: Array<{ path: string; state: GitFileState }> }
  | { status: "unavailable"; reason: "not_a_repository" | "git_missing" | "timeout" | "failed" };

/** How git is run: the whole call's time limit (default 5,000 ms) and the binary (default `git` on PATH). */
export interface GitOptions {
  timeoutMs?: number;
  gitBinary?: string;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const NOT_A_REPOSITORY = /not a git repository/i;

type RunResult =
  | { kind: "exit"; code: number; stdout: Buffer; stderr: string }
  | { kind: "timeout" | "missing" | "failed" };

// Variables a surrounding git process (a hook, a rebase) sets would point git at another repository or index;
// `-C root` must decide. LC_ALL=C keeps the messages matched above in English.
const INHERITED_GIT_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "LANGUAGE",
];

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    // biome-ignore lint/style/noProcessEnv: passed through to git (less the repository-locating variables), not read.
    ...process.env,
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  };
  for (const name of INHERITED_GIT_VARIABLES) delete env[name];
  return env;
}

const detached = process.platform !== "win32";

function kill(child: ChildProcess): void {
  if (child.pid !== undefined) {
    try {
      // The child leads its own process group, so this also ends anything it started (a wrapper's `sleep`) that
      // would otherwise hold the pipes open.
      if (detached) process.kill(-child.pid, "SIGKILL");
      else child.kill("SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.unref();
}

/** Runs `git -C root ...args` without a shell, killed when `deadline` (epoch ms) passes. */
function runGit(
  binary: string,
  root: string,
  args: readonly string[],
  deadline: number,
  input?: Buffer,
): Promise<RunResult> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.resolve({ kind: "timeout" });
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child: ChildProcess;
    try {
      child = spawn(binary, ["-C", root, ...args], {
        env: gitEnv(),
        stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        detached,
        windowsHide: true,
      });
    } catch {
      finish({ kind: "failed" });
      return;
    }
    const stdout: Buffer[] = [];
    let size = 0;
    let stderr = "";
    timer = setTimeout(() => {
      kill(child);
      finish({ kind: "timeout" });
    }, remaining);
    child.stdout?.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT_BYTES) stdout.push(chunk);
      else {
        kill(child);
        finish({ kind: "failed" });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4_096) stderr += chunk.toString("utf8");
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      kill(child);
      finish({ kind: error.code === "ENOENT" ? "missing" : "failed" });
    });
    if (input !== undefined && child.stdin) {
      // A git that exits early closes its end; the close event reports how it ended.
      child.stdin.on("error", () => {});
      child.stdin.end(input);
    }
    child.on("close", (code) => {
      finish(
        code === null ? { kind: "failed" } : { kind: "exit", code, stdout: Buffer.concat(stdout), stderr },
      );
    });
  });
}

function unavailable(result: RunResult): GitCheck {
  if (result.kind === "timeout") return { status: "unavailable", reason: "timeout" };
  if (result.kind === "missing") return { status: "unavailable", reason: "git_missing" };
  if (result.kind === "exit" && NOT_A_REPOSITORY.test(result.stderr)) {
    return { status: "unavailable", reason: "not_a_repository" };
  }
  return { status: "unavailable", reason: "failed" };
}

function checkPathspec(path: string): string {
  if (
    typeof path !== "string" ||
    path.length === 0 ||
    path.includes("\0") ||
    isAbsolute(path) ||
    /^[A-Za-z]:/.test(path) ||
    path.split(/[\\/]/).includes("..")
  ) {
    throw new KxmError("invalid_request", "paths: each must be a non-empty path inside the project");
  }
  return path;
}

function stateOf(x: string, y: string): GitFileState {
  if (x === "?" && y === "?") return "untracked";
  if (x === "!" && y === "!") return "ignored";
  if (x === "U" || y === "U" || (x === "A" && y === "A") || (x === "D" && y === "D")) return "conflicted";
  if (y === "D") return "deleted";
  if (y !== " ") return "modified";
  if (x === "D") return "deleted";
  return x === " " ? "modified" : "staged";
}

/**
 * `git status --porcelain=v1 -z` records: `XY path`, and for a rename or copy the origin as the next field.
 * Paths are raw bytes between NULs, so spaces, quotes and newlines need no unquoting.
 */
function parseStatus(output: string): Array<{ path: string; state: GitFileState }> {
  const fields = output.split("\0");
  const files: Array<{ path: string; state: GitFileState }> = [];
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] ?? "";
    if (field === "") continue;
    if (field.length < 4 || field[2] !== " ") throw new Error("unexpected git status output");
    const x = field[0] ?? " ";
    const y = field[1] ?? " ";
    files.push({ path: field.slice(3), state: stateOf(x, y) });
    if ("RC".includes(x) || "RC".includes(y)) {
      index++;
      const origin = fields[index];
      if (origin && x === "R") files.push({ path: origin, state: "deleted" });
    }
  }
  return files;
}

/** `git ls-files -v` tags: lowercase is assume-unchanged, `S`/`s` skip-worktree; anything else is ordinary. */
function parseFlags(output: string): Array<{ path: string; state: GitFileState }> {
  const files: Array<{ path: string; state: GitFileState }> = [];
  for (const field of output.split("\0")) {
    if (field.length < 3 || field[1] !== " ") continue;
    const tag = field[0] ?? "";
    const path = field.slice(2);
    if (tag === "S" || tag === "s") files.push({ path, state: "skip-worktree" });
    else if (tag !== tag.toUpperCase()) files.push({ path, state: "assume-unchanged" });
  }
  return files;
}

/**
 * Whether every file under `paths` (project-relative files or folders, such as `.kxm/memory`) is tracked and
 * identical to HEAD in both the index and the work tree. Modified, staged, deleted, conflicted, untracked and
 * ignored files make it `dirty`, and so do tracked files flagged assume-unchanged or skip-worktree, whose changes
 * `git status` would not show. In a repository with no commit yet every file is uncommitted, so any file there is
 * dirty. Paths are literal (no globs); reported paths are project-relative, sorted by code unit. git runs
 * without a shell, with `GIT_OPTIONAL_LOCKS=0`, and is killed after `timeoutMs` (default 5,000) for the whole
 * check: `unavailable` with `timeout`, `git_missing`, `not_a_repository` or `failed` instead of a throw. An empty
 * `paths` only checks that `root` is in a repository.
 */
export async function checkTrackedClean(
  root: string,
  paths: readonly string[],
  options: GitOptions = {},
): Promise<GitCheck> {
  const pathspecs = paths.map(checkPathspec);
  const binary = options.gitBinary ?? "git";
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const top = await runGit(binary, root, ["rev-parse", "--show-prefix"], deadline);
  if (top.kind !== "exit" || top.code !== 0) return unavailable(top);
  if (pathspecs.length === 0) return { status: "clean" };
  // Porcelain and --full-name paths are relative to the repository's top; the project may be a folder inside.
  const prefix = top.stdout.toString("utf8").replace(/\n$/, "");
  const [status, flags] = await Promise.all([
    runGit(
      binary,
      root,
      [
        "--literal-pathspecs",
        "status",
        "--porcelain=v1",
        "-z",
        "--ignored=traditional",
        "--untracked-files=all",
        "--no-renames",
        "--",
        ...pathspecs,
      ],
      deadline,
    ),
    runGit(
      binary,
      root,
      ["--literal-pathspecs", "ls-files", "-v", "-z", "--full-name", "--", ...pathspecs],
      deadline,
    ),
  ]);
  if (status.kind !== "exit" || status.code !== 0) return unavailable(status);
  if (flags.kind !== "exit" || flags.code !== 0) return unavailable(flags);
  let found: Array<{ path: string; state: GitFileState }>;
  try {
    found = [...parseStatus(status.stdout.toString("utf8")), ...parseFlags(flags.stdout.toString("utf8"))];
  } catch {
    return { status: "unavailable", reason: "failed" };
  }
  const byPath = new Map<string, GitFileState>();
  for (const { path, state } of found) {
    const relative = path.startsWith(prefix) ? path.slice(prefix.length) : path;
    if (!byPath.has(relative)) byPath.set(relative, state);
  }
  if (byPath.size === 0) return { status: "clean" };
  const files = [...byPath]
    .map(([path, state]) => ({ path, state }))
    .sort((a, b) => compareCodeUnits(a.path, b.path));
  return { status: "dirty", files };
}

/**
 * The commit HEAD names in the repository holding `root`, as hex, or undefined when `root` is not in a
 * repository or the repository has no commit yet. Throws 503 `git_unavailable` when git is missing, fails or
 * does not answer within `timeoutMs` (default 5,000).
 */
export async function gitHeadCommit(root: string, options: GitOptions = {}): Promise<string | undefined> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const result = await runGit(
    options.gitBinary ?? "git",
    root,
    ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
    Date.now() + timeoutMs,
  );
  if (result.kind === "timeout")
    throw new KxmError("git_unavailable", `git did not answer within ${timeoutMs} ms`);
  if (result.kind === "missing") throw new KxmError("git_unavailable", "git was not found");
  if (result.kind !== "exit") throw new KxmError("git_unavailable", "git failed");
  if (result.code !== 0) {
    // --verify --quiet exits 1 without a word when HEAD is unborn.
    if (result.code === 1 || NOT_A_REPOSITORY.test(result.stderr)) return undefined;
    throw new KxmError("git_unavailable", `git rev-parse failed with exit code ${result.code}`);
  }
  const commit = result.stdout.toString("utf8").trim();
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(commit))
    throw new KxmError("git_unavailable", "git rev-parse gave no commit");
  return commit;
}

/** One file of a commit: its path relative to the project root (forward slashes), link or not, and its bytes. */
export interface CommittedFile {
  path: string;
  /** A symbolic link (mode 120000): `bytes` is its target path, as Git stores it. */
  symlink: boolean;
  bytes: Buffer;
}

/** The answer of {@link readCommittedFiles}. */
export type CommittedFiles =
  | { status: "ok"; commit: string | undefined; files: CommittedFile[] }
  | {
      status: "unavailable";
      /** `commit_missing`: the commit asked for is not in the repository (or is not a full commit id). */
      reason: "not_a_repository" | "git_missing" | "timeout" | "failed" | "commit_missing";
    };

/** How committed files are read: at HEAD, or at one earlier commit by its full id. */
export interface CommittedReadOptions extends GitOptions {
  /** A full commit id (40 or 64 hex digits) to read instead of HEAD. */
  commit?: string;
}

const FULL_COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function unavailableFiles(result: RunResult): CommittedFiles {
  const check = unavailable(result);
  return check.status === "unavailable" ? check : { status: "unavailable", reason: "failed" };
}

/** `git ls-tree -r -z` records: `<mode> <type> <oid>\t<path>`; only blobs (files and links) are kept. */
function parseTree(output: string): Array<{ path: string; symlink: boolean; oid: string }> {
  const entries: Array<{ path: string; symlink: boolean; oid: string }> = [];
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, oid] = record.slice(0, tab).split(" ");
    if (tab < 0 || mode === undefined || oid === undefined) throw new Error("unexpected git ls-tree output");
    if (type !== "blob") continue;
    entries.push({ path: record.slice(tab + 1), symlink: mode === "120000", oid });
  }
  return entries;
}

/** `git cat-file --batch` output: per object `<oid> blob <size>\n<bytes>\n`, in the order asked. */
function parseBatch(output: Buffer, count: number): Buffer[] {
  const blobs: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = output.indexOf(0x0a, at);
    if (end < 0) throw new Error("unexpected git cat-file output");
    const header = output.subarray(at, end).toString("utf8").split(" ");
    const size = Number(header[2]);
    if (header[1] !== "blob" || !Number.isSafeInteger(size))
      throw new Error("unexpected git cat-file output");
    blobs.push(output.subarray(end + 1, end + 1 + size));
    at = end + 1 + size + 1;
  }
  return blobs;
}

/**
 * The files under `paths` (project-relative folders such as `.kxm/memory`) as the commit HEAD names (or
 * `options.commit`) holds them, never the work tree nor the index: `git ls-tree` lists them, one `git cat-file --batch` reads them. Paths are
 * relative to `root` and sorted by code unit. A repository with no commit yet holds no file (`commit`
 * undefined). git runs as in {@link checkTrackedClean}, within `timeoutMs` for the whole read.
 */
export async function readCommittedFiles(
  root: string,
  paths: readonly string[],
  options: CommittedReadOptions = {},
): Promise<CommittedFiles> {
  const pathspecs = paths.map(checkPathspec);
  const binary = options.gitBinary ?? "git";
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const asked = options.commit;
  // Only a full id reaches git: never an option, a range or a name another ref could take.
  if (asked !== undefined && !FULL_COMMIT_ID.test(asked))
    return { status: "unavailable", reason: "commit_missing" };
  const head = await runGit(
    binary,
    root,
    ["rev-parse", "--verify", "--quiet", `${asked ?? "HEAD"}^{commit}`],
    deadline,
  );
  if (head.kind !== "exit") return unavailableFiles(head);
  if (head.code !== 0) {
    if (head.code === 1 && head.stderr === "") {
      // An unborn HEAD, a commit not in the repository, or no repository at all: rev-parse tells them apart.
      const top = await runGit(binary, root, ["rev-parse", "--show-prefix"], deadline);
      if (top.kind !== "exit" || top.code !== 0) return unavailableFiles(top);
      if (asked !== undefined) return { status: "unavailable", reason: "commit_missing" };
      return { status: "ok", commit: undefined, files: [] };
    }
    return unavailableFiles(head);
  }
  const commit = head.stdout.toString("utf8").trim();
  const tree = await runGit(binary, root, ["ls-tree", "-r", "-z", commit, "--", ...pathspecs], deadline);
  if (tree.kind !== "exit" || tree.code !== 0) return unavailableFiles(tree);
  let entries: Array<{ path: string; symlink: boolean; oid: string }>;
  try {
    entries = parseTree(tree.stdout.toString("utf8"));
  } catch {
    return { status: "unavailable", reason: "failed" };
  }
  if (entries.length === 0) return { status: "ok", commit, files: [] };
  const input = Buffer.from(`${entries.map((entry) => entry.oid).join("\n")}\n`, "utf8");
  const batch = await runGit(binary, root, ["cat-file", "--batch"], deadline, input);
  if (batch.kind !== "exit" || batch.code !== 0) return unavailableFiles(batch);
  let blobs: Buffer[];
  try {
    blobs = parseBatch(batch.stdout, entries.length);
  } catch {
    return { status: "unavailable", reason: "failed" };
  }
  const files = entries
    .map((entry, i) => ({ path: entry.path, symlink: entry.symlink, bytes: blobs[i] ?? Buffer.alloc(0) }))
    .sort((a, b) => compareCodeUnits(a.path, b.path));
  return { status: "ok", commit, files };
}

/**
 * The files whose change moves HEAD, a branch or the index of the repository holding `root`: the work tree's git
 * folder and the common one (they differ in a linked worktree), as absolute paths; undefined when `root` is in no
 * repository or git cannot say.
 */
export async function gitDirectories(
  root: string,
  options: GitOptions = {},
): Promise<{ gitDir: string; commonDir: string } | undefined> {
  const result = await runGit(
    options.gitBinary ?? "git",
    root,
    ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"],
    Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  );
  if (result.kind !== "exit" || result.code !== 0) return undefined;
  const [gitDir, commonDir] = result.stdout.toString("utf8").split("\n");
  if (!gitDir || !commonDir) return undefined;
  return { gitDir, commonDir };
}
