// The git-memory guide's walkthrough, run for real: a fresh Git repository in a temporary folder, the built `kxm`
// CLI, and every command the guide shows, printed with its output and exit code.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../apps/cli/bin/run.js", import.meta.url));
const repo = mkdtempSync(join(tmpdir(), "kxm-walkthrough-"));
const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

function kxm(args, actor) {
  const env = { ...process.env, KXM_ACTOR: actor ?? "", KXM_DEBUG: "" };
  const run = spawnSync(process.execPath, [cli, ...args], { cwd: repo, env, encoding: "utf8" });
  const shown = args.map((arg) => (/[\s"]/.test(arg) ? `"${arg}"` : arg)).join(" ");
  console.log(`$ ${actor ? `KXM_ACTOR=${actor} ` : ""}kxm ${shown}`.replace(repo, "."));
  const output = `${run.stdout}${run.stderr}`.trimEnd();
  if (output) console.log(output.replaceAll(repo, "."));
  if (run.status !== 0) console.log(`(exit ${run.status})`);
  console.log();
}

function revision() {
  return JSON.parse(execFileSync(process.execPath, [cli, "memory", "revision", "--json"], { cwd: repo }))
    .revision;
}

try {
  git("init", "-q");
  writeFileSync(join(repo, "AGENTS.md"), "# Agent instructions\n\nBuild with `pnpm build`.\n");

  // 1. An agent or a person notes a candidate; it is never loaded from there.
  kxm(["memory", "note", "Use pnpm, not npm, in this repository", "--kind", "convention"]);

  // 2. A reviewed pull request adds a fact with a stable id.
  mkdirSync(join(repo, ".kxm", "memory"), { recursive: true });
  writeFileSync(
    join(repo, ".kxm", "memory", "test-runner.md"),
    [
      "---",
      "schema: kxm.memory.v1",
      "id: test-runner",
      "scope: project",
      "kind: convention",
      "summary: Run the test suite with npm test before every commit",
      "provenance:",
      "  sourceType: git",
      "  sourceRef: docs/testing.md",
      "authority: instruction",
      "confidence: verified",
      "lifecycle: active",
      "evidenceRefs: []",
      "---",
      "",
    ].join("\n"),
  );
  kxm(["memory", "validate"]);
  kxm(["memory", "brief"]);
  kxm(["memory", "sync", "--dry-run"]);
  kxm(["memory", "sync"]);
  kxm(["memory", "sync"]);
  kxm(["memory", "revision"]);
  const before = revision();

  // 3. Skills: an agent proposes, someone else promotes with evidence, anyone verifies.
  const skill = join(repo, "skills", "release-checklist");
  mkdirSync(skill, { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    "---\nname: release-checklist\ndescription: Cut a release from main, tag it and publish the changelog.\n---\n" +
      "# Release checklist\n\n1. Check that CI is green on main.\n2. Tag the release and push the tag.\n",
  );
  kxm(["skills", "propose", "skills/release-checklist"], "agent-planner");
  kxm(["skills", "list"]);
  kxm(["skills", "promote", "release-checklist.1a4870356b11", "--evidence", "review:pr-31"], "agent-planner");
  kxm(
    ["skills", "promote", "release-checklist.1a4870356b11", "--evidence", "review:pr-31"],
    "lead@example.com",
  );
  kxm(["skills", "verify"]);
  // The promoted skill is part of the revision (its metadata records when it was promoted, so the value differs
  // from run to run; that it changed does not).
  console.log(
    `The memory revision ${revision() === before ? "did not change" : "changed"} with the promotion.\n`,
  );

  // 4. Refusals write nothing.
  writeFileSync(join(repo, "CLAUDE.md"), "Notes\n<!-- kxm:memory:start -->\n");
  kxm(["memory", "sync"]);
} finally {
  rmSync(repo, { recursive: true, force: true });
}
