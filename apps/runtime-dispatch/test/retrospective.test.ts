import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { computeMemoryRevision, listMemoryCandidates } from "@kxm/memory-git";
import { describe, expect, it } from "vitest";
import { learnFromRun } from "../src/learning/after-run.js";
import { appendEpisode } from "../src/learning/episodes.js";
import { retrospectiveLearner, writeRetrospective } from "../src/learning/retrospective.js";
import { parseLearningSettings } from "../src/learning/settings.js";
import { learningRun, triedSuffix } from "./support/learning.js";

const read = (root: string, rel: string) => readFile(join(root, rel), "utf8");

describe("the retrospective", () => {
  it("is written from the run's files: status, attempts and counts, each step, and what the owner must see", async () => {
    const { root, context } = await learningRun({ implementer: ["--exit", "1"] });
    const revision = await computeMemoryRevision(root);
    context.settings = parseLearningSettings("distill: {enabled: false}\n");
    const results = await learnFromRun(context, [retrospectiveLearner]);
    context.log.close();
    expect(results).toEqual([{ name: "retrospective", status: "done" }]);

    // The memory candidate summarizing the run: noted, never loaded, outside the revision.
    const { candidates } = await listMemoryCandidates(root);
    expect(candidates).toHaveLength(1);
    const candidate = candidates[0]!;
    expect(candidate).toMatchObject({
      kind: "run-summary",
      scope: "project",
      source: "run:run_test",
      summary:
        "Run run_test of workflow fix-bug failed after 2 attempts (1 verified, 1 failed). " +
        "Failures: implement#1: the agent ended with exit code 1",
    });
    expect(await computeMemoryRevision(root)).toBe(revision);

    expect(await read(root, ".kxm/runs/run_test/retrospective.md")).toBe(
      [
        "# Retrospective: run_test",
        "",
        "- Workflow: fix-bug",
        "- Status: failed",
        "- Reason: step implement: the agent ended with exit code 1",
        "- Created: 2026-09-01T12:00:00.000Z",
        "- Finished: 2026-09-01T12:00:00.000Z",
        "- Attempts: 2 (1 verified, 1 failed)",
        "",
        "## Steps",
        "",
        "### plan",
        "",
        `- Attempt 1: verified, outcome done${await triedSuffix(root, "plan")}`,
        "",
        "### implement",
        "",
        `- Attempt 1: failed: the agent ended with exit code 1${await triedSuffix(root, "implement")}`,
        "",
        "## Distillation",
        "",
        "Skipped: distillation is off (distill.enabled in .kxm/learning.yaml).",
        "",
        "## For the owner",
        "",
        "- Step `implement` failed after 1 attempt: the agent ended with exit code 1 " +
          "(`.kxm/runs/run_test/implement.1.output.txt`).",
        "- Step `implement` is missing required evidence: diff, test-log.",
        `- Memory candidate \`${candidate.id}\` summarizes this run and waits for review: ` +
          `\`kxm memory accept ${candidate.id} --id <fact-id> --authority evidence\` or ` +
          `\`kxm memory reject ${candidate.id} --reason <why>\`.`,
        "",
      ].join("\n"),
    );
  });

  it("gives the same bytes when rebuilt, and notes its candidate once", async () => {
    const { root, context } = await learningRun({ implementer: ["--exit", "2"] });
    context.settings = parseLearningSettings("");
    const first = await writeRetrospective(context);
    const second = await writeRetrospective(context);
    context.log.close();
    expect(second).toBe(first);
    expect((await listMemoryCandidates(root)).candidates).toHaveLength(1);
  });

  it("says nothing needs attention for a verified run, and notes no candidate", async () => {
    const { root, context } = await learningRun({});
    context.settings = parseLearningSettings("");
    const text = await writeRetrospective(context);
    context.log.close();
    expect(text).toContain("- Status: succeeded\n");
    expect(text).toContain("- Attempts: 2 (2 verified, 0 failed)\n");
    expect(text).toContain(
      `### implement\n\n- Attempt 1: verified, outcome done${await triedSuffix(root, "implement")}\n`,
    );
    expect(text).toContain("## For the owner\n\nNothing needs attention.\n");
    expect((await listMemoryCandidates(root)).candidates).toEqual([]);
  });

  it("notes no candidate when retrospective.proposeMemory is off", async () => {
    const { root, context } = await learningRun({ implementer: ["--exit", "1"] });
    context.settings = parseLearningSettings("retrospective: {proposeMemory: false}\n");
    const text = await writeRetrospective(context);
    context.log.close();
    expect(text).not.toContain("Memory candidate");
    expect((await listMemoryCandidates(root)).candidates).toEqual([]);
  });

  it("reports an unverified outcome, the breaker and a blocked step from the outcome file", async () => {
    const { root, context } = await learningRun({ implementer: ["--outcome", "needs-review"] });
    context.settings = parseLearningSettings("retrospective: {proposeMemory: false}\n");
    // The breaker and blocked fields as the runner records them (outcome files of every version read).
    const outcomeFile = join(root, ".kxm/runs/run_test/outcome.json");
    const outcome = JSON.parse(await readFile(outcomeFile, "utf8"));
    await writeFile(
      outcomeFile,
      JSON.stringify({ ...outcome, blockedStep: "implement", breakerCause: "consecutive_failures:3" }),
    );
    const text = await writeRetrospective(context);
    context.log.close();
    expect(text).toContain("- Attempts: 2 (1 verified, 1 unverified, 0 failed)\n");
    expect(text).toContain("- Blocked step: implement\n- Breaker: consecutive_failures:3\n");
    expect(text).toContain(
      "- Attempt 1: completed, outcome needs-review, unverified: the step ended with outcome needs-review; " +
        `missing evidence: diff, test-log${await triedSuffix(root, "implement")}\n`,
    );
    expect(text).toContain("- The breaker stopped the run (`consecutive_failures:3`).\n");
    expect(text).toContain("- Step `implement` ended with outcome needs-review: the run stopped there.\n");
  });

  it("tells what an attempt tried and why it failed from its episode", async () => {
    const { root, context } = await learningRun({ implementer: ["--exit", "1"] });
    context.settings = parseLearningSettings("");
    await appendEpisode(root, {
      schema: "kxm.episode.v1",
      at: "2026-09-01T12:00:00.000Z",
      runId: "run_test",
      workflow: "fix-bug",
      stepId: "implement",
      agent: "implementer",
      attempt: 1,
      tried: "Reran the release test with retries",
      progress: false,
      verified: false,
      failure: "the release test still times out",
      failureKey: "the release test still times out",
      durationMs: 5,
    });
    const text = await writeRetrospective(context);
    context.log.close();
    expect(text).toContain(
      "- Attempt 1: failed: the release test still times out (tried: Reran the release test with retries)\n",
    );
    expect(text).toContain("- Step `implement` failed after 1 attempt: the release test still times out (");
    const [candidate] = (await listMemoryCandidates(root)).candidates;
    expect(candidate?.summary).toContain("Failures: implement#1: the release test still times out");
  });
});
