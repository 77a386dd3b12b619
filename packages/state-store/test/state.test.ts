import { type ContextItem, compareCodeUnits } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import type { KxmStore } from "../src/index.js";
import { rawQuery } from "./support/raw-sql.js";
import { guideProposal, proposeAndPromote } from "./support/state-fixtures.js";
import { at, open, T0, tempStore } from "./support/temp-store.js";

async function demoStore() {
  const opened = await tempStore();
  await opened.store.createProject({ id: "demo" }, at(T0));
  await opened.store.createProject({ id: "other" }, at(T0));
  return opened;
}

const refs = (n: number) => Array.from({ length: n }, (_, i) => `ref:${i}`);

describe("the guide's flow", () => {
  test("an agent proposes with peer origin; an admin promotes: current, evidence, peer, both refs", async () => {
    const { store } = await demoStore();
    const proposal = await store.proposeState(guideProposal(), at(T0, 1000));
    expect(proposal).toEqual({
      id: proposal.id,
      kind: "state",
      project: "demo",
      summary: "Releases are cut from the main branch",
      provenance: { sourceType: "peer", sourceRef: "proposed-by:agent-1" },
      authority: "evidence",
      confidence: "verified",
      status: "proposed",
      stateKey: "release.branch",
      validFrom: "2026-09-01T00:00:01.000Z",
      evidenceRefs: ["pr:12"],
    });
    expect(proposal.id).toMatch(/^state_[0-9a-f]{24}$/);

    const { state, superseded, consumed } = await store.promoteState(
      { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:pr-12"] },
      at(T0, 2000),
    );
    const { status, authority, evidenceRefs } = state;
    expect({ status, authority, origin: state.provenance.sourceType, evidenceRefs }).toEqual({
      status: "current",
      authority: "evidence",
      origin: "peer",
      evidenceRefs: ["pr:12", "review:pr-12"],
    });
    expect(state.id).not.toBe(proposal.id);
    expect(state.provenance.sourceRef).toBe("promoted-by:kxm-admin");
    expect(state.validFrom).toBe("2026-09-01T00:00:02.000Z");
    expect(state).not.toHaveProperty("supersedes");
    expect(superseded).toEqual([]);
    expect(consumed).toEqual({ ...proposal, status: "rejected", validUntil: "2026-09-01T00:00:02.000Z" });

    expect(await store.getItem("demo", state.id)).toEqual(state);
    expect(await store.getItem("demo", proposal.id)).toEqual(consumed);
    expect(await store.currentState("demo", "release.branch", at(T0, 3000))).toEqual([state]);
  });

  test("a second promotion supersedes the first: validUntil = the successor's validFrom, ids unioned", async () => {
    const { store } = await demoStore();
    const first = await proposeAndPromote(store, "release.branch", "From main", at(T0, 1000));
    const proposal = await store.proposeState(
      guideProposal({ summary: "From release/*", supersedes: ["mem_old-branch-fact"] }),
      at(T0, 1500),
    );
    const second = await store.promoteState(
      {
        project: "demo",
        proposalId: proposal.id,
        promotedBy: "kxm-admin",
        evidenceRefs: ["review:2", "pr:12"],
      },
      at(T0, 2000),
    );
    expect(second.superseded).toEqual([
      { ...first.state, status: "superseded", validUntil: "2026-09-01T00:00:02.000Z" },
    ]);
    expect(second.state.supersedes).toEqual([first.state.id, "mem_old-branch-fact"].sort());
    expect(second.state.evidenceRefs).toEqual(["pr:12", "review:2"]);
    expect(await store.getItem("demo", first.state.id)).toEqual(second.superseded[0]);
  });

  test("a human (admin) proposal may claim policy and keeps human origin when promoted", async () => {
    const { store } = await demoStore();
    const proposal = await store.proposeState(
      guideProposal({ origin: "human", authority: "policy", proposedBy: "kxm-admin" }),
      at(T0),
    );
    const { state } = await store.promoteState(
      { project: "demo", proposalId: proposal.id, promotedBy: "operator-2", evidenceRefs: ["review:1"] },
      at(T0, 1),
    );
    expect([state.provenance.sourceType, state.authority]).toEqual(["human", "policy"]);
  });

  test("secrets in a proposal summary are redacted before they are stored", async () => {
    const { store } = await demoStore();
    const token = `ghp_${"a1B2".repeat(9)}`;
    const proposal = await store.proposeState(
      guideProposal({ summary: `Use token ${token} for releases` }),
      at(T0),
    );
    expect(proposal.summary).toBe("Use token [redacted] for releases");
    expect(await store.getItem("demo", proposal.id)).toEqual(proposal);
  });
});

describe("refusals", () => {
  test("proposals: evidence count, duplicates, origin, ceiling, malformed fields, unknown project", async () => {
    const { store } = await demoStore();
    const cases: Array<[Parameters<typeof guideProposal>[0], string, number]> = [
      [{ evidenceRefs: [] }, "invalid_state_proposal", 400],
      [{ evidenceRefs: refs(33) }, "invalid_state_proposal", 400],
      [{ evidenceRefs: ["pr:1", "pr:1"] }, "invalid_state_proposal", 400],
      [{ evidenceRefs: [""] }, "invalid_state_proposal", 400],
      [{ origin: "tool" as "peer" }, "invalid_state_proposal", 400],
      [{ summary: "   " }, "invalid_state_proposal", 400],
      [{ key: "" }, "invalid_state_proposal", 400],
      [{ proposedBy: "" }, "invalid_state_proposal", 400],
      [{ authority: "instruction" }, "context_authority_violation", 403],
      [{ authority: "policy" }, "context_authority_violation", 403],
      [{ summary: "x".repeat(4001) }, "context_limits_exceeded", 400],
      [{ project: "missing" }, "not_found", 404],
    ];
    for (const [overrides, code, status] of cases) {
      await expect(
        store.proposeState(guideProposal(overrides), at(T0)),
        JSON.stringify(overrides),
      ).rejects.toMatchObject({ code, status });
    }
    expect(await store.liveItems("demo")).toEqual([]);
  });

  test("32 evidence refs are accepted; control-plane keys on the input never reach the item", async () => {
    const { store } = await demoStore();
    const input = { ...guideProposal({ evidenceRefs: refs(32) }), permissions: ["deploy"], token: "x" };
    const proposal = await store.proposeState(input, at(T0));
    expect(proposal.evidenceRefs).toHaveLength(32);
    expect(Object.keys(proposal)).not.toContain("permissions");
    expect(Object.keys(proposal)).not.toContain("token");
  });

  test("promotions: 404 unknown or another project's proposal, 400 consumed, 403 author, 400 no evidence", async () => {
    const { store } = await demoStore();
    const proposal = await store.proposeState(guideProposal(), at(T0));
    const promote = (overrides: Record<string, unknown>) =>
      store.promoteState(
        {
          project: "demo",
          proposalId: proposal.id,
          promotedBy: "kxm-admin",
          evidenceRefs: ["review:1"],
          ...overrides,
        },
        at(T0, 10),
      );
    await expect(promote({ proposalId: "state_000000000000000000000000" })).rejects.toMatchObject({
      code: "state_proposal_not_found",
      status: 404,
    });
    await expect(promote({ project: "other" })).rejects.toMatchObject({
      code: "state_proposal_not_found",
      status: 404,
    });
    await expect(promote({ project: "missing" })).rejects.toMatchObject({ code: "state_proposal_not_found" });
    await expect(promote({ promotedBy: "agent-1" })).rejects.toMatchObject({
      code: "state_promotion_invalid",
      status: 403,
    });
    await expect(promote({ evidenceRefs: [] })).rejects.toMatchObject({
      code: "invalid_state_proposal",
      status: 400,
    });
    await expect(promote({ evidenceRefs: refs(33) })).rejects.toMatchObject({
      code: "invalid_state_proposal",
    });
    // Nothing above changed anything.
    expect(await store.stateHistory("demo", "release.branch")).toEqual([proposal]);

    const { state } = await promote({});
    await expect(promote({})).rejects.toMatchObject({ code: "state_proposal_not_promotable", status: 400 });
    await expect(promote({ proposalId: state.id })).rejects.toMatchObject({
      code: "state_proposal_not_promotable",
    });
  });

  test("an episode id is not a proposal", async () => {
    const { store } = await demoStore();
    const run = await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    await store.finishRun({ project: "demo", runId: run.id, outcome: "succeeded" }, at(T0, 1));
    await expect(
      store.promoteState(
        { project: "demo", proposalId: "episode_r1", promotedBy: "kxm-admin", evidenceRefs: ["x"] },
        at(T0, 2),
      ),
    ).rejects.toMatchObject({ code: "state_proposal_not_found" });
  });
});

describe("reading state as of a time", () => {
  test("half-open windows: before, at and between promotions", async () => {
    const { store } = await demoStore();
    const a = await proposeAndPromote(store, "k", "A", at(T0, 10_000));
    const b = await proposeAndPromote(store, "k", "B", at(T0, 20_000));
    const c = await proposeAndPromote(store, "k", "C", at(T0, 30_000));
    const read = async (ms: number) =>
      (await store.currentState("demo", "k", at(T0, ms))).map((item) => `${item.summary}:${item.status}`);
    expect(await read(0)).toEqual([]);
    expect(await read(9_999)).toEqual([]);
    expect(await read(10_000)).toEqual(["A:superseded"]);
    expect(await read(15_000)).toEqual(["A:superseded"]);
    expect(await read(19_999)).toEqual(["A:superseded"]);
    expect(await read(20_000)).toEqual(["B:superseded"]);
    expect(await read(29_999)).toEqual(["B:superseded"]);
    expect(await read(30_000)).toEqual(["C:current"]);
    expect(await read(10 ** 12)).toEqual(["C:current"]);
    expect(await store.currentState("demo", "other-key", at(T0, 30_000))).toEqual([]);
    expect(await store.currentState("other", "k", at(T0, 30_000))).toEqual([]);
    expect(c.state.supersedes).toEqual([b.state.id]);
    expect(b.state.supersedes).toEqual([a.state.id]);
  });

  test("an invalid as-of time is invalid_request", async () => {
    const { store } = await demoStore();
    await expect(store.currentState("demo", "k", new Date("nope"))).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  test("promotions in one millisecond still give non-empty, adjacent windows", async () => {
    const { store } = await demoStore();
    const when = at(T0, 5_000);
    const promoteNow = async (summary: string) => {
      const proposal = await store.proposeState(guideProposal({ key: "k", summary }), when);
      return store.promoteState(
        { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
        when,
      );
    };
    const first = await promoteNow("A");
    const second = await promoteNow("B");
    // The proposal was made at 5 000 ms, so its promotion takes effect 1 ms later; the next 1 ms after that.
    expect(first.consumed.validUntil).toBe("2026-09-01T00:00:05.001Z");
    expect(first.state.validFrom).toBe("2026-09-01T00:00:05.001Z");
    expect(second.state.validFrom).toBe("2026-09-01T00:00:05.002Z");
    expect(second.superseded[0]?.validUntil).toBe(second.state.validFrom);
    expect((await store.currentState("demo", "k", at(T0, 5_001))).map((item) => item.summary)).toEqual(["A"]);
  });

  test("a clock that stepped back never opens a window that ends before it starts", async () => {
    const { store } = await demoStore();
    const first = await proposeAndPromote(store, "k", "A", at(T0, 10_000));
    const second = await proposeAndPromote(store, "k", "B", at(T0, 9_000));
    expect(second.state.validFrom).toBe("2026-09-01T00:00:10.001Z");
    expect(second.superseded).toEqual([
      { ...first.state, status: "superseded", validUntil: second.state.validFrom },
    ]);
  });
});

describe("history, contradictions and the pool", () => {
  test("history holds every retained item of the key, by validFrom then id", async () => {
    const { store } = await demoStore();
    const a = await proposeAndPromote(store, "k", "A", at(T0, 1000));
    const pending = await store.proposeState(
      guideProposal({ key: "k", summary: "P", proposedBy: "agent-2" }),
      at(T0, 1400),
    );
    const b = await proposeAndPromote(store, "k", "B", at(T0, 2000));
    const history = await store.stateHistory("demo", "k");
    expect(history.map((item) => [item.summary, item.status, item.validFrom, item.validUntil])).toEqual([
      ["A", "rejected", "2026-09-01T00:00:00.500Z", "2026-09-01T00:00:01.000Z"],
      ["A", "superseded", "2026-09-01T00:00:01.000Z", "2026-09-01T00:00:02.000Z"],
      ["P", "proposed", "2026-09-01T00:00:01.400Z", undefined],
      ["B", "rejected", "2026-09-01T00:00:01.500Z", "2026-09-01T00:00:02.000Z"],
      ["B", "current", "2026-09-01T00:00:02.000Z", undefined],
    ]);
    expect(history).toContainEqual(b.state);
    expect(history).toContainEqual(pending);
    expect(history).toContainEqual(a.consumed);
  });

  test("two pending proposals for one key are an open contradiction; one is not", async () => {
    const { store } = await demoStore();
    const first = await store.proposeState(guideProposal(), at(T0));
    expect(await store.openContradictions("demo")).toEqual([]);
    const second = await store.proposeState(guideProposal({ summary: "From release/*" }), at(T0, 1));
    await store.proposeState(guideProposal({ key: "other.key" }), at(T0, 2));
    expect(await store.openContradictions("demo")).toEqual([
      { stateKey: "release.branch", itemIds: [first.id, second.id].sort() },
    ]);
    expect(await store.openContradictions("other")).toEqual([]);
    await store.promoteState(
      { project: "demo", proposalId: first.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
      at(T0, 3),
    );
    expect(await store.openContradictions("demo")).toEqual([]);
  });

  test("two current items for one key are an open contradiction, and both are read as current", async () => {
    const { store, file } = await demoStore();
    const { state } = await proposeAndPromote(store, "release.branch", "From main", at(T0, 1000));
    // A state the store never writes itself, made directly in the table.
    const twin = { ...state, id: "state_twin", summary: "From trunk" };
    await rawQuery(
      file,
      "insert into items (project, id, kind, status, state_key, valid_from, created_at, body) values (?, ?, ?, ?, ?, ?, ?, ?)",
      [
        "demo",
        twin.id,
        "state",
        "current",
        twin.stateKey,
        twin.validFrom,
        twin.validFrom,
        JSON.stringify(twin),
      ],
    );
    expect(await store.openContradictions("demo")).toEqual([
      { stateKey: "release.branch", itemIds: [state.id, twin.id].sort() },
    ]);
    expect((await store.currentState("demo", "release.branch", at(T0, 5000))).length).toBe(2);
    // Promoting again resolves it: both are superseded.
    const next = await proposeAndPromote(store, "release.branch", "From release/*", at(T0, 6000));
    expect(next.superseded.map((item) => item.id)).toEqual([state.id, twin.id].sort());
    expect(await store.openContradictions("demo")).toEqual([]);
  });

  test("liveItems lists every stored item of the project by id; getItem is scoped to the project", async () => {
    const { store } = await demoStore();
    const promoted = await proposeAndPromote(store, "k", "A", at(T0));
    const pending = await store.proposeState(guideProposal(), at(T0, 1));
    const run = await store.startRun({ project: "demo", workflow: "ci" }, at(T0, 2));
    const { episode } = await store.finishRun(
      { project: "demo", runId: run.id, outcome: "succeeded" },
      at(T0, 3),
    );
    await proposeAndPromote(store, "k", "other project", at(T0, 4), "other");
    const live = await store.liveItems("demo");
    const expected = [promoted.state, promoted.consumed, pending, episode].sort((x, y) =>
      compareCodeUnits(x.id, y.id),
    );
    expect(live).toEqual(expected);
    expect(await store.getItem("other", promoted.state.id)).toBeUndefined();
    expect(await store.getItem("demo", "missing")).toBeUndefined();
  });
});

describe("promotions from two connections", () => {
  test("promoting two proposals of one key at once leaves exactly one current value, every time", async () => {
    const { store, file } = await demoStore();
    const second = await open(file);
    const when = at(T0, 10_000);
    const promote = (writer: KxmStore, proposal: ContextItem) =>
      writer.promoteState(
        { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
        when,
      );
    let previous: ContextItem | undefined;
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all(
        ["agent-1", "agent-2"].map((proposedBy) =>
          store.proposeState(guideProposal({ summary: `Round ${round} by ${proposedBy}`, proposedBy }), when),
        ),
      );
      // Each connection promotes its own proposal at the same moment: the store runs them one after the other,
      // so both succeed and the later one supersedes the earlier.
      const [one, two] = await Promise.all([promote(store, a!), promote(second, b!)]);
      const [earlier, later] = one.state.validFrom! < two.state.validFrom! ? [one, two] : [two, one];
      expect(earlier.superseded.map((item) => item.id)).toEqual(previous === undefined ? [] : [previous.id]);
      expect(later.superseded).toEqual([
        { ...earlier.state, status: "superseded", validUntil: later.state.validFrom },
      ]);
      const history = await store.stateHistory("demo", "release.branch");
      expect(history.filter((item) => item.status === "current")).toEqual([later.state]);
      expect(await second.currentState("demo", "release.branch", at(T0, 10 ** 9))).toEqual([later.state]);
      expect(await store.openContradictions("demo")).toEqual([]);
      previous = later.state;
    }
    const values = await store.stateHistory("demo", "release.branch");
    expect(values.filter((item) => item.status === "superseded")).toHaveLength(9);
  });
});
