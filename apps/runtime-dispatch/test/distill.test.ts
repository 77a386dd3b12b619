import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { listSkills, promoteSkill } from "@kxm/memory-git";
import { git } from "@kxm/test-support";
import { describe, expect, it } from "vitest";
import { type LearnContext, learnFromRun } from "../src/learning/after-run.js";
import { distillLearner, distillRun } from "../src/learning/distill.js";
import { retrospectiveLearner } from "../src/learning/retrospective.js";
import { parseLearningSettings } from "../src/learning/settings.js";
import { learningRun, triedPrefix } from "./support/learning.js";
import { NOW } from "./support/repo.js";

// The distiller is test/fixtures/distill-agent.mjs, a real process started through the real adapter, told what to
// write: good and bad candidates, too many, a file outside the allowlist, a commit, or a crash.

const read = (root: string, rel: string) => readFile(join(root, rel), "utf8");
const SCRATCH = ".kxm/skills/candidates/distilled";

async function learn(context: LearnContext) {
  const results = await learnFromRun(context, [distillLearner, retrospectiveLearner]);
  context.log.close();
  return results;
}

async function events(root: string): Promise<Array<Record<string, unknown>>> {
  return (await read(root, ".kxm/runs/run_test/events.jsonl"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("distillation", () => {
  it("invokes the agent once with the fixed prompt and proposes its candidate for someone else to promote", async () => {
    const { root, out, context } = await learningRun({
      planner: ["--evidence", "plan=docs/plan.md", "--say", "Planned: rerun the flaky test three times."],
      distiller: ["--skill", "retry-flaky-tests"],
    });
    const outcomeBefore = await read(root, ".kxm/runs/run_test/outcome.json");
    expect(await learn(context)).toEqual([
      { name: "distill", status: "done" },
      { name: "retrospective", status: "done" },
    ]);

    // The prompt the agent read is the one saved; it carries the outcomes and the transcripts.
    const prompt = await read(root, ".kxm/runs/run_test/distill/prompt.md");
    expect(await readFile(join(out, "distill.prompt.md"), "utf8")).toBe(prompt);
    expect(prompt).toContain(
      `## Outcomes\n\n- plan#1: ${await triedPrefix(root, "plan")}-> verified\n` +
        `- implement#1: ${await triedPrefix(root, "implement")}-> verified\n`,
    );
    expect(prompt).toContain("### plan#1\n\n````text\nreceived ");
    expect(prompt).toContain("Planned: rerun the flaky test three times.");
    expect(prompt).toContain(`Only files named \`${SCRATCH}/<name>/SKILL.md\``);
    // The agent's environment: the run's coordinates, never the operator's credentials.
    const env = JSON.parse(await readFile(join(out, "distill.env.json"), "utf8"));
    expect(env).toMatchObject({ KXM_RUN_ID: "run_test", KXM_DISTILL_DIR: SCRATCH });
    expect(env.KXM_AUTH_TOKEN).toBeUndefined();
    // The transcript is recorded.
    expect(await read(root, ".kxm/runs/run_test/distill/distill.log")).toContain("wrote retry-flaky-tests");

    const skills = await listSkills(root);
    expect(skills.map((skill) => [skill.name, skill.status, skill.proposedBy])).toEqual([
      ["retry-flaky-tests", "proposed", "distill:distiller"],
    ]);
    const id = skills[0]!.id;
    expect(existsSync(join(root, SCRATCH))).toBe(false);
    const record = JSON.parse(await read(root, ".kxm/runs/run_test/distill/distill.json"));
    expect(record).toMatchObject({
      status: "done",
      reason: null,
      agent: "distiller",
      proposed: [{ id, name: "retry-flaky-tests" }],
      dropped: [],
      outside: [],
    });
    // The proposer may not promote it; a person may.
    await expect(
      promoteSkill(root, id, { promotedBy: "distill:distiller", evidenceRefs: ["pr:1"], now: NOW }),
    ).rejects.toMatchObject({ code: "skill_promotion_invalid" });
    await promoteSkill(root, id, { promotedBy: "lead@example.com", evidenceRefs: ["pr:1"], now: NOW });

    const retrospective = await read(root, ".kxm/runs/run_test/retrospective.md");
    expect(retrospective).toContain(
      "## Distillation\n\nDone by agent `distiller`: 1 skill candidate(s) proposed, 0 dropped.\n\n" +
        `- Proposed \`${id}\`\n- Transcript: \`.kxm/runs/run_test/distill/distill.log\`\n`,
    );
    expect(retrospective).toContain(`- Skill candidate \`${id}\` waits for review`);
    // The run's own outcome is untouched.
    expect(await read(root, ".kxm/runs/run_test/outcome.json")).toBe(outcomeBefore);
  });

  it("drops bad front matter and keeps at most three candidates, in name order, with a warning", async () => {
    const { root, context } = await learningRun({
      distiller: [
        "--skill",
        "e-skill",
        "--bad",
        "a-bad",
        "--skill",
        "d-skill",
        "--skill",
        "b-skill",
        "--skill",
        "c-skill",
      ],
    });
    expect((await learn(context)).map((result) => result.status)).toEqual(["done", "done"]);
    expect((await listSkills(root)).map((skill) => skill.name)).toEqual(["b-skill", "c-skill", "d-skill"]);
    const record = JSON.parse(await read(root, ".kxm/runs/run_test/distill/distill.json"));
    expect(record.dropped).toEqual([
      { name: "a-bad", reason: expect.stringMatching(/^skill_invalid: SKILL\.md front matter: missing/) },
      { name: "e-skill", reason: "over the limit of 3 candidates a run (kept the first by name)" },
    ]);
    // The last distill_finished: the run's own pass (off in this project's learning.yaml) logged one first.
    const warning = (await events(root)).findLast((event) => event.event === "distill_finished");
    expect(warning).toMatchObject({ level: 40, status: "done", dropped: ["a-bad", "e-skill"] });
    // What the agent wrote stays with the run as evidence; the scratch folder is gone.
    expect(await read(root, ".kxm/runs/run_test/distill/scratch/a-bad/SKILL.md")).toContain(
      "No front matter.",
    );
    expect(existsSync(join(root, SCRATCH))).toBe(false);
    expect(await read(root, ".kxm/runs/run_test/retrospective.md")).toContain(
      "- Distillation dropped `e-skill`: over the limit of 3 candidates a run (kept the first by name).\n",
    );
  });

  it("keeps no candidate when the agent writes outside its allowlist, and says where", async () => {
    const { root, context } = await learningRun({
      distiller: [
        "--skill",
        "good-skill",
        "--write",
        "src/hack.txt=x",
        "--write",
        "README.md=changed\n",
        // An ignored folder is watched too.
        "--write",
        ".kxm/runs/episodes.jsonl=forged\n",
      ],
    });
    const outcomeBefore = await read(root, ".kxm/runs/run_test/outcome.json");
    expect(await learn(context)).toEqual([
      { name: "distill", status: "failed", code: "distill_failed" },
      { name: "retrospective", status: "done" },
    ]);
    expect(await listSkills(root)).toEqual([]);
    const record = JSON.parse(await read(root, ".kxm/runs/run_test/distill/distill.json"));
    expect(record).toMatchObject({
      status: "refused",
      proposed: [],
      outside: [".kxm/runs/episodes.jsonl", "README.md", "src/hack.txt"],
    });
    expect((await events(root)).filter((event) => event.event === "learning_failed")).toEqual([
      expect.objectContaining({ learner: "distill", code: "distill_failed" }),
    ]);
    expect(await read(root, ".kxm/runs/run_test/retrospective.md")).toContain(
      "- Distillation wrote outside its allowlist, so no skill candidate was kept; review and undo: " +
        "`.kxm/runs/episodes.jsonl`, `README.md`, `src/hack.txt`.\n",
    );
    expect(await read(root, ".kxm/runs/run_test/outcome.json")).toBe(outcomeBefore);
  });

  it("counts a commit as a write outside the allowlist", async () => {
    const { root, context } = await learningRun({ distiller: ["--skill", "good-skill", "--commit"] });
    const head = git(root, "rev-parse", "HEAD");
    await expect(distillRun(context)).rejects.toMatchObject({ code: "distill_failed" });
    context.log.close();
    const record = JSON.parse(await read(root, ".kxm/runs/run_test/distill/distill.json"));
    expect(record.status).toBe("refused");
    expect(record.outside).toContain(`(HEAD moved: ${head} -> ${git(root, "rev-parse", "HEAD")})`);
    expect(await listSkills(root)).toEqual([]);
  });

  it("logs a crashed agent as a failure and keeps nothing, leaving the run's status alone", async () => {
    const { root, context } = await learningRun({ distiller: ["--skill", "half-done", "--exit", "3"] });
    const outcomeBefore = await read(root, ".kxm/runs/run_test/outcome.json");
    expect((await learn(context))[0]).toEqual({ name: "distill", status: "failed", code: "distill_failed" });
    expect(await listSkills(root)).toEqual([]);
    const record = JSON.parse(await read(root, ".kxm/runs/run_test/distill/distill.json"));
    expect(record).toMatchObject({ status: "failed", reason: "the agent ended with exit code 3" });
    expect(await read(root, ".kxm/runs/run_test/distill/errors.txt")).toBe("distill agent done\n");
    expect(await read(root, ".kxm/runs/run_test/retrospective.md")).toContain(
      "- Distillation failed: the agent ended with exit code 3; see `.kxm/runs/run_test/distill/distill.log`.\n",
    );
    expect(await read(root, ".kxm/runs/run_test/outcome.json")).toBe(outcomeBefore);
    expect(existsSync(join(root, SCRATCH))).toBe(false);
  });

  it("is skipped, and says so, when off or when the agent has no adapter", async () => {
    const off = await learningRun({
      distiller: ["--skill", "never"],
      settings: "distill: {enabled: false, agent: distiller}\n",
    });
    expect(await learn(off.context)).toEqual([
      { name: "distill", status: "done" },
      { name: "retrospective", status: "done" },
    ]);
    expect(existsSync(join(off.out, "distill.prompt.md"))).toBe(false);
    expect(await read(off.root, ".kxm/runs/run_test/retrospective.md")).toContain(
      "## Distillation\n\nSkipped: distillation is off (distill.enabled in .kxm/learning.yaml).\n",
    );

    const none = await learningRun({ settings: "distill: {agent: nobody}\n" });
    await learn(none.context);
    expect(await read(none.root, ".kxm/runs/run_test/retrospective.md")).toContain(
      "Skipped: no adapter for agent nobody in .kxm/agents.yaml.\n",
    );
    expect(parseLearningSettings("").distill).toEqual({ enabled: true, agent: "default" });
  });
});
