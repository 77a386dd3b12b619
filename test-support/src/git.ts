// Real git repositories for tests: a fixed identity, `main` as the first branch, and no user or system config.
import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFiles } from "./files.js";

const IDENTITY = { name: "KXM Test", email: "test@kxm.invalid" };

/**
 * Runs git in `cwd` and returns its output without the trailing newline. The user's and the system's git
 * configuration are not read, the author and committer are fixed, and `git init` names its branch `main`.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: IDENTITY.name,
      GIT_AUTHOR_EMAIL: IDENTITY.email,
      GIT_COMMITTER_NAME: IDENTITY.name,
      GIT_COMMITTER_EMAIL: IDENTITY.email,
    },
  }).trimEnd();
}

/** Stages everything in `root` and commits it (an empty commit too); returns the new HEAD. */
export function commitAll(root: string, message = "change"): string {
  git(root, "add", "-A");
  git(root, "commit", "-q", "--allow-empty", "-m", message);
  return git(root, "rev-parse", "HEAD");
}

/** A new repository at `parent/name` holding `files`, all committed in one commit, `init`; returns its path. */
export async function gitCheckout(
  parent: string,
  name: string,
  files: Record<string, string | Uint8Array>,
): Promise<string> {
  const root = join(parent, name);
  await mkdir(root, { recursive: true });
  await writeFiles(root, files);
  git(root, "init", "-q");
  commitAll(root, "init");
  return root;
}
