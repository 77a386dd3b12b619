import { isKxmError } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import { loadWorkflow } from "../src/index.js";
import { put, tempDir } from "./support/repo.js";

const VALID = `name: fix-bug
steps:
  - id: plan
    agent: planner
    instructions: Write a plan.
    requiredEvidence: [plan]
    allowedOutcomes: [done, blocked]
    permission: read-only
  - id: implement
    agent: implementer
    instructions: |
      Implement the plan.
    requiredEvidence: [diff, test-log]
    allowedOutcomes: [done]
    permission: workspace-write
`;

async function failure(source: string, name = "fix-bug"): Promise<{ code: string; message: string }> {
  const root = await tempDir();
  await put(root, `.kxm/workflows/${name}.yaml`, source);
  try {
    await loadWorkflow(root, name);
  } catch (error) {
    if (!isKxmError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error("expected a refusal");
}

describe("loadWorkflow", () => {
  it("loads a valid workflow", async () => {
    const root = await tempDir();
    await put(root, ".kxm/workflows/fix-bug.yaml", VALID);
    const workflow = await loadWorkflow(root, "fix-bug");
    expect(workflow.name).toBe("fix-bug");
    expect(workflow.steps.map((step) => step.id)).toEqual(["plan", "implement"]);
    expect(workflow.steps[1]!.instructions).toBe("Implement the plan.");
  });

  it("answers not_found for a missing workflow", async () => {
    const root = await tempDir();
    await expect(loadWorkflow(root, "nope")).rejects.toMatchObject({
      code: "not_found",
      message: "no workflow nope: .kxm/workflows/nope.yaml does not exist",
    });
  });

  it("refuses a name that is not a file name", async () => {
    const root = await tempDir();
    await expect(loadWorkflow(root, "../x")).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("names the file, line and rule of a duplicate step id", async () => {
    const source = VALID.replace("id: implement", "id: plan");
    expect(await failure(source)).toEqual({
      code: "invalid_request",
      message: '.kxm/workflows/fix-bug.yaml:9: steps[1].id: "plan" is used by another step',
    });
  });

  it("names an unknown key on its own line", async () => {
    const source = VALID.replace(
      "    permission: read-only\n",
      "    permission: read-only\n    tools: [bash]\n",
    );
    expect(await failure(source)).toEqual({
      code: "invalid_request",
      message: '.kxm/workflows/fix-bug.yaml:9: steps[0]: unknown key "tools" (allowed keys are fixed)',
    });
  });

  it("names a missing key at its step and a wrong type at its value", async () => {
    expect((await failure(VALID.replace("    permission: read-only\n", ""))).message).toBe(
      ".kxm/workflows/fix-bug.yaml:3: steps[0].permission: must be string",
    );
    expect((await failure(VALID.replace("allowedOutcomes: [done]", "allowedOutcomes: done"))).message).toBe(
      ".kxm/workflows/fix-bug.yaml:14: steps[1].allowedOutcomes: must be array",
    );
    expect((await failure(VALID.replace("allowedOutcomes: [done]", "allowedOutcomes: []"))).message).toBe(
      ".kxm/workflows/fix-bug.yaml:14: steps[1].allowedOutcomes: must list at least one outcome",
    );
  });

  it("names a YAML syntax error's line", async () => {
    const failed = await failure("steps:\n  - id: plan\n   agent: [x\n");
    expect(failed.code).toBe("invalid_request");
    expect(failed.message).toMatch(/^\.kxm\/workflows\/fix-bug\.yaml:\d+: is not valid YAML: /);
  });

  it("refuses a name that differs from the file's", async () => {
    expect((await failure(VALID.replace("name: fix-bug", "name: other"))).message).toBe(
      '.kxm/workflows/fix-bug.yaml:1: name: must be "fix-bug", the file\'s name',
    );
  });

  it("refuses an empty step list and a non-mapping document", async () => {
    expect((await failure("steps: []\n")).message).toBe(
      ".kxm/workflows/fix-bug.yaml:1: steps: must hold at least one step",
    );
    expect((await failure("- a\n")).message).toBe(
      ".kxm/workflows/fix-bug.yaml:1: (document): must be object",
    );
  });
});
