import { describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  gitRepo,
  json,
  kxm,
  put,
  read,
  TEST_RUNNER_MD,
} from "./support/cli.js";

// Reviewing memory candidates through the built CLI: list, accept into .kxm/memory/, reject with a reason. A
// rejected candidate stays as evidence and never moves the memory revision.

const ACTOR = { KXM_ACTOR: "lead@example.com" };

async function noted(root: string, summary: string, extra: string[] = []): Promise<string> {
  const result = await kxm(["memory", "note", summary, "--json", ...extra], { cwd: root });
  expect(result.code, result.stderr).toBe(0);
  return json<{ id: string }>(result).id;
}

describe("kxm memory candidates, accept and reject", () => {
  test.concurrent("list, accept and reject, with the revision moving only on accept", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const keep = await noted(root, "Use pnpm, not npm, in this repository", ["--kind", "convention"]);
    const drop = await noted(root, "Run run_1 failed once", [
      "--kind",
      "run-summary",
      "--source",
      "run:run_1",
    ]);

    const listed = await kxm(["memory", "candidates", "--json"], { cwd: root });
    expect(listed.code, listed.stderr).toBe(0);
    const body = json<{ count: number; candidates: Array<{ id: string }>; problems: unknown[] }>(listed);
    expect(body.count).toBe(2);
    expect(body.candidates.map((candidate) => candidate.id)).toEqual([keep, drop].sort());
    expect(body.candidates).toContainEqual({
      id: drop,
      scope: "project",
      kind: "run-summary",
      summary: "Run run_1 failed once",
      source: "run:run_1",
      file: `.kxm/memory/candidates/${drop}.md`,
    });
    const text = await kxm(["memory", "candidates"], { cwd: root });
    expect(text.stdout).toContain(
      `${drop}  [project] [run-summary]  source: run:run_1\n  Run run_1 failed once\n`,
    );

    const revision = async () =>
      json<{ revision: string }>(await kxm(["memory", "revision", "--json"], { cwd: root })).revision;
    const before = await revision();
    const rejected = await kxm(["memory", "reject", drop, "--reason", "One run is not a fact"], {
      cwd: root,
      env: ACTOR,
    });
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(
      `Rejected ${drop} (by lead@example.com); kept as .kxm/memory/candidates/rejected/${drop}.md\n`,
    );
    expect(await read(root, `.kxm/memory/candidates/rejected/${drop}.md`)).toContain(
      "reason: One run is not a fact\n",
    );
    expect(await revision()).toBe(before);

    const accepted = await kxm(
      ["memory", "accept", keep, "--id", "use-pnpm", "--authority", "instruction", "--json"],
      { cwd: root, env: ACTOR },
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(json(accepted)).toMatchObject({
      candidate: keep,
      id: "use-pnpm",
      file: ".kxm/memory/use-pnpm.md",
      authority: "instruction",
      confidence: "probable",
      acceptedBy: "lead@example.com",
    });
    const validate = await kxm(["memory", "validate", "--json"], { cwd: root });
    expect(json(validate)).toMatchObject({
      ok: true,
      files: [".kxm/memory/test-runner.md", ".kxm/memory/use-pnpm.md"],
    });
    expect(await revision()).not.toBe(before);
    const brief = await kxm(["memory", "brief"], { cwd: root });
    expect(brief.stdout).toContain("Use pnpm, not npm, in this repository (use-pnpm)");
    expect(json(await kxm(["memory", "candidates", "--json"], { cwd: root }))).toMatchObject({ count: 0 });
  });

  test.concurrent("refusals are one line with a stable code", { timeout: 60_000 }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const id = await noted(root, "Deploys freeze on Fridays");
    expectFailureLine(
      await kxm(["memory", "accept", id, "--id", "test-runner", "--authority", "evidence"], {
        cwd: root,
        env: ACTOR,
      }),
      "memory accept",
      "id: test-runner is already held by .kxm/memory/test-runner.md",
    );
    expectJsonFailure(
      await kxm(["memory", "reject", "cand_project_000000000000", "--reason", "x", "--json"], {
        cwd: root,
        env: ACTOR,
      }),
      "memory_candidate_not_found",
      "no candidate cand_project_000000000000 waits for review",
    );
    expectJsonFailure(
      await kxm(["memory", "accept", id, "--id", "Bad Id", "--authority", "evidence", "--json"], {
        cwd: root,
        env: ACTOR,
      }),
      "memory_invalid",
      /^\.kxm\/memory\/Bad Id\.md: id: must match/,
    );
    const usage = await kxm(["memory", "accept", id, "--id", "x", "--authority", "boss"], { cwd: root });
    expect(usage.code).toBe(2);
    expect(json(await kxm(["memory", "candidates", "--json"], { cwd: root }))).toMatchObject({ count: 1 });
  });
});
