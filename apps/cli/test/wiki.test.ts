import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  commitAll,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  memoryFile,
  put,
  type RunResult,
  skillMarkdown,
  TEST_RUNNER_MD,
} from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// The knowledge wiki end to end: a real hub (serveHub on a loopback port, a temporary SQLite file, a clock the test
// moves by hand so every stored time is fixed), real checkouts with authored memory and a promoted skill, records
// made through the hub's API and the CLI, then `kxm context review`, `wiki-compile` and `wiki-lint` as built. The
// compiled pages are compared with golden files (apps/cli/test/golden/wiki) after replacing the hub's random ids
// with placeholders in order of first appearance; set UPDATE_GOLDEN=1 to rewrite them.

const GUIDE = new URL("../../../docs/guides/wiki.md", import.meta.url);
const GUIDE_COMMANDS = [
  "# Preview the pages, then write them under the repository root.",
  "kxm context wiki-compile demo",
  "kxm context wiki-compile demo --out .",
  "kxm context wiki-lint demo",
].join("\n");
const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const WIKI = ".kxm/knowledge/wiki";
const GOLDEN = new URL("./golden/wiki/", import.meta.url);
const PAGES = [
  "architecture.md",
  "contradictions.md",
  "decisions.md",
  "incidents.md",
  "index.md",
  "patterns.md",
  "superseded-history.md",
  "temporal-state.md",
];

let current = Date.parse("2026-10-01T09:00:00.000Z");
/** Moves the hub's clock on, so no two records share a time. */
function tick(ms = 60_000): void {
  current += ms;
}

let hub: { url: string; close(): Promise<void> };
let admin: HubClient;
let agent: HubClient;
let otherAgent: HubClient;
let checkout: string;
let otherCheckout: string;
const ids: Record<string, string> = {};

function cli(args: readonly string[], cwd = checkout, env: Record<string, string | undefined> = {}) {
  return kxm(args, { cwd, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN, ...env } });
}

function ok(result: RunResult): RunResult {
  expect(result.code, `stderr: ${result.stderr}\nstdout: ${result.stdout}`).toBe(0);
  return result;
}

async function promoteValue(
  client: HubClient,
  project: string,
  key: string,
  summary: string,
): Promise<string> {
  const { proposalId } = await client.proposeState({
    params: { project },
    body: { key, summary, authority: "evidence", confidence: "verified", evidenceRefs: ["pr:12"] },
  });
  tick(1_000);
  const { state } = await admin.promoteState({
    params: { project, proposalId },
    body: { evidenceRefs: [`review:${summary.length}`] },
  });
  tick();
  return state.id;
}

async function journal(
  project: string,
  runId: string,
  category: "plan" | "decision" | "error" | "lesson" | "contradiction",
  summary: string,
  evidenceRefs?: string[],
): Promise<string> {
  const { entry } = await admin.appendJournal({
    params: { project, runId },
    body: { category, summary, stage: "verify", ...(evidenceRefs === undefined ? {} : { evidenceRefs }) },
  });
  tick();
  return entry.id;
}

/** Every page of the wiki folder, by file name. */
async function readWiki(root: string): Promise<Map<string, string>> {
  const dir = join(root, WIKI);
  const pages = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) pages.set(name, await readFile(join(dir, name), "utf8"));
  return pages;
}

/** The hub's random ids as placeholders, numbered in order of first appearance over the pages in name order. */
function normalize(pages: ReadonlyMap<string, string>): Map<string, string> {
  const seen = new Map<string, string>();
  const counters: Record<string, number> = {};
  const out = new Map<string, string>();
  for (const [name, body] of pages) {
    out.set(
      name,
      body.replace(/\b(state|j)_[0-9a-f]{24}|(?<=journal_)j_[0-9a-f]{24}/g, (id) => {
        const kind = id.startsWith("state_") ? "state" : "j";
        if (!seen.has(id)) {
          counters[kind] = (counters[kind] ?? 0) + 1;
          seen.set(id, `${kind}_<${counters[kind]}>`);
        }
        return seen.get(id)!;
      }),
    );
  }
  return out;
}

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN, { now: () => new Date(current) });
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });

  // Authored memory and a promoted skill in demo's checkout; a fact only the other project has.
  checkout = await gitRepo("kxm-cli-wiki-demo-");
  await put(checkout, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
  // The file both facts cite, so their source links resolve.
  await put(checkout, "docs/testing.md", "# Testing\n\nRun npm test.\n");
  await put(
    checkout,
    ".kxm/memory/arch-layers.md",
    memoryFile("arch-layers", {
      summary: JSON.stringify("Dependencies flow one way: packages never import apps"),
    }),
  );
  await put(
    checkout,
    "skills/release-checklist/SKILL.md",
    skillMarkdown("release-checklist", "Steps to cut a release"),
  );
  const proposed = await kxm(["skills", "propose", "skills/release-checklist", "--json"], {
    cwd: checkout,
    env: { KXM_ACTOR: "author@example.com" },
  });
  const skillId = json<{ id: string }>(ok(proposed)).id;
  ok(
    await kxm(["skills", "promote", skillId, "--evidence", "review:pr-31"], {
      cwd: checkout,
      env: { KXM_ACTOR: "lead@example.com" },
    }),
  );
  otherCheckout = await gitRepo("kxm-cli-wiki-other-");
  await put(
    otherCheckout,
    ".kxm/memory/other-fact.md",
    memoryFile("other-fact", { summary: "OTHER project fact" }),
  );

  // The hub serves memory and skills as committed at HEAD: commit them, as a reviewed pull request would.
  await commitAll(checkout, "Add reviewed memory and the promoted checklist");
  await commitAll(otherCheckout, "Add the other project's fact");
  ok(await cli(["hub", "projects", "add", "demo", "--checkout", checkout]));
  ok(await cli(["hub", "projects", "add", "other", "--checkout", otherCheckout]));
  agent = createHubClient({
    baseUrl: hub.url,
    token: json<{ key: string }>(ok(await cli(["hub", "agents", "add", "demo", "planner", "--json"]))).key,
  });
  otherAgent = createHubClient({
    baseUrl: hub.url,
    token: json<{ key: string }>(ok(await cli(["hub", "agents", "add", "other", "planner", "--json"]))).key,
  });

  // Temporal state: a value superseded by a later one, an architecture value, two competing pending proposals and
  // one more pending value that must never be compiled.
  ids.mainBranch = await promoteValue(
    agent,
    "demo",
    "release.branch",
    "Releases are cut from the main branch",
  );
  ids.releaseBranches = await promoteValue(
    agent,
    "demo",
    "release.branch",
    "Releases are cut from release branches",
  );
  ids.storage = await promoteValue(
    agent,
    "demo",
    "architecture.storage",
    "SQLite in WAL mode behind the store interface",
  );
  for (const summary of ["PENDING Deploy on Mondays", "PENDING Deploy on Fridays"]) {
    await agent.proposeState({
      params: { project: "demo" },
      body: {
        key: "deploy.day",
        summary,
        authority: "evidence",
        confidence: "probable",
        evidenceRefs: ["chat:1"],
      },
    });
    tick();
  }
  await agent.proposeState({
    params: { project: "demo" },
    body: {
      key: "release.branch",
      summary: "PENDING Releases are cut from tags",
      authority: "evidence",
      confidence: "probable",
      evidenceRefs: ["chat:2"],
    },
  });
  tick();

  // A finished run with entries of five categories, and a run still running.
  await admin.startRun({ params: { project: "demo" }, body: { workflow: "release", runId: "run-1" } });
  tick();
  ids.plan = await journal("demo", "run-1", "plan", "Split the hub into routes and services");
  ids.decision = await journal("demo", "run-1", "decision", "Adopt trunk-based development");
  ids.error = await journal("demo", "run-1", "error", "The nightly build timed out");
  ids.lesson = await journal("demo", "run-1", "lesson", "UNREVIEWED Retry flaky gates once", ["run:run-1"]);
  ids.contradiction = await journal(
    "demo",
    "run-1",
    "contradiction",
    "The docs say npm, the scripts use pnpm",
  );
  await admin.finishRun({
    params: { project: "demo", runId: "run-1" },
    body: { outcome: "failed", failingStep: "verify", lessons: ["UNREVIEWED episode lesson"] },
  });
  tick();
  await admin.startRun({ params: { project: "demo" }, body: { workflow: "release", runId: "run-2" } });
  tick();
  ids.running = await journal("demo", "run-2", "decision", "UNREVIEWED decision of a running run");

  // The other project: a current value and a reviewed decision of its own.
  await promoteValue(otherAgent, "other", "release.branch", "OTHER releases from trunk");
  await admin.startRun({ params: { project: "other" }, body: { workflow: "release", runId: "run-1" } });
  const otherEntry = await journal("other", "run-1", "decision", "OTHER decision");
  await admin.finishRun({ params: { project: "other", runId: "run-1" }, body: { outcome: "succeeded" } });
  tick();
  ok(await cli(["context", "review", "other", otherEntry]));
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

// The reviews the review test makes, at the same clock ticks, are what the wiki pages show: the wiki tests make
// them themselves when that test did not run (a filtered run), so that each describe can run alone.
let reviewsDone = false;

async function reviewLikeTheReviewTest(): Promise<void> {
  ok(await cli(["context", "review", "demo", ids.decision!, "--evidence", "review:pr-40"]));
  tick();
  for (const entry of [ids.plan!, ids.error!, ids.contradiction!]) {
    ok(await cli(["context", "review", "demo", entry]));
    tick();
  }
  reviewsDone = true;
}

describe("kxm context review", () => {
  test("marks entries of a finished run reviewed, once; refuses a running run's entry and another project's", {
    timeout: 60_000,
  }, async () => {
    const first = ok(
      await cli(["context", "review", "demo", ids.decision!, "--evidence", "review:pr-40", "--json"]),
    );
    expect(json(first)).toEqual({
      created: true,
      review: {
        entryId: ids.decision,
        project: "demo",
        reviewedBy: "kxm-admin",
        reviewedAt: new Date(current).toISOString(),
        evidenceRefs: ["review:pr-40"],
      },
    });
    tick();
    const again = ok(await cli(["context", "review", "demo", ids.decision!]));
    expect(again.stdout).toMatch(
      new RegExp(`^Already reviewed: ${ids.decision} by kxm-admin at .+; nothing changed\\n$`),
    );
    for (const entry of [ids.plan!, ids.error!, ids.contradiction!]) {
      const human = ok(await cli(["context", "review", "demo", entry]));
      expect(human.stdout).toMatch(new RegExp(`^Reviewed ${entry} as kxm-admin at 2026-10-01T\\S+\\n$`));
      tick();
    }

    expectFailureLine(
      await cli(["context", "review", "demo", ids.running!]),
      "context review",
      /^run run-2 has not finished; finish it before reviewing its journal entry j_[0-9a-f]{24}$/,
    );
    expectJsonFailure(
      await cli(["context", "review", "demo", ids.running!, "--json"]),
      "journal_review_invalid",
    );
    expectJsonFailure(await cli(["context", "review", "other", ids.plan!, "--json"]), "not_found");
    expectJsonFailure(await cli(["context", "review", "demo", "j_missing", "--json"]), "not_found");
    expectJsonFailure(await cli(["context", "review", "ghost", ids.plan!, "--json"]), "not_found");
    expectJsonFailure(
      await cli(["context", "review", "demo", ids.plan!, "--json"], checkout, {
        KXM_AUTH_TOKEN: "wrong-token",
      }),
      "invalid_auth",
    );
    expectUsageError(await cli(["context", "review", "demo"]), "context review");
    reviewsDone = true;
  });
});

describe("kxm context wiki-compile", () => {
  beforeAll(async () => {
    if (!reviewsDone) await reviewLikeTheReviewTest();
  }, 60_000);

  test("previews on stdout without --out and writes nothing", { timeout: 60_000 }, async () => {
    const preview = ok(await cli(["context", "wiki-compile", "demo"]));
    expect(preview.stdout).toContain(`==> ${WIKI}/index.md <==\n`);
    expect(preview.stdout).toMatch(/\nPreview of 8 pages \(.+\); write them with --out <dir>\.\n$/);
    expect(existsSync(join(checkout, WIKI))).toBe(false);
    const asJson = json<{ pages: Record<string, string>; wikiDir: string }>(
      ok(await cli(["context", "wiki-compile", "demo", "--json"])),
    );
    expect(Object.keys(asJson.pages)).toEqual(PAGES);
    expect(asJson.wikiDir).toBe(WIKI);
  });

  test("writes the golden pages: reviewed records only, every claim linked, nothing of another project", {
    timeout: 60_000,
  }, async () => {
    const written = ok(await cli(["context", "wiki-compile", "demo", "--out", "."]));
    expect(written.stdout).toMatch(
      /^Compiled the wiki of demo into \.kxm\/knowledge\/wiki\/ \(8 pages: 8 written, 0 unchanged\): 2 current state values, 1 superseded, 2 memory facts, 1 skill, 4 reviewed journal entries, 2 open contradictions\.\n$/,
    );
    const pages = await readWiki(checkout);
    expect([...pages.keys()]).toEqual(PAGES);
    const text = [...pages.values()].join("\n");
    expect(text).not.toContain("PENDING");
    expect(text).not.toContain("UNREVIEWED");
    expect(text).not.toContain("OTHER");
    expect(text).not.toContain(ids.lesson!);
    expect(text).not.toContain(ids.running!);

    const normalized = normalize(pages);
    for (const [name, body] of normalized) {
      const golden = new URL(name, GOLDEN);
      const masked = body.replace(/^Compiled at: .*$/m, "Compiled at: <timestamp>");
      if (process.env.UPDATE_GOLDEN === "1") await writeFile(golden, masked);
      expect(masked, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(
        await readFile(golden, "utf8"),
      );
    }
  });

  test("compiling again changes no byte but the index timestamp; stale pages go, other files stay", {
    timeout: 60_000,
  }, async () => {
    ok(await cli(["context", "wiki-compile", "demo", "--out", checkout]));
    const before = await readWiki(checkout);
    tick(3_600_000);
    await put(
      checkout,
      `${WIKI}/old-page.md`,
      `${before.get("index.md")!.split("\n")[0]}\n\n# An old page\n`,
    );
    await put(checkout, `${WIKI}/notes.md`, "# My notes\n");
    const again = json<{ written: string[]; unchanged: string[]; removed: string[]; kept: string[] }>(
      ok(await cli(["context", "wiki-compile", "demo", "--out", ".", "--json"])),
    );
    expect(again.written).toEqual(["index.md"]);
    expect(again.unchanged).toEqual(PAGES.filter((page) => page !== "index.md"));
    expect(again.removed).toEqual(["old-page.md"]);
    expect(again.kept).toEqual(["notes.md"]);
    // The staging folder took the wiki's place: nothing is left beside it.
    expect(await readdir(join(checkout, ".kxm/knowledge"))).toEqual(["wiki"]);
    const after = await readWiki(checkout);
    for (const page of PAGES) {
      const strip = (body: string) => body.replace(/^Compiled at: .*$/m, "");
      expect(strip(after.get(page)!)).toBe(strip(before.get(page)!));
    }
    expect(after.get("index.md")).not.toBe(before.get("index.md"));
    const lint = ok(await cli(["context", "wiki-lint", "demo"]));
    expect(lint.stdout).toBe(
      "warning orphan_page notes.md notes.md is not linked from index.md\n" +
        "Wiki of demo: 0 errors, 1 warning in 9 pages.\n",
    );
    await import("node:fs/promises").then((fs) => fs.rm(join(checkout, WIKI, "notes.md")));
  });

  test("bad input: an --out that is not a folder, an unknown project, no token", {
    timeout: 60_000,
  }, async () => {
    expectUsageError(
      await cli(["context", "wiki-compile", "demo", "--out", "no-such-folder"]),
      "context wiki-compile",
      "--out: no folder at no-such-folder",
    );
    expectJsonFailure(await cli(["context", "wiki-compile", "ghost", "--json"]), "not_found");
    expectFailureLine(
      await cli(["context", "wiki-compile", "demo"], checkout, { KXM_AUTH_TOKEN: undefined }),
      "context wiki-compile",
      /KXM_AUTH_TOKEN is unset/,
    );
  });
});

describe("kxm context wiki-lint", () => {
  beforeAll(async () => {
    if (!reviewsDone) await reviewLikeTheReviewTest();
  }, 60_000);

  test("a fresh wiki is clean; moving a superseded value right under the Current heading is no stale link", {
    timeout: 60_000,
  }, async () => {
    ok(await cli(["context", "wiki-compile", "demo", "--out", "."]));
    expect(ok(await cli(["context", "wiki-lint", "demo"])).stdout).toBe(
      "Wiki of demo: 0 errors, 0 warnings in 8 pages.\n",
    );
    const path = join(checkout, WIKI, "temporal-state.md");
    const lines = (await readFile(path, "utf8")).split("\n");
    const from = lines.findIndex((line) => line.includes(`<a id="${ids.mainBranch}"></a>`));
    const [superseded] = lines.splice(from, 1);
    const heading = lines.findIndex(
      (line, i) => line === "### Current" && lines[i + 2]?.includes(ids.releaseBranches!),
    );
    lines.splice(heading + 2, 0, superseded!);
    await writeFile(path, lines.join("\n"));
    expect(lines[heading + 2]).toContain("Releases are cut from the main branch");
    const lint = json<{ ok: boolean; findings: unknown[] }>(
      ok(await cli(["context", "wiki-lint", "demo", "--json"])),
    );
    expect(lint).toMatchObject({ ok: true, findings: [] });
  });

  test("a value superseded after compiling is a stale_state_link; a new contradiction is hidden; exit 1", {
    timeout: 60_000,
  }, async () => {
    ok(await cli(["context", "wiki-compile", "demo", "--out", "."]));
    const tags = await promoteValue(agent, "demo", "release.branch", "Releases are cut from signed tags");
    await agent.proposeState({
      params: { project: "demo" },
      body: {
        key: "deploy.day",
        summary: "PENDING Deploy on Wednesdays",
        authority: "evidence",
        confidence: "probable",
        evidenceRefs: ["chat:3"],
      },
    });
    tick();
    const human = await cli(["context", "wiki-lint", "demo"]);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe("context wiki-lint failed: 3 errors, 1 warning in 8 pages\n");
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(
        /^error hidden_contradiction contradictions\.md the open contradiction on key deploy\.day \(item state_[0-9a-f]{24}\) is not shown$/,
      ),
      expect.stringMatching(
        new RegExp(
          `^error stale_state_link decisions\\.md:\\d+ claims ${ids.releaseBranches} is current, but the hub holds it as superseded$`,
        ),
      ),
      `warning missing_record index.md reviewed record ${tags} is on no page: compile the wiki again`,
      expect.stringMatching(
        new RegExp(
          `^error stale_state_link temporal-state\\.md:\\d+ claims ${ids.releaseBranches} is current, but the hub holds it as superseded$`,
        ),
      ),
    ]);
    const asJson = await cli(["context", "wiki-lint", "demo", "--json"]);
    expect(asJson.code).toBe(1);
    expect(json<{ ok: boolean; errors: number; warnings: number }>(asJson)).toMatchObject({
      ok: false,
      errors: 3,
      warnings: 1,
    });

    ok(await cli(["context", "wiki-compile", "demo", "--out", "."]));
    expect(ok(await cli(["context", "wiki-lint", "demo"])).stdout).toBe(
      "Wiki of demo: 0 errors, 0 warnings in 8 pages.\n",
    );
  });

  test("no wiki, a missing --dir, another project's records", { timeout: 60_000 }, async () => {
    const empty = await gitRepo("kxm-cli-wiki-empty-");
    expectFailureLine(
      await cli(["context", "wiki-lint", "demo"], empty),
      "context wiki-lint",
      "no wiki at .kxm/knowledge/wiki/: compile it first with kxm context wiki-compile demo --out .",
    );
    expectUsageError(
      await cli(["context", "wiki-lint", "demo", "--dir", "nope"], empty),
      "context wiki-lint",
    );
    // demo's wiki linted against the other project's records: every claim is a broken reference.
    const crossed = await cli(["context", "wiki-lint", "other", "--dir", join(checkout, WIKI), "--json"]);
    expect(crossed.code).toBe(1);
    const found = json<{ findings: { code: string }[] }>(crossed).findings;
    expect(found.some((finding) => finding.code === "broken_reference")).toBe(true);
  });
});

describe("docs/guides/wiki.md", () => {
  test("its commands run as printed against a real hub and pass", { timeout: 60_000 }, async () => {
    const guide = await readFile(GUIDE, "utf8");
    expect(guide).toContain(`\`\`\`bash\n${GUIDE_COMMANDS}\n\`\`\``);
    for (const line of GUIDE_COMMANDS.split("\n").filter((text) => text.startsWith("kxm "))) {
      ok(await cli(line.split(" ").slice(1)));
    }
    expect(ok(await cli(["context", "wiki-lint", "demo"])).stdout).toBe(
      "Wiki of demo: 0 errors, 0 warnings in 8 pages.\n",
    );
  });

  test("its section table is the compiler's mapping", async () => {
    const { JOURNAL_SECTIONS } = await import("@kxm/wiki");
    const guide = await readFile(GUIDE, "utf8");
    for (const [category, section] of Object.entries(JOURNAL_SECTIONS)) {
      const row = guide
        .split("\n")
        .find((line) => line.startsWith("| Journal ") && line.includes(`\`${category}\``));
      expect(row, category).toBeDefined();
      expect(row!.trim().endsWith(`| ${section} |`), `${category}: ${row}`).toBe(true);
    }
  });
});
