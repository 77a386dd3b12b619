import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prepareStep, renderStep } from "../src/index.js";
import { selectEpisodes } from "../src/learning/digest.js";
import { appendEpisode, type Episode, episodesPath, normalizeFailure } from "../src/learning/episodes.js";
import { parseLearningSettings } from "../src/learning/settings.js";
import { commitAll, gitRepo, put, putFact, startRun, tempDir } from "./support/repo.js";

// The episodes digest of the dispatch prompt, end to end: episodes written to a real `.kxm/runs/episodes.jsonl`
// with appendEpisode (as the runner writes them), the prompt prepared from that folder as a run would.

const golden = (name: string) => readFile(join(import.meta.dirname, "golden", name), "utf8");

/** An episode of `fix-bug`; a failed one unless `progress` is set. */
function episode(fields: Partial<Episode> & Pick<Episode, "at" | "runId" | "stepId">): Episode {
  const failure = fields.failure ?? (fields.progress ? "" : "the agent exited with code 1");
  return {
    schema: "kxm.episode.v1",
    workflow: "fix-bug",
    agent: fields.stepId === "plan" ? "planner" : "implementer",
    attempt: 1,
    tried: "",
    progress: false,
    verified: false,
    durationMs: 1_000,
    ...fields,
    failure,
    failureKey: normalizeFailure(failure),
  };
}

const KNOWN: Episode[] = [
  episode({
    at: "2026-08-29T16:00:00.000Z",
    runId: "run_old",
    stepId: "plan",
    tried: "Wrote the plan to docs/plan.md",
    progress: true,
  }),
  episode({
    at: "2026-08-30T09:15:00.000Z",
    runId: "run_old",
    stepId: "implement",
    tried: "Retried the upload in the release test",
    failure: "the release test timed out after 30s",
  }),
  episode({
    at: "2026-08-31T10:00:00.250+02:00",
    runId: "run_older",
    stepId: "implement",
    attempt: 2,
    tried: "Pinned Node 20 and fixed the flaky release test",
    progress: true,
    verified: true,
  }),
];

const KNOWN_DIGEST = [
  "### Recent Episodes",
  "",
  "- 2026-08-31T08:00:00Z implement#2: Pinned Node 20 and fixed the flaky release test -> verified (`episode_run_older_implement_2`)",
  "- 2026-08-30T09:15:00Z implement#1: Retried the upload in the release test -> FAILED: the release test timed out after 30s (`episode_run_old_implement_1`)",
  "- 2026-08-29T16:00:00Z plan#1: Wrote the plan to docs/plan.md -> ok (unverified) (`episode_run_old_plan_1`)",
].join("\n");

async function projectWith(episodes: readonly Episode[], learning?: string): Promise<string> {
  const root = await tempDir();
  for (const item of episodes) await appendEpisode(root, item);
  if (learning !== undefined) await put(root, ".kxm/learning.yaml", learning);
  return root;
}

/** The ids of the delivered episodes, in prompt order. */
function episodeIds(manifest: { items: Array<{ id: string; section: string }> }): string[] {
  return manifest.items.filter((item) => item.section === "Recent Episodes").map((item) => item.id);
}

describe("the episodes digest in the dispatch prompt", () => {
  it("renders known episodes as one-liners under the data banner, exactly, and records them", async () => {
    const root = await projectWith(KNOWN);
    const run = await startRun(root);
    const prepared = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    expect(prepared.rendered.prompt).toBe(await golden("episodes.md"));
    expect(prepared.rendered.prompt).toContain(`${KNOWN_DIGEST}\n`);
    expect(prepared.manifest.gaps).toEqual([]);
    const written = JSON.parse(await readFile(prepared.manifestPath, "utf8"));
    expect(written.items.map((item: { id: string; section: string }) => [item.id, item.section])).toEqual([
      ["episode_run_older_implement_2", "Recent Episodes"],
      ["episode_run_old_implement_1", "Recent Episodes"],
      ["episode_run_old_plan_1", "Recent Episodes"],
    ]);
    const lines = prepared.rendered.prompt.split("\n");
    for (const item of written.items) {
      const line = lines.find((candidate) => candidate.endsWith(`(\`${item.id}\`)`));
      expect(line?.length).toBe(item.characters);
    }
    // Matched episodes carry their BM25 score; the plan episode matched nothing in the task.
    expect(written.items[0].score).toBeGreaterThan(written.items[1].score);
    expect(written.items[1].score).toBeGreaterThan(0);
    expect(written.items[2].score).toBe(0);
  });

  it("ranks a relevant old episode above recent noise", async () => {
    const relevant = episode({
      at: "2025-01-10T08:00:00.000Z",
      runId: "run_2025",
      stepId: "implement",
      tried: "Fixed the flaky release test by pinning pnpm",
      progress: true,
      verified: true,
    });
    const noise = [1, 2, 3, 4, 5].map((day) =>
      episode({
        at: `2026-08-2${day}T12:00:00.000Z`,
        runId: `run_noise${day}`,
        stepId: "docs",
        tried: "Updated the README badges",
        progress: true,
      }),
    );
    const one = await projectWith([...noise, relevant], "episodes:\n  digestItems: 1\n");
    const run = await startRun(one);
    const { manifest } = await prepareStep({ root: one, run, stepId: "implement", attempt: 1 });
    expect(episodeIds(manifest)).toEqual(["episode_run_2025_implement_1"]);
    // Without a match the arbiter falls back to the newest first: the noise follows in that order.
    const three = await projectWith([...noise, relevant], "episodes:\n  digestItems: 3\n");
    const again = await prepareStep({
      root: three,
      run: await startRun(three),
      stepId: "implement",
      attempt: 1,
    });
    expect(episodeIds(again.manifest)).toEqual([
      "episode_run_2025_implement_1",
      "episode_run_noise5_docs_1",
      "episode_run_noise4_docs_1",
    ]);
  });

  it("keeps within digestTokens, first-fit in rank order", async () => {
    // Six episodes of the same size: each costs (summary + id + kind + source ref) the same characters.
    const tried = `Retried the release test ${"with more logging ".repeat(20).trim()}`;
    const episodes = [1, 2, 3, 4, 5, 6].map((n) =>
      episode({ at: `2026-08-2${n}T12:00:00.000Z`, runId: `run_budget${n}`, stepId: "implement", tried }),
    );
    const root = await projectWith(episodes, "episodes:\n  digestTokens: 512\n  digestItems: 50\n");
    const { manifest, rendered } = await prepareStep({
      root,
      run: await startRun(root),
      stepId: "implement",
      attempt: 1,
    });
    const delivered = manifest.items.filter((item) => item.section === "Recent Episodes");
    // A rendered line is `- <summary> (`<id>`)`: summary + id + 7; the arbiter's cost adds "episode" (7) and
    // the source ref `run:<runId>` instead of the 7 characters of markup.
    const cost = delivered[0]!.characters + "run:run_budget1".length;
    expect(delivered.every((item) => item.characters === delivered[0]!.characters)).toBe(true);
    expect(delivered).toHaveLength(Math.floor((512 * 4) / cost));
    expect(delivered.length).toBeLessThan(episodes.length);
    expect(delivered.map((item) => item.id)).toEqual(
      [6, 5, 4, 3, 2, 1].slice(0, delivered.length).map((n) => `episode_run_budget${n}_implement_1`),
    );
    expect(rendered.gaps).toEqual([]);
  });

  it("delivers at most digestItems episodes, and none with 0", async () => {
    const episodes = [1, 2, 3, 4].map((n) =>
      episode({
        at: `2026-08-2${n}T12:00:00.000Z`,
        runId: `run_n${n}`,
        stepId: "implement",
        tried: "Ran pnpm test",
      }),
    );
    const two = await projectWith(episodes, "episodes:\n  digestItems: 2\n");
    const prepared = await prepareStep({
      root: two,
      run: await startRun(two),
      stepId: "implement",
      attempt: 1,
    });
    expect(episodeIds(prepared.manifest)).toEqual([
      "episode_run_n4_implement_1",
      "episode_run_n3_implement_1",
    ]);
    for (const off of ["episodes:\n  digestItems: 0\n", "episodes:\n  digestTokens: 0\n"]) {
      const root = await projectWith(episodes, off);
      const { rendered } = await prepareStep({
        root,
        run: await startRun(root),
        stepId: "implement",
        attempt: 1,
      });
      expect(rendered.prompt).toBe(await golden("empty-project.md"));
      expect(rendered.delivered).toEqual([]);
    }
  });

  it("shows only episodes recorded before the attempt", async () => {
    const root = await projectWith([
      ...KNOWN,
      episode({ at: "2026-09-01T12:01:00.000Z", runId: "run_test", stepId: "plan", progress: true }),
      episode({ at: "2026-09-01T12:02:00.000Z", runId: "run_test", stepId: "implement", attempt: 1 }),
      episode({ at: "2026-09-01T12:03:00.000Z", runId: "run_test", stepId: "implement", attempt: 2 }),
      episode({ at: "2026-09-01T12:04:00.000Z", runId: "run_other", stepId: "implement" }),
    ]);
    const run = await startRun(root);
    const second = await renderStep({ root, run, stepId: "implement", attempt: 2 });
    const ids = episodeIds(second.manifest);
    expect([...ids].sort()).toEqual([
      "episode_run_old_implement_1",
      "episode_run_old_plan_1",
      "episode_run_older_implement_2",
      "episode_run_test_implement_1",
      "episode_run_test_plan_1",
    ]);
    const next = await renderStep({ root, run, stepId: "implement", attempt: 3 });
    expect(episodeIds(next.manifest)).toHaveLength(7);
    const first = await renderStep({ root, run, stepId: "implement", attempt: 1 });
    expect(episodeIds(first.manifest)).not.toContain("episode_run_test_implement_1");
    expect(episodeIds(first.manifest)).toContain("episode_run_test_plan_1");
  });

  it("skips a corrupt line, counts it in a gap, and keeps the rest", async () => {
    const root = await projectWith(KNOWN.slice(0, 1));
    const path = episodesPath(root);
    const good = await readFile(path, "utf8");
    const wrongShape = JSON.stringify({ ...KNOWN[1], attempt: 0 });
    await writeFile(
      path,
      `${good}{"schema":"kxm.episode.v1","at":\n${wrongShape}\n${JSON.stringify(KNOWN[2])}\n`,
    );
    const prepared = await prepareStep({ root, run: await startRun(root), stepId: "implement", attempt: 1 });
    expect(episodeIds(prepared.manifest)).toEqual([
      "episode_run_older_implement_2",
      "episode_run_old_plan_1",
    ]);
    expect(prepared.manifest.gaps).toEqual(["dispatch_context_episodes_skipped:2"]);
    expect(prepared.rendered.prompt).not.toContain("dispatch_context");
  });

  it("leaves the prompt as it was without episodes, and reports an unreadable file", async () => {
    const root = await tempDir();
    const run = await startRun(root);
    expect((await prepareStep({ root, run, stepId: "implement", attempt: 1 })).rendered.prompt).toBe(
      await golden("empty-project.md"),
    );
    await put(root, ".kxm/runs/episodes.jsonl/not-a-file", "");
    const unreadable = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    expect(unreadable.rendered.prompt).toBe(await golden("empty-project.md"));
    expect(unreadable.manifest.gaps).toEqual(["dispatch_context_episodes_unreadable"]);
  });

  it("delivers episodes while memory is withheld: they are the runner's record, not memory", async () => {
    const root = await gitRepo();
    await putFact(root, "use-pnpm");
    commitAll(root, "memory");
    const run = await startRun(root);
    await putFact(root, "use-pnpm", { summary: "Changed but not committed" });
    for (const item of KNOWN) await appendEpisode(root, item);
    const prepared = await prepareStep({ root, run, stepId: "implement", attempt: 1 });
    expect(prepared.manifest.gaps).toEqual(["dispatch_context_withheld:uncommitted"]);
    expect(prepared.manifest.items.map((item) => item.section)).toEqual([
      "Recent Episodes",
      "Recent Episodes",
      "Recent Episodes",
    ]);
    expect(prepared.rendered.prompt).toContain(`${KNOWN_DIGEST}\n`);
  });

  it("keeps one record per attempt and gives an id that would clash or is invalid a hash", () => {
    const request = {
      project: "demo",
      role: "implementer",
      task: "Fix the flaky release test.",
      runId: "run_test",
      stepId: "implement",
      attempt: 1,
      settings: { digestTokens: 600, digestItems: 8 },
    };
    const at = "2026-08-30T09:15:00.000Z";
    const entries = selectEpisodes(
      [
        episode({ at, runId: "run_a_b", stepId: "c", tried: "first" }),
        episode({ at, runId: "run_a", stepId: "b_c", tried: "second" }),
        episode({ at, runId: "run with space", stepId: "plan", tried: "third" }),
        episode({ at, runId: "run_x", stepId: "plan", tried: "older copy" }),
        episode({ at: "2026-08-30T09:16:00.000Z", runId: "run_x", stepId: "plan", tried: "newer copy" }),
      ],
      request,
    );
    const ids = entries.map((entry) => entry.item.id);
    expect(ids).toHaveLength(4);
    expect(ids).toContain("episode_run_x_plan_1");
    expect(ids.filter((id) => /^episode_[0-9a-f]{32}$/.test(id))).toHaveLength(3);
    const summaries = entries.map((entry) => entry.item.summary);
    expect(summaries).toContain(
      "2026-08-30T09:16:00Z plan#1: newer copy -> FAILED: the agent exited with code 1",
    );
    expect(summaries.some((summary) => summary.includes("older copy"))).toBe(false);
  });

  it("refuses a budget the arbiter cannot take", async () => {
    expect(() => parseLearningSettings("episodes:\n  digestTokens: 300\n")).toThrow(
      ".kxm/learning.yaml:2: episodes.digestTokens: must be 0 (no digest) or at least 512",
    );
    const root = await projectWith(KNOWN, "episodes:\n  digestTokens: 300\n");
    await expect(
      prepareStep({ root, run: await startRun(root), stepId: "implement", attempt: 1 }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });
});

// --- determinism -------------------------------------------------------------------------------------------------

const WORDS = [
  "release",
  "test",
  "flaky",
  "pnpm",
  "upload",
  "retry",
  "docs",
  "plan",
  "node",
  "timeout",
  "lint",
];
const sentence = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(" "));
const episodeArb: fc.Arbitrary<Episode> = fc
  .record({
    at: fc
      .integer({
        min: Date.parse("2026-01-01T00:00:00Z") / 1000,
        max: Date.parse("2026-12-31T00:00:00Z") / 1000,
      })
      .map((seconds) => new Date(seconds * 1000).toISOString()),
    runId: fc.constantFrom("run_a", "run_b", "run_c", "run_test"),
    stepId: fc.constantFrom("plan", "implement"),
    attempt: fc.integer({ min: 1, max: 3 }),
    tried: sentence,
    progress: fc.boolean(),
    verified: fc.boolean(),
    failure: sentence,
  })
  .map((fields) =>
    episode({
      ...fields,
      verified: fields.progress && fields.verified,
      failure: fields.progress ? "" : fields.failure,
    }),
  );
const scenario = fc.array(episodeArb, { maxLength: 24 }).chain((episodes) =>
  fc.record({
    episodes: fc.constant(episodes),
    shuffled: fc.shuffledSubarray(episodes, { minLength: episodes.length, maxLength: episodes.length }),
    attempt: fc.integer({ min: 1, max: 4 }),
    items: fc.integer({ min: 1, max: 10 }),
  }),
);

describe("digest determinism", () => {
  it("gives the same entries for the same records in any order, call after call", () => {
    fc.assert(
      fc.property(scenario, ({ episodes, shuffled, attempt, items }) => {
        const request = {
          project: "demo",
          role: "implementer",
          task: "Implement the fix and run the tests with pnpm.\n\nFix the flaky release test.",
          runId: "run_test",
          stepId: "implement",
          attempt,
          settings: { digestTokens: 600, digestItems: items },
        };
        const expected = JSON.stringify(selectEpisodes(episodes, request));
        expect(JSON.stringify(selectEpisodes(shuffled, request))).toBe(expected);
        expect(JSON.stringify(selectEpisodes(episodes, request))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("gives byte-identical prompts and manifests from shuffled episode files", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ episodes, shuffled, attempt }) => {
        const outputs: string[][] = [];
        for (const records of [episodes, shuffled, episodes]) {
          const root = await projectWith(records);
          const run = await startRun(root);
          const { rendered, manifest } = await renderStep({ root, run, stepId: "implement", attempt });
          outputs.push([rendered.prompt, JSON.stringify(manifest)]);
        }
        expect(outputs[1]).toEqual(outputs[0]);
        expect(outputs[2]).toEqual(outputs[0]);
      }),
      { numRuns: 25 },
    );
  });
});
