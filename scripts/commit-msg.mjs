#!/usr/bin/env node
// @ts-check
// The commit-msg hook (installed by `pnpm hooks`, see docs/contributing.md): refuses a commit whose subject is longer
// than 72 characters or does not start with one of KXM's areas, as `area: imperative summary`. The check itself is
// the pure function `checkCommitMessage`, tested by scripts/commit-msg.test.ts; run as a script, this file checks the
// message file git passes to the hook (`node scripts/commit-msg.mjs .git/COMMIT_EDITMSG`).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** The longest subject allowed, in characters (code points). */
export const MAX_SUBJECT = 72;

/**
 * The one vocabulary of areas, each with what it covers; docs/contributing.md shows the same table.
 * @type {Readonly<Record<string, string>>}
 */
export const AREAS = Object.freeze({
  contract: "packages/contract: schemas, types, limits, role policies, error catalogue, routes and client",
  provenance: "packages/provenance: origin ceilings, control-plane refusal, redaction, derivation, lineage",
  arbiter: "packages/arbiter: ranking, budget, gaps, audit, recall, PoolIndex",
  wiki: "packages/wiki: the knowledge wiki's compiler and linter",
  "memory-git": "packages/memory-git: memory facts, candidates, brief, sync blocks, revision, skills",
  "state-store": "packages/state-store: Drizzle schema, migrations, SQLite repositories, backups",
  mcp: "packages/mcp: the agents' MCP tools",
  hub: "apps/hub: the Fastify hub, its routes and its serving",
  cli: "apps/cli: the kxm command line",
  runtime: "apps/runtime-dispatch: workflows, runs, dispatch prompts and manifests",
  bench: "bench/: the benchmarks and their report",
  reliability: "reliability/: the reliability suite and its figures",
  plugin: "plugins/ and .claude-plugin/: the Claude Code plugin and harness configurations",
  docs: "README, docs/ and package READMEs, and the examples the docs run",
  test: "tests or test helpers alone, when no other area's behaviour changes",
  layers: "the dependency rules (.dependency-cruiser.cjs) and the layer check",
  build: "package manifests, dependencies, tsconfig, turbo, biome, hooks and scripts/",
  ci: ".ci/run and what CI runs",
  release: "changesets, versions and changelogs (the version-packages commit)",
  merge: "a merge commit that brings a branch in",
});

/**
 * The subject line of a commit message as git will record it: the first line that is neither blank nor a comment.
 * Everything from git's scissors line (`git commit -v`) on is dropped, as git drops it.
 * @param {string} message
 * @param {string} [commentChar]
 * @returns {{ subject: string | undefined, lines: string[] }} the subject and the kept lines from it on
 */
function subjectAndRest(message, commentChar = "#") {
  const all = message.replace(/\r\n/g, "\n").split("\n");
  const scissors = all.indexOf(`${commentChar} ------------------------ >8 ------------------------`);
  const kept = (scissors === -1 ? all : all.slice(0, scissors))
    .filter((line) => !line.startsWith(commentChar))
    .map((line) => line.trimEnd());
  const first = kept.findIndex((line) => line !== "");
  return first === -1
    ? { subject: undefined, lines: [] }
    : { subject: kept[first], lines: kept.slice(first) };
}

/**
 * What is wrong with a commit message, as one sentence per problem; empty when it may be committed. An empty
 * message passes (git refuses it by itself), and so do the subjects git writes (`Merge ...`, `Revert "..."`) and
 * `fixup!` / `squash!` / `amend!` commits, which an interactive rebase folds away before they are pushed.
 * @param {string} message the commit message file's text
 * @param {{ commentChar?: string }} [options] git's core.commentChar, `#` by default
 * @returns {string[]}
 */
export function checkCommitMessage(message, options = {}) {
  const { subject, lines } = subjectAndRest(message, options.commentChar);
  if (subject === undefined) return [];
  if (/^(fixup|squash|amend)! /.test(subject)) return [];
  if (/^Merge /.test(subject) || /^Revert "/.test(subject)) return [];
  const problems = [];
  const length = [...subject].length;
  if (length > MAX_SUBJECT) {
    problems.push(
      `The subject is ${length} characters long; keep it to ${MAX_SUBJECT} (say the rest in the body).`,
    );
  }
  const match = /^([^:\s]+): \S/.exec(subject);
  if (match === null) {
    problems.push("The subject must read `area: imperative summary`, with one area, a colon and a space.");
  } else if (!Object.hasOwn(AREAS, match[1] ?? "")) {
    problems.push(`"${match[1]}" is not an area; use one of: ${Object.keys(AREAS).join(", ")}.`);
  }
  if (lines.length > 1 && lines[1] !== "") {
    problems.push("Leave a blank line between the subject and the body.");
  }
  return problems;
}

/** git's comment character for this repository, when it is one fixed character (else `#`). */
function gitCommentChar() {
  try {
    const value = execFileSync("git", ["config", "core.commentChar"], { encoding: "utf8" }).trim();
    return value.length === 1 ? value : "#";
  } catch {
    return "#";
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error("usage: node scripts/commit-msg.mjs <commit message file>");
    process.exit(2);
  }
  let message;
  try {
    message = readFileSync(file, "utf8");
  } catch (error) {
    console.error(`commit-msg: cannot read the commit message file ${file} (${error.code ?? "unreadable"})`);
    process.exit(2);
  }
  const problems = checkCommitMessage(message, { commentChar: gitCommentChar() });
  if (problems.length > 0) {
    console.error("commit-msg: the commit was refused (see docs/contributing.md):");
    for (const problem of problems) console.error(`  - ${problem}`);
    console.error(`The message is kept: \`git commit -e -F ${file}\` edits it and commits again.`);
    process.exit(1);
  }
}
