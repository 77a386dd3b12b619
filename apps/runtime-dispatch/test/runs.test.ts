import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { LIMITS, StepManifestSchema } from "@kxm/contract";
import { computeMemoryRevision } from "@kxm/memory-git";
import { describe, expect, it } from "vitest";
import { createRun, loadRun, prepareStep } from "../src/index.js";
import { manifestPath, stepManifest } from "../src/runs/manifest.js";
import { commitAll, gitRepo, NOW, promotedSkill, putFact, startRun, workflow } from "./support/repo.js";

describe("runs", () => {
  it("pins the memory revision and writes run.json", async () => {
    const root = await gitRepo();
    await putFact(root, "use-pnpm");
    commitAll(root, "memory");
    const run = await startRun(root);
    expect(run.memoryRevision).toBe(await computeMemoryRevision(root));
    const text = await readFile(join(root, ".kxm/runs/run_test/run.json"), "utf8");
    expect(JSON.parse(text)).toEqual(run);
    expect(text.endsWith("}\n")).toBe(true);
    expect(await loadRun(root, "run_test")).toEqual(run);
  });

  it("refuses an existing run id and a bad one; loadRun answers not_found", async () => {
    const root = await gitRepo();
    await startRun(root);
    await expect(startRun(root)).rejects.toMatchObject({ code: "invalid_request" });
    await expect(
      createRun(root, { workflow: workflow(), prompt: "p", now: NOW, runId: "../escape" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(loadRun(root, "run_missing")).rejects.toMatchObject({ code: "not_found" });
  });

  it("generates a run id when none is given", async () => {
    const root = await gitRepo();
    const run = await createRun(root, { workflow: workflow(), prompt: "p", now: NOW });
    expect(run.runId).toMatch(/^run_[0-9a-f]{12}$/);
  });
});

describe("manifests and determinism", () => {
  async function project(): Promise<string> {
    const root = await gitRepo();
    await putFact(root, "use-pnpm");
    await putFact(root, "house-style", { scope: "operator", summary: "Write British English in docs" });
    await promotedSkill(root, "release-notes", "Draft release notes from merged pull requests");
    commitAll(root, "memory");
    return root;
  }

  it("writes a manifest of every delivered item, gap, the revision and the token estimate", async () => {
    const root = await project();
    const run = await startRun(root);
    const prepared = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    expect(prepared.manifestPath).toBe(manifestPath(root, "run_test", "implement", 1));
    expect(
      prepared.manifestPath.endsWith(join(".kxm", "runs", "run_test", "implement.1.manifest.json")),
    ).toBe(true);
    const manifest = JSON.parse(await readFile(prepared.manifestPath, "utf8"));
    expect(manifest).toEqual(prepared.manifest);
    expect(manifest.memoryRevision).toBe(run.memoryRevision);
    expect(manifest.role).toBe("implementer");
    expect(manifest.gaps).toEqual([]);
    expect(manifest.promptTokens).toBe(Math.ceil(prepared.rendered.prompt.length / 4));
    expect(manifest.items.map((item: { id: string; section: string }) => [item.id, item.section])).toEqual([
      ["mem_house-style", "Shared Defaults"],
      ["mem_use-pnpm", "Project Knowledge"],
      [expect.stringMatching(/^skill_release-notes\./), "Active Skills"],
    ]);
    for (const item of manifest.items) {
      const lines = prepared.rendered.prompt.split("\n");
      expect(lines.some((line) => line.startsWith("- ") && line.length === item.characters)).toBe(true);
      expect(typeof item.score).toBe("number");
    }
  });

  it("reports a manifest to the hub as ids and counts, at most the contract's items and gaps", async () => {
    const root = await project();
    const run = await startRun(root);
    const { manifest } = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    const reported = stepManifest(manifest);
    expect(reported).toEqual({
      attempt: 1,
      agent: "implementer",
      role: "implementer",
      memoryRevision: run.memoryRevision,
      items: manifest.items,
      gaps: [],
      packetTokens: manifest.packetTokens,
      promptTokens: manifest.promptTokens,
    });
    expect(StepManifestSchema.parse(reported)).toEqual(reported);

    const item = manifest.items[0]!;
    const many = {
      ...manifest,
      items: Array.from({ length: LIMITS.maxPacketItems + 3 }, (_, index) => ({
        ...item,
        id: `mem_${index}`,
      })),
      gaps: [
        "g".repeat(LIMITS.refChars + 1),
        ...Array.from({ length: LIMITS.maxManifestGaps + 1 }, (_, index) => `gap_${index}`),
      ],
    };
    const capped = stepManifest(many);
    expect(capped.items.map((entry) => entry.id)).toEqual(
      many.items.slice(0, LIMITS.maxPacketItems).map((entry) => entry.id),
    );
    expect(capped.omittedItems).toBe(3);
    expect(capped.gaps).toEqual(many.gaps.slice(1, LIMITS.maxManifestGaps + 1));
    expect(capped.omittedGaps).toBe(2);
    expect(StepManifestSchema.safeParse(capped).success).toBe(true);
  });

  it("records withheld context as a gap in the manifest, never in the prompt", async () => {
    const root = await project();
    const run = await startRun(root);
    await putFact(root, "use-pnpm", { summary: "Changed but not committed" });
    const prepared = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    expect(prepared.manifest.gaps).toEqual(["dispatch_context_withheld:uncommitted"]);
    expect(prepared.manifest.items).toEqual([]);
    expect(prepared.rendered.prompt).not.toContain("dispatch_context");
  });

  it("gives byte-identical prompts and manifests for the same inputs", async () => {
    const first = await project();
    const second = await project();
    const outputs: string[][] = [];
    for (const root of [first, first, second]) {
      const run = (await loadRun(root, "run_test").catch(() => undefined)) ?? (await startRun(root));
      const prepared = await prepareStep({ root, run, stepId: "implement", attempt: 3 });
      outputs.push([prepared.rendered.prompt, await readFile(prepared.manifestPath, "utf8")]);
    }
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[2]).toEqual(outputs[0]);
  });

  it("refuses an unknown step and a bad attempt", async () => {
    const root = await gitRepo();
    const run = await startRun(root);
    await expect(prepareStep({ root, run, stepId: "nope", attempt: 1 })).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(prepareStep({ root, run, stepId: "plan", attempt: 0 })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});
