import { createHash } from "node:crypto";
import { isKxmError } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { contentSha256 } from "../src/index.js";
import { rawQuery } from "./support/raw-sql.js";
import { guideProposal, proposeAndPromote } from "./support/state-fixtures.js";
import { at, ENGINE, open, T0, tempStore } from "./support/temp-store.js";

// Revocations and tombstones in the store (decision 0017): records kept with who, when and why, lifted but never
// deleted, never purged, and a tombstone refusing its content in every process.

const DAY = 86_400_000;

async function demoStore() {
  const opened = await tempStore();
  await opened.store.createProject({ id: "demo" }, at(T0));
  await opened.store.createProject({ id: "other" }, at(T0));
  return opened;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isKxmError(error) ? error.code : `not a KxmError: ${String(error)}`;
  }
}

describe("the content hash", () => {
  test("is the SHA-256 of the summary's UTF-8 text, as sha256sum gives it", () => {
    const text = "Déploiements le mardi";
    expect(contentSha256(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex"));
    expect(contentSha256(text)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("revocations", () => {
  test("are recorded, listed per project, lifted with who, when and why, and appended to the feed", async () => {
    const { store } = await demoStore();
    const head = await store.changeHead();
    const revocation = await store.revoke(
      { project: "demo", target: "evidence", value: "pr:12", reason: " bad review ", revokedBy: "kxm-admin" },
      at(T0, 1000),
    );
    expect(revocation).toEqual({
      id: expect.stringMatching(/^rev_[0-9a-f]{24}$/),
      project: "demo",
      target: "evidence",
      value: "pr:12",
      reason: "bad review",
      revokedBy: "kxm-admin",
      revokedAt: at(T0, 1000).toISOString(),
    });
    const feed = await store.changesSince(head);
    expect(feed.changes.map((change) => [change.project, change.kind])).toEqual([["demo", "project"]]);
    expect(await store.listRevocations("other")).toEqual([]);
    expect((await store.withholdRules("demo")).revocations).toEqual([revocation]);

    expect(
      await codeOf(
        store.liftRevocation(
          { project: "other", id: revocation.id, reason: "x", liftedBy: "kxm-admin" },
          at(T0, 2000),
        ),
      ),
    ).toBe("not_found");
    const lifted = await store.liftRevocation(
      { project: "demo", id: revocation.id, reason: "fine", liftedBy: "operator:alice" },
      at(T0, 2000),
    );
    expect(lifted).toEqual({
      ...revocation,
      liftedBy: "operator:alice",
      liftedAt: at(T0, 2000).toISOString(),
      liftReason: "fine",
    });
    expect(await store.listRevocations("demo")).toEqual([lifted]);
    expect((await store.withholdRules("demo")).revocations).toEqual([]);
    expect(
      await codeOf(
        store.liftRevocation(
          { project: "demo", id: revocation.id, reason: "again", liftedBy: "kxm-admin" },
          at(T0, 3000),
        ),
      ),
    ).toBe("invalid_request");
  });

  test("refuses an unknown target, an unknown project and a reason over 500 characters", async () => {
    const { store } = await demoStore();
    const input = {
      project: "demo",
      target: "evidence",
      value: "pr:1",
      reason: "r",
      revokedBy: "kxm-admin",
    } as const;
    expect(await codeOf(store.revoke({ ...input, target: "everything" as "evidence" }, at(T0)))).toBe(
      "invalid_request",
    );
    expect(await codeOf(store.revoke({ ...input, project: "ghost" }, at(T0)))).toBe("not_found");
    expect(await codeOf(store.revoke({ ...input, reason: "r".repeat(501) }, at(T0)))).toBe(
      "context_limits_exceeded",
    );
  });

  test("an agent revocation names its proposals and the values promoted from them", async () => {
    const { store } = await demoStore();
    const promoted = await proposeAndPromote(store, "k", "A value", at(T0, 1000));
    await store.proposeState(
      guideProposal({ key: "j", summary: "Other", proposedBy: "agent-2" }),
      at(T0, 2000),
    );
    await store.revoke(
      { project: "demo", target: "agent", value: "agent-1", reason: "leaked key", revokedBy: "kxm-admin" },
      at(T0, 3000),
    );
    const rules = await store.withholdRules("demo");
    expect([...rules.agentItems.entries()].sort()).toEqual(
      [
        [promoted.consumed.id, "agent-1"],
        [promoted.state.id, "agent-1"],
      ].sort(),
    );
    // A later promotion of the revoked agent's proposal asks every pool to rebuild, so it learns the new id.
    const proposal = await store.proposeState(guideProposal({ key: "k", summary: "B value" }), at(T0, 4000));
    const head = await store.changeHead();
    await store.promoteState(
      { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["r"] },
      at(T0, 5000),
    );
    const kinds = (await store.changesSince(head)).changes.map((change) => change.kind);
    expect(kinds).toEqual(["items", "project"]);
  });

  test("a promoted value stays the revoked agent's after retention purges its consumed proposal", async () => {
    const { store } = await demoStore();
    const promoted = await proposeAndPromote(store, "k", "A value", at(T0, 1000));
    await store.revoke(
      { project: "demo", target: "agent", value: "agent-1", reason: "leaked key", revokedBy: "kxm-admin" },
      at(T0, 2000),
    );
    // The consumed proposal closed at 1 000 ms; a purge 8 days on with a 7-day period removes it.
    expect(await store.purge(at(T0, 8 * 86_400_000), 7)).toMatchObject({ items: 1 });
    expect(await store.getItem("demo", promoted.consumed.id)).toBeUndefined();
    expect([...(await store.withholdRules("demo")).agentItems.entries()]).toEqual([
      [promoted.state.id, "agent-1"],
    ]);
  });
});

describe("tombstones", () => {
  test("forgetting deletes every stored copy, keeps the hash, and refuses the content until lifted", async () => {
    const { store, file } = await demoStore();
    const promoted = await proposeAndPromote(store, "k", "Secret plan", at(T0, 1000));
    const other = await store.proposeState(
      guideProposal({ project: "other", key: "k", summary: "Secret plan" }),
      at(T0, 1500),
    );
    const { tombstone, deleted } = await store.forget(
      { project: "demo", itemId: promoted.state.id, reason: "personal", forgottenBy: "kxm-admin" },
      at(T0, 2000),
    );
    expect(deleted).toEqual([promoted.consumed.id, promoted.state.id].sort());
    expect(tombstone).toEqual({
      id: expect.stringMatching(/^tomb_[0-9a-f]{24}$/),
      project: "demo",
      itemId: promoted.state.id,
      kind: "item",
      contentSha256: contentSha256("Secret plan"),
      reason: "personal",
      forgottenBy: "kxm-admin",
      forgottenAt: at(T0, 2000).toISOString(),
    });
    expect(await store.liveItems("demo")).toEqual([]);
    expect(await store.getItem("other", other.id)).toEqual(other);

    // Every write path that creates content, in another connection on the same file too.
    const second = await open(file);
    try {
      for (const writer of [store, second]) {
        expect(
          await codeOf(
            writer.proposeState(guideProposal({ key: "k2", summary: "  Secret plan " }), at(T0, 3000)),
          ),
        ).toBe("content_forgotten");
        const run = await writer.startRun({ project: "demo", workflow: "ci" }, at(T0, 3000));
        expect(
          await codeOf(
            writer.appendJournal(
              { project: "demo", runId: run.id, category: "observation", summary: "Secret plan" },
              at(T0, 3000),
            ),
          ),
        ).toBe("content_forgotten");
      }
    } finally {
      await second.close();
    }

    // Retention never purges a tombstone, active or lifted, however old.
    await store.purge(at(T0, 1000 * DAY), 0);
    expect(await store.listTombstones("demo")).toEqual([tombstone]);
    const lifted = await store.liftTombstone(
      { project: "demo", id: tombstone.id, reason: "consent", liftedBy: "operator:bob" },
      at(T0, 1001 * DAY),
    );
    expect(lifted).toMatchObject({ liftedBy: "operator:bob", liftReason: "consent" });
    for (const [project, code] of [
      ["demo", "invalid_request"],
      ["other", "not_found"],
    ]) {
      const again = { project: project!, id: tombstone.id, reason: "again", liftedBy: "kxm-admin" };
      expect(await codeOf(store.liftTombstone(again, at(T0, 1002 * DAY)))).toBe(code);
    }
    await store.purge(at(T0, 2000 * DAY), 0);
    expect(await store.listTombstones("demo")).toEqual([lifted]);
    expect((await store.withholdRules("demo")).tombstones).toEqual([]);
    await store.proposeState(guideProposal({ key: "k2", summary: "Secret plan" }), at(T0, 2001 * DAY));
  });

  test("forgotten content is left in no row: not in items, journal entries or record versions", async () => {
    const { store, file } = await demoStore();
    const promoted = await proposeAndPromote(store, "k", "Secret plan", at(T0, 1000));
    await proposeAndPromote(store, "j", "Public plan", at(T0, 1100));
    await store.forget(
      { project: "demo", itemId: promoted.consumed.id, reason: "personal", forgottenBy: "kxm-admin" },
      at(T0, 2000),
    );
    const holding = async (text: string) => {
      const counts: Record<string, number> = {};
      for (const table of ["items", "journal_entries", "record_versions"]) {
        const [row] = await rawQuery(file, `select count(*) as n from ${table} where body like ?`, [
          `%${text}%`,
        ]);
        counts[table] = Number(row?.n);
      }
      return counts;
    };
    expect(await holding("Secret plan")).toEqual({ items: 0, journal_entries: 0, record_versions: 0 });
    // The other value's rows and versions stay: the query finds content where there is some.
    expect(await holding("Public plan")).toEqual({ items: 2, journal_entries: 0, record_versions: 3 });
  });

  test.skipIf(ENGINE !== "postgres")(
    "on PostgreSQL forgetting vacuums: no tuple of the tables, live or dead, still holds the content",
    async () => {
      const { store, file } = await demoStore();
      const promoted = await proposeAndPromote(store, "k", "Secret plan", at(T0, 1000));
      await rawQuery(file, "create extension if not exists pageinspect");
      // Every tuple on every page, dead ones too: the content leaves the tables only once VACUUM frees them.
      const tuples = async (text: string) => {
        const counts: Record<string, number> = {};
        for (const table of ["items", "journal_entries", "record_versions"]) {
          const [row] = await rawQuery(
            file,
            `select count(*) as n from generate_series(0, pg_relation_size('${table}') / current_setting('block_size')::int - 1) as page,
              heap_page_items(get_raw_page('${table}', page::int)) as t
            where t.t_data is not null and position(convert_to(?, 'UTF8') in t.t_data) > 0`,
            [text],
          );
          counts[table] = Number(row?.n);
        }
        return counts;
      };
      // Three in items: the proposal's row as it was before its promotion rewrote it is dead but still there.
      expect(await tuples("Secret plan")).toEqual({ items: 3, journal_entries: 0, record_versions: 3 });
      await store.forget(
        { project: "demo", itemId: promoted.state.id, reason: "personal", forgottenBy: "kxm-admin" },
        at(T0, 2000),
      );
      expect(await tuples("Secret plan")).toEqual({ items: 0, journal_entries: 0, record_versions: 0 });
    },
  );

  // U+0000 never reaches a store (text.test.ts); a lone surrogate does, and PostgreSQL's JSON reading chokes on it.
  test("a stored summary holding a lone surrogate neither stops nor escapes forgetting", async () => {
    const { store, file } = await demoStore();
    const odd = await store.proposeState(
      guideProposal({ key: "n", summary: "lone \ud800 and \udfff here" }),
      at(T0, 1),
    );
    const plain = await store.proposeState(guideProposal({ key: "m", summary: "plain" }), at(T0, 2));
    const forget = (itemId: string, ms: number) =>
      store.forget({ project: "demo", itemId, reason: "x", forgottenBy: "kxm-admin" }, at(T0, ms));
    expect((await forget(plain.id, 3)).deleted).toEqual([plain.id]);
    expect(await store.getItem("demo", odd.id)).toEqual(odd);
    expect((await forget(odd.id, 4)).deleted).toEqual([odd.id]);
    const [left] = await rawQuery(file, "select count(*) as n from record_versions where body is not null");
    expect(Number(left?.n)).toBe(0);
  });

  test("an episode whose summary is forgotten is refused, and the run stays running", async () => {
    const { store } = await demoStore();
    const run = await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    const carrier = await store.startRun({ project: "demo", workflow: "ci" }, at(T0));
    const entry = await store.appendJournal(
      { project: "demo", runId: carrier.id, category: "observation", summary: "Run r1 of ci succeeded" },
      at(T0, 1),
    );
    const { tombstone, deleted } = await store.forget(
      { project: "demo", itemId: `journal_${entry.id}`, reason: "x", forgottenBy: "kxm-admin" },
      at(T0, 2),
    );
    expect(tombstone).toMatchObject({ kind: "journal", itemId: `journal_${entry.id}` });
    expect(deleted).toEqual([`journal_${entry.id}`]);
    expect(await store.listJournal("demo")).toEqual([]);
    expect(
      await codeOf(store.finishRun({ project: "demo", runId: run.id, outcome: "succeeded" }, at(T0, 3))),
    ).toBe("content_forgotten");
    expect((await store.getRun("demo", run.id))?.status).toBe("running");
  });

  test("an authored id is hashed from the summary given; an unknown id is not_found", async () => {
    const { store } = await demoStore();
    const { tombstone, deleted } = await store.forget(
      {
        project: "demo",
        itemId: "mem_release",
        reason: "wrong",
        forgottenBy: "kxm-admin",
        authoredSummary: "Run the tests",
      },
      at(T0),
    );
    expect(tombstone).toMatchObject({ kind: "authored", contentSha256: contentSha256("Run the tests") });
    expect(deleted).toEqual([]);
    expect(
      await codeOf(
        store.forget({ project: "demo", itemId: "state_x", reason: "r", forgottenBy: "kxm-admin" }, at(T0)),
      ),
    ).toBe("not_found");
  });
});
