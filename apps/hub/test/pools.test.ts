import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { assemblePacket, recall } from "@kxm/arbiter";
import type { AssembledPacket } from "@kxm/contract";
import { type ContextItem, type ContextRequest, NAMED_ROLES, rolePolicy } from "@kxm/contract";
import {
  activeFacts,
  computeMemoryRevision,
  factToContextItem,
  loadPromotedSkillItems,
  promoteSkill,
  proposeSkill,
} from "@kxm/memory-git";
import { journalEntryToItem } from "@kxm/provenance";
import type { KxmStore } from "@kxm/state-store";
import { describe, expect, test } from "vitest";
import { startRun } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  call,
  commitAll,
  GUIDE_PROPOSAL,
  git,
  gitCheckout,
  hubPerTest,
  memoryFact,
  projectWithAgent,
  writeFiles,
} from "./helpers.js";

const hub = hubPerTest();

/** The pool of a packet, built from the store and the checkout directly: what the hub's indexes must equal. */
async function plainPool(
  store: KxmStore,
  project: string,
  role: string,
  filter: { runId?: string; stage?: string } = {},
): Promise<{ pool: ContextItem[]; contradictionIds: string[] }> {
  const registered = (await store.getProject(project))!;
  const categories = new Set<string>(rolePolicy(role).journalCategories);
  const journal = (await store.listJournal(project))
    .filter((entry) => categories.has(entry.category))
    .filter((entry) => filter.runId === undefined || entry.runId === filter.runId)
    .filter((entry) => filter.stage === undefined || entry.stage === filter.stage)
    .map(journalEntryToItem);
  const authored: ContextItem[] = [];
  if (registered.checkoutRoot !== null) {
    authored.push(
      ...(await activeFacts(registered.checkoutRoot)).map((fact) => factToContextItem(fact, project)),
    );
    authored.push(...(await loadPromotedSkillItems(registered.checkoutRoot, project)).items);
  }
  const contradictionIds = [
    ...(await store.openContradictions(project)).flatMap((contradiction) => contradiction.itemIds),
    ...(await store.listJournal(project, { categories: ["contradiction"] })).map(
      (entry) => `journal_${entry.id}`,
    ),
  ];
  return { pool: [...(await store.liveItems(project)), ...authored, ...journal], contradictionIds };
}

/**
 * The plain arbiter's packet as a hub serves it for a project whose checkout is clean: the audit's `memory` names
 * HEAD and the revision of the work tree (equal to HEAD's when nothing is uncommitted), and nothing is withheld.
 */
async function served(
  store: KxmStore,
  project: string,
  assembled: AssembledPacket,
): Promise<AssembledPacket> {
  const root = (await store.getProject(project))!.checkoutRoot;
  if (root === null) return assembled;
  const memory = {
    commit: git(root, "rev-parse", "HEAD"),
    revision: await computeMemoryRevision(root),
    withheld: [],
  };
  return { ...assembled, audit: { ...assembled.audit, memory } };
}

async function recallPool(store: KxmStore, project: string): Promise<ContextItem[]> {
  const registered = (await store.getProject(project))!;
  const memory =
    registered.checkoutRoot === null
      ? []
      : (await activeFacts(registered.checkoutRoot)).map((fact) => factToContextItem(fact, project));
  const journal = (await store.listJournal(project)).map(journalEntryToItem);
  return [...(await store.liveItems(project)), ...memory, ...journal];
}

async function packet(project: string, token: string, body: Omit<ContextRequest, "project">) {
  const response = await call(hub.app, "POST", `/v1/projects/${project}/context`, token, body);
  expect(response.statusCode, response.body).toBe(200);
  // The packet id is the hub's (stored packets, tested in packets.test.ts); the rest is the plain arbiter's.
  const { packet: served, audit } = response.json();
  const { packetId, ...rest } = audit;
  expect(packetId).toMatch(/^pkt_[0-9a-f]{32}$/);
  expect(Object.keys(audit).at(-1)).toBe("packetId");
  return { packet: served, audit: rest };
}

async function promotedSkill(root: string, work: string, name: string, description: string): Promise<void> {
  const source = join(work, `source-${name}`, name);
  await writeFiles(source, {
    "SKILL.md": `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`,
  });
  const now = new Date("2026-09-01T00:00:00Z");
  const candidate = await proposeSkill(root, source, { proposedBy: "agent-7", now });
  await promoteSkill(root, candidate.id, { promotedBy: "reviewer", evidenceRefs: ["pr:1"], now });
  commitAll(root, `Promote ${name}`);
}

async function checkoutWith(name: string, fact: string, skill: string): Promise<string> {
  const root = await gitCheckout(hub.dir, name, {
    [`.kxm/memory/${fact}.md`]: memoryFact(
      fact,
      `Convention of ${name}: run the test suite before a release`,
    ),
    "README.md": `# ${name}\n`,
  });
  await promotedSkill(root, join(hub.dir, `work-${name}`), skill, `Release checklist for ${name}`);
  return root;
}

describe("per-project memory and skills (behaviour 9.1)", () => {
  test("each project's packet holds only its own checkout's memory and skills", async () => {
    await hub.start();
    const alphaRoot = await checkoutWith("alpha", "alpha-tests", "alpha-release");
    const betaRoot = await checkoutWith("beta", "beta-tests", "beta-release");
    const alphaKey = await projectWithAgent(hub.app, "alpha", "agent-a", alphaRoot);
    const betaKey = await projectWithAgent(hub.app, "beta", "agent-b", betaRoot);
    await projectWithAgent(hub.app, "gamma", "agent-c");

    const request = { role: "implementer", task: "release checklist test suite" };
    const alpha = await packet("alpha", alphaKey, request);
    const beta = await packet("beta", betaKey, request);
    const gamma = await packet("gamma", ADMIN_TOKEN, request);
    const authoredIds = (assembled: { audit: { selectedIds: string[] } }) =>
      assembled.audit.selectedIds.filter((id) => /^(mem|skill)_/.test(id));
    expect(authoredIds(alpha)).toHaveLength(2);
    expect(authoredIds(alpha).every((id) => id.includes("alpha"))).toBe(true);
    expect(authoredIds(beta)).toHaveLength(2);
    expect(authoredIds(beta).every((id) => id.includes("beta"))).toBe(true);
    expect(authoredIds(gamma)).toEqual([]);
    for (const item of [...alpha.packet.knowledge, ...alpha.packet.skills])
      expect(item.project).toBe("alpha");

    for (const [project, assembled] of [
      ["alpha", alpha],
      ["beta", beta],
    ] as const) {
      const { pool, contradictionIds } = await plainPool(hub.store, project, "implementer");
      expect(assembled).toEqual(
        await served(hub.store, project, assemblePacket(pool, { ...request, project }, { contradictionIds })),
      );
    }
  });

  test("operator-scope memory is a _shared default, and a change to the checkout's memory is picked up", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/alpha-tests.md": memoryFact("alpha-tests", "Run the test suite before a release"),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    const request = { role: "critic", task: "test suite release" };
    expect((await packet("alpha", key, request)).audit.selectedIds).toEqual(["mem_alpha-tests"]);

    await writeFile(
      join(root, ".kxm/memory/house-style.md"),
      memoryFact("house-style", "Release notes use the house style for every test suite", "operator"),
    );
    commitAll(root, "Add house-style");
    const after = await packet("alpha", key, request);
    expect([...after.audit.selectedIds].sort()).toEqual(["mem_alpha-tests", "mem_house-style"]);
    const shared = after.packet.knowledge.find((item: ContextItem) => item.id === "mem_house-style");
    expect(shared.project).toBe("_shared");

    await writeFile(join(root, ".kxm/memory/alpha-tests.md"), "---\nschema: broken\n---\n");
    commitAll(root, "Break alpha-tests");
    const broken = await packet("alpha", key, request);
    expect(broken.audit.selectedIds.filter((id: string) => id.startsWith("mem_"))).toEqual([
      "mem_house-style",
    ]);
    expect(broken.packet.unresolvedGaps).toEqual([
      "memory_invalid:.kxm/memory/alpha-tests.md: schema: must be kxm.memory.v1",
    ]);
    expect(hub.logs.some((line) => line.event === "memory_invalid")).toBe(true);
  });

  test("a checkout inside a .kxm folder is refused", async () => {
    await hub.start();
    const response = await call(hub.app, "POST", "/v1/projects", ADMIN_TOKEN, {
      id: "alpha",
      checkoutRoot: join(hub.dir, "repo", ".kxm", "state"),
    });
    expect([response.statusCode, response.json().code]).toEqual([400, "invalid_request"]);
  });
});

describe("episodes, journal filters and the indexes", () => {
  test("a finished run's episode reaches a repro packet, and episodes list newest first, paged", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo");
    const runs: string[] = [];
    for (const outcome of ["failed", "succeeded", "failed"] as const) {
      const runId = await startRun(hub.app, "demo");
      hub.clock.advance(60_000);
      const finished = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/finish`, key, {
        outcome,
        ...(outcome === "failed"
          ? { failingStep: "integration-tests", lessons: ["Integration tests flake on CI"] }
          : {}),
      });
      expect(finished.statusCode).toBe(200);
      expect(finished.json().episode.kind).toBe("episode");
      runs.push(runId);
    }
    const repro = await packet("demo", key, { role: "repro", task: "integration tests failed" });
    expect(repro.packet.episodes.length).toBe(3);

    const first = await call(hub.app, "GET", "/v1/projects/demo/episodes?limit=2", key);
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.items).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = (
      await call(
        hub.app,
        "GET",
        `/v1/projects/demo/episodes?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`,
        key,
      )
    ).json();
    expect(page2.items).toHaveLength(1);
    expect(page2.nextCursor).toBeUndefined();
    const order = [...page1.items, ...page2.items].map(
      (item: ContextItem) => item.observedAt ?? item.validFrom,
    );
    expect(order).toEqual([...order].sort().reverse());
    const one = (await call(hub.app, "GET", `/v1/projects/demo/episodes?runId=${runs[0]}`, key)).json();
    expect(one.items).toHaveLength(1);
  });

  test("runId and stage filter the journal items of a packet (behaviour 9.3)", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo");
    const runA = await startRun(hub.app, "demo");
    const runB = await startRun(hub.app, "demo");
    const entries: Record<string, string> = {};
    for (const [run, stage, name] of [
      [runA, "build", "a-build"],
      [runA, "verify", "a-verify"],
      [runB, "build", "b-build"],
    ] as const) {
      hub.clock.advance(1_000);
      const response = await call(hub.app, "POST", `/v1/projects/demo/runs/${run}/journal`, key, {
        category: "observation",
        summary: `The ${stage} stage of run ${name} took long`,
        stage,
      });
      expect(response.statusCode).toBe(201);
      entries[name] = `journal_${response.json().entry.id}`;
    }
    const selected = async (filter: { runId?: string; stage?: string }) =>
      (
        await packet("demo", key, { role: "repro", task: "stage took long", ...filter })
      ).audit.selectedIds.sort();
    expect(await selected({})).toEqual(Object.values(entries).sort());
    expect(await selected({ runId: runA })).toEqual([entries["a-build"], entries["a-verify"]].sort());
    expect(await selected({ stage: "build" })).toEqual([entries["a-build"], entries["b-build"]].sort());
    expect(await selected({ runId: runA, stage: "verify" })).toEqual([entries["a-verify"]]);
    expect(await selected({ runId: "run_none" })).toEqual([]);

    const filtered = await packet("demo", key, {
      role: "repro",
      task: "stage took long",
      runId: runA,
      stage: "build",
    });
    const { pool, contradictionIds } = await plainPool(hub.store, "demo", "repro", {
      runId: runA,
      stage: "build",
    });
    expect(filtered).toEqual(
      assemblePacket(
        pool,
        { project: "demo", role: "repro", task: "stage took long", runId: runA, stage: "build" },
        {
          contradictionIds,
        },
      ),
    );
  });

  test("after a sequence of writes, every role's packet and recall equal the plain arbiter over the same records", async () => {
    await hub.start();
    const root = await checkoutWith("demo", "demo-tests", "demo-release");
    const key = await projectWithAgent(hub.app, "demo", "agent-planner", root);
    const other = await projectWithAgent(hub.app, "other");
    const summaries = [
      "Releases are cut from the main branch",
      "Releases are cut from the release branch",
      "Deploys happen on Tuesday after the test suite passes",
    ];
    // Warm every index before the writes, so the writes are applied to live indexes, not read at load.
    for (const role of [...NAMED_ROLES, "custom-role"]) await packet("demo", key, { role, task: "warm" });
    await call(hub.app, "POST", "/v1/projects/other/state/proposals", other, GUIDE_PROPOSAL);

    const proposals: string[] = [];
    for (const [i, summary] of summaries.entries()) {
      hub.clock.advance(1_000);
      const response = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
        ...GUIDE_PROPOSAL,
        key: i < 2 ? "release.branch" : "deploy.day",
        summary,
      });
      proposals.push(response.json().proposalId);
    }
    const runId = await startRun(hub.app, "demo");
    const categories = [
      "plan",
      "decision",
      "contradiction",
      "error",
      "lesson",
      "observation",
      "hypothesis",
      "experiment",
      "state-change",
      "skill-candidate",
    ];
    for (const [i, category] of categories.entries()) {
      hub.clock.advance(1_000);
      const response = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
        category,
        summary: `Journal ${category}: the release branch test suite ${i}`,
        stage: i % 2 === 0 ? "build" : "verify",
        evidenceRefs: [`log:${i}`],
      });
      expect(response.statusCode, response.body).toBe(201);
    }
    hub.clock.advance(1_000);
    for (const id of [proposals[0], proposals[2]]) {
      const promoted = await call(
        hub.app,
        "POST",
        `/v1/projects/demo/state/proposals/${id}/promote`,
        ADMIN_TOKEN,
        {
          evidenceRefs: ["review:1"],
        },
      );
      expect(promoted.statusCode).toBe(200);
    }
    hub.clock.advance(1_000);
    await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/finish`, key, {
      outcome: "failed",
      lessons: ["x"],
    });
    hub.clock.advance(1_000);
    await call(hub.app, "POST", `/v1/projects/demo/state/proposals/${proposals[1]}/promote`, ADMIN_TOKEN, {
      evidenceRefs: ["review:2"],
    });
    hub.clock.advance(1_000);

    for (const role of [...NAMED_ROLES, "custom-role"]) {
      for (const task of ["release branch test suite", "", "Which branch do we release from?"]) {
        const request = { role, task };
        const { pool, contradictionIds } = await plainPool(hub.store, "demo", role);
        expect(await packet("demo", key, request)).toEqual(
          await served(
            hub.store,
            "demo",
            assemblePacket(pool, { ...request, project: "demo" }, { contradictionIds }),
          ),
        );
        const all = {
          ...request,
          includeKinds: ["state", "knowledge", "evidence", "episode", "skill"] as const,
        };
        expect(await packet("demo", key, { ...all, includeKinds: [...all.includeKinds] })).toEqual(
          await served(
            hub.store,
            "demo",
            assemblePacket(
              pool,
              { ...all, includeKinds: [...all.includeKinds], project: "demo" },
              { contradictionIds },
            ),
          ),
        );
      }
    }
    for (const query of ["release branch", "", "Journal", "suite", "nothing matches this"]) {
      const response = await call(hub.app, "POST", "/v1/projects/demo/recall", key, { query, limit: 100 });
      expect(response.json()).toEqual(
        recall(await recallPool(hub.store, "demo"), { project: "demo", query, limit: 100 }),
      );
    }
    // The open contradiction (a journal contradiction entry) is in the planner's contradictions section.
    const planner = await packet("demo", key, { role: "planner", task: "release" });
    expect(planner.packet.contradictions.length).toBe(1);
    const contradictions = (await call(hub.app, "GET", "/v1/projects/demo/contradictions", key)).json();
    expect(contradictions.journal).toEqual([planner.packet.contradictions[0].id]);
  });

  test("competing proposals are open contradictions in every packet", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo");
    const ids: string[] = [];
    for (const summary of ["Releases are cut from main", "Releases are cut from develop"]) {
      const response = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
        ...GUIDE_PROPOSAL,
        summary,
      });
      ids.push(response.json().proposalId);
    }
    for (const role of ["planner", "critic", "implementer"]) {
      const assembled = await packet("demo", key, { role, task: "anything" });
      expect(assembled.packet.contradictions.map((item: ContextItem) => item.id).sort()).toEqual(ids.sort());
    }
    const contradictions = (await call(hub.app, "GET", "/v1/projects/demo/contradictions", key)).json();
    expect(contradictions.state).toEqual([{ stateKey: "release.branch", itemIds: ids.sort() }]);
  });

  test("explain answers the lineage and evidence of an item, and whether it exists", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, GUIDE_PROPOSAL);
    const proposalId = proposed.json().proposalId;
    hub.clock.advance(1_000);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposalId}/promote`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:pr-12"],
      },
    );
    const stateId = promoted.json().state.id;
    const explained = await call(hub.app, "GET", `/v1/projects/demo/items/${stateId}/explain`, ADMIN_TOKEN);
    expect(explained.json()).toMatchObject({
      id: stateId,
      exists: true,
      item: { kind: "state", sourceType: "peer", sourceRef: "promoted-by:kxm-admin" },
      evidenceRefs: ["pr:12", "review:pr-12"],
    });
    // The consumed proposal is no longer live, but it is still a retained record.
    expect(
      (await call(hub.app, "GET", `/v1/projects/demo/items/${proposalId}/explain`, ADMIN_TOKEN)).json()
        .exists,
    ).toBe(true);
    const missing = await call(hub.app, "GET", "/v1/projects/demo/items/state_missing/explain", ADMIN_TOKEN);
    expect(missing.json()).toEqual({
      id: "state_missing",
      exists: false,
      lineage: [],
      lineageDepth: 0,
      evidenceRefs: [],
    });
  });
});
