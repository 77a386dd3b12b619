import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { guideProposal } from "./support/state-fixtures.js";
import { at, T0, tempStore } from "./support/temp-store.js";

/** The versions as stored in the file: seq, kind, id and the status in the body (null for a deletion marker). */
function versions(file: string) {
  const raw = new Database(file, { readonly: true });
  try {
    return raw
      .prepare("select seq, kind, record_id as id, body from record_versions order by seq, kind, record_id")
      .all()
      .map((row) => {
        const { seq, kind, id, body } = row as { seq: number; kind: string; id: string; body: string | null };
        return {
          seq,
          kind,
          id,
          status: body === null ? null : (JSON.parse(body) as { status?: string }).status,
        };
      });
  } finally {
    raw.close();
  }
}

test("proposals, promotions and journal writes each snapshot the rows they name, with their change seq", async () => {
  const { store, file } = tempStore();
  await store.createProject({ id: "demo" }, at(T0));
  const proposal = await store.proposeState(guideProposal(), at(T0, 1));
  const promotion = await store.promoteState(
    { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
    at(T0, 2),
  );
  const run = await store.startRun({ project: "demo", workflow: "build", runId: "r1" }, at(T0, 3));
  const entry = await store.appendJournal(
    { project: "demo", runId: run.id, category: "decision", summary: "Use WAL" },
    at(T0, 4),
  );
  expect(versions(file)).toEqual([
    { seq: 2, kind: "item", id: proposal.id, status: "proposed" },
    ...[
      { seq: 3, kind: "item", id: promotion.consumed.id, status: promotion.consumed.status },
      { seq: 3, kind: "item", id: promotion.state.id, status: promotion.state.status },
    ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    { seq: 5, kind: "entry", id: entry.id, status: undefined },
  ]);
});

test("forgetting clears the body of every version of each record it deletes", async () => {
  const { store, file } = tempStore();
  await store.createProject({ id: "demo" }, at(T0));
  const proposal = await store.proposeState(guideProposal(), at(T0, 1));
  await store.forget(
    { project: "demo", itemId: proposal.id, reason: "leaked", forgottenBy: "kxm-admin" },
    at(T0, 2),
  );
  expect(versions(file)).toEqual([
    { seq: 2, kind: "item", id: proposal.id, status: null },
    { seq: 3, kind: "item", id: proposal.id, status: null },
  ]);
});
