import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ContextItem } from "@kxm/contract";
import { deriveContextItem, summarizeContextItems } from "@kxm/provenance";
import { factText } from "@kxm/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ServingHub } from "../src/index.js";
import { ADMIN_TOKEN, gitCheckout, plantItems, serveLoopbackHub } from "./helpers.js";

// Revocation and forgetting (issue 20, decision 0017) against a real hub on a loopback port, with real records, a
// real git checkout with committed memory facts, and derived items in the real SQLite file.

const requireFromStore = createRequire(
  new URL("../../../packages/state-store/package.json", import.meta.url),
);
const Database = requireFromStore("better-sqlite3");

const RELEASE = "Run the release test suite before tagging";
const DEPLOY = "Deploys wait for the release test suite";
const PROPOSED = "The release test suite runs on the main branch";
const NOTES = "Release notes carry the test suite results";
const OBSERVED = "The release test suite took four minutes";

let dir: string;
let hub: ServingHub;
let agentA: string;
let agentB: string;
let betaKey: string;
/** The records of project alpha, by role in the scenario. */
const ids = {} as Record<"P1" | "S1" | "P2" | "J" | "D1" | "SUM" | "BETA", string>;

async function http(method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function ok(method: string, path: string, token: string | undefined, body?: unknown) {
  const answer = await http(method, path, token, body);
  expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(300);
  return answer.json;
}

/** What recall (an empty query lists every live item) and a planner's packet show of a project. */
async function view(project = "alpha", key = agentA, base = hub.url) {
  const recall = await fetch(`${base}/v1/projects/${project}/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "", limit: 100 }),
  }).then((response) => response.json() as Promise<{ items: { id: string }[]; unresolvedGaps: string[] }>);
  const context = await fetch(`${base}/v1/projects/${project}/context`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      role: "planner",
      task: "release test suite main branch notes results four minutes",
      includeKinds: ["state", "knowledge", "evidence"],
    }),
  }).then(
    (response) =>
      response.json() as Promise<{
        packet: { unresolvedGaps: string[] };
        audit: { selectedIds: string[]; unresolvedGaps: string[] };
      }>,
  );
  return {
    recalled: recall.items.map((item) => item.id).sort(),
    recallGaps: recall.unresolvedGaps,
    selected: [...context.audit.selectedIds].sort(),
    packetGaps: context.packet.unresolvedGaps,
    auditGaps: context.audit.unresolvedGaps,
  };
}

let baseline: Awaited<ReturnType<typeof view>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-revoke-"));
  const root = await gitCheckout(dir, "alpha", {
    ".kxm/memory/release.md": factText({
      id: "release",
      summary: JSON.stringify(RELEASE),
      provenance: "\n  sourceType: git\n  sourceRef: docs/testing.md",
      evidenceRefs: "[]",
    }),
    ".kxm/memory/deploy.md": factText({
      id: "deploy",
      summary: JSON.stringify(DEPLOY),
      provenance: "\n  sourceType: git\n  sourceRef: docs/deploy/flow.md",
      evidenceRefs: "[]",
    }),
    "README.md": "# alpha\n",
  });
  hub = await serveLoopbackHub(dir, ADMIN_TOKEN, { KXM_RATE_LIMIT: "1000000" });
  await ok("POST", "/v1/projects", ADMIN_TOKEN, { id: "alpha", checkoutRoot: root });
  await ok("POST", "/v1/projects", ADMIN_TOKEN, { id: "beta" });
  agentA = (await ok("POST", "/v1/projects/alpha/agents", ADMIN_TOKEN, { agentId: "agent-a" })).key;
  agentB = (await ok("POST", "/v1/projects/alpha/agents", ADMIN_TOKEN, { agentId: "agent-b" })).key;
  betaKey = (await ok("POST", "/v1/projects/beta/agents", ADMIN_TOKEN, { agentId: "agent-a" })).key;

  const proposal = { authority: "evidence", confidence: "verified" };
  ids.P1 = (
    await ok("POST", "/v1/projects/alpha/state/proposals", agentA, {
      ...proposal,
      key: "release.branch",
      summary: PROPOSED,
      evidenceRefs: ["pr:12"],
    })
  ).proposalId;
  const promoted = await ok("POST", `/v1/projects/alpha/state/proposals/${ids.P1}/promote`, ADMIN_TOKEN, {
    evidenceRefs: ["review:1"],
  });
  ids.S1 = promoted.state.id;
  ids.P2 = (
    await ok("POST", "/v1/projects/alpha/state/proposals", agentB, {
      ...proposal,
      key: "release.notes",
      summary: NOTES,
      evidenceRefs: ["pr:40"],
    })
  ).proposalId;
  ids.BETA = (
    await ok("POST", "/v1/projects/beta/state/proposals", betaKey, {
      ...proposal,
      key: "release.branch",
      summary: PROPOSED,
      evidenceRefs: ["pr:12"],
    })
  ).proposalId;
  const run = (await ok("POST", "/v1/projects/alpha/runs", agentA, { workflow: "ci" })).run.id;
  const entry = await ok("POST", `/v1/projects/alpha/runs/${run}/journal`, agentA, {
    category: "observation",
    summary: OBSERVED,
    evidenceRefs: ["ci:77"],
  });
  ids.J = `journal_${entry.entry.id}`;

  // A derived item of the promoted value, and a summary of it and of the journal entry: the store has no route
  // that admits derived items, so they are written into its file as the store would hold them.
  const s1 = promoted.state as ContextItem;
  const journalItem = (await view()).recalled.includes(ids.J) ? ids.J : undefined;
  expect(journalItem).toBe(ids.J);
  const derived = deriveContextItem(
    {
      id: "derived_release_gate",
      kind: "knowledge",
      project: "alpha",
      summary: "Tags wait for the release test suite",
    },
    "evidence",
    [s1],
  );
  const journal: ContextItem = {
    id: ids.J,
    kind: "evidence",
    project: "alpha",
    summary: OBSERVED,
    provenance: { sourceType: "workflow", sourceRef: `journal:${entry.entry.id}` },
    authority: "evidence",
    confidence: "probable",
  };
  const summary = summarizeContextItems("alpha", "Release test suite rules in short", [derived, journal]);
  ids.D1 = derived.id;
  ids.SUM = summary.id;
  plantItems(join(dir, "kxm.db"), [derived, summary], "2026-10-01T09:00:00.000Z");
  baseline = await view();
});

afterAll(async () => {
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the scenario's records", () => {
  test("every record is served before any revocation, with no withheld gap", () => {
    expect(baseline.recalled).toEqual(
      [ids.S1, ids.P2, ids.J, ids.D1, ids.SUM, "mem_deploy", "mem_release"].sort(),
    );
    expect(baseline.recallGaps.filter((gap) => gap.startsWith("items_withheld"))).toEqual([]);
    expect(baseline.selected).toEqual(expect.arrayContaining([ids.S1, ids.D1, ids.SUM, "mem_release"]));
  });
});

describe("revoking each target kind withholds exactly what depends on it", () => {
  // [target, value, withheld in the pool (consumed proposals count too), withheld of what recall lists]
  const cases: Array<[string, () => string, () => string[]]> = [
    ["evidence", () => "pr:12", () => [ids.P1, ids.S1, ids.D1, ids.SUM]],
    ["source", () => "docs/testing.md", () => ["mem_release"]],
    ["source_prefix", () => "docs/deploy/", () => ["mem_deploy"]],
    ["item", () => ids.J, () => [ids.J, ids.SUM]],
    ["item", () => "mem_release", () => ["mem_release"]],
    ["item", () => ids.D1, () => [ids.D1, ids.SUM]],
    ["agent", () => "agent-a", () => [ids.P1, ids.S1, ids.D1, ids.SUM]],
    ["agent", () => "agent-b", () => [ids.P2]],
  ];
  test.each(cases)("%s", async (target, value, withheldOf) => {
    const withheld = withheldOf();
    const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target,
      value: value(),
      reason: "the source was wrong",
    });
    expect(revocation).toMatchObject({
      target,
      value: value(),
      revokedBy: "kxm-admin",
      reason: "the source was wrong",
    });
    const gap = `items_withheld:revoked:${withheld.length}`;
    const after = await view();
    expect(after.recalled).toEqual(baseline.recalled.filter((id) => !withheld.includes(id)));
    expect(after.recallGaps.at(-1)).toBe(gap);
    for (const id of withheld) expect(after.selected).not.toContain(id);
    expect(after.selected).toEqual(baseline.selected.filter((id) => !withheld.includes(id)));
    expect(after.packetGaps.at(-1)).toBe(gap);
    expect(after.auditGaps.at(-1)).toBe(gap);
    // Explain still finds each one, and says why it is not served.
    for (const id of withheld) {
      const explained = await ok("GET", `/v1/projects/alpha/items/${id}/explain`, ADMIN_TOKEN);
      expect(Object.keys(explained).slice(0, 3)).toEqual(["id", "exists", "withheld"]);
      expect([explained.id, explained.exists, explained.withheld]).toEqual([id, true, "revoked"]);
    }

    const lifted = await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
      reason: "checked again",
    });
    expect(lifted.revocation).toMatchObject({
      id: revocation.id,
      liftedBy: "kxm-admin",
      liftReason: "checked again",
    });
    expect(await view()).toEqual(baseline);
    const served = await ok("GET", `/v1/projects/alpha/items/${withheld[0]}/explain`, ADMIN_TOKEN);
    expect(served.withheld).toBeUndefined();
    const again = await http("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
      reason: "twice",
    });
    expect({ status: again.status, code: again.json.code }).toEqual({ status: 400, code: "invalid_request" });
  });

  test("the list keeps every revocation, lifted ones with who lifted them, when and why", async () => {
    const { revocations } = await ok("GET", "/v1/projects/alpha/revocations", ADMIN_TOKEN);
    expect(revocations).toHaveLength(cases.length);
    for (const revocation of revocations) {
      expect(revocation.liftedAt).toEqual(expect.any(String));
      expect(revocation.liftedBy).toBe("kxm-admin");
    }
  });

  test("two revocations of one item count it once, under the first reason in order", async () => {
    const a = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "evidence",
      value: "pr:12",
      reason: "bad review",
    });
    const b = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "agent",
      value: "agent-a",
      reason: "agent misbehaved",
    });
    const after = await view();
    expect(after.recallGaps.filter((gap) => gap.startsWith("items_withheld"))).toEqual([
      "items_withheld:revoked:4",
    ]);
    for (const { revocation } of [a, b]) {
      await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
        reason: "done",
      });
    }
    expect(await view()).toEqual(baseline);
  });
});

describe("a withheld item as a near miss", () => {
  test("a revoked fact that matches the task is named in the audit's near misses, with its reason", async () => {
    const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "source",
      value: "docs/testing.md",
      reason: "the page was wrong",
    });
    const packet = await ok("POST", "/v1/projects/alpha/context", agentA, {
      role: "planner",
      task: "run the release test suite before tagging",
      includeKinds: ["state", "knowledge", "evidence"],
    });
    expect(packet.audit.selectedIds).not.toContain("mem_release");
    const miss = (
      packet.audit.nearMisses as { id: string; reason: string; score: number; tokens: number }[]
    ).find((entry) => entry.id === "mem_release");
    expect(miss).toMatchObject({ id: "mem_release", kind: "knowledge", reason: "revoked" });
    expect(miss!.score).toBeGreaterThan(0);
    expect(miss!.tokens).toBeGreaterThan(0);
    await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
      reason: "fixed",
    });
    expect(await view()).toEqual(baseline);
  });
});

describe("who may revoke and forget", () => {
  const routes = (): Array<[string, string, unknown]> => [
    ["POST", "/v1/projects/alpha/revocations", { target: "evidence", value: "pr:12", reason: "r" }],
    ["GET", "/v1/projects/alpha/revocations", undefined],
    ["POST", "/v1/projects/alpha/revocations/rev_x/lift", { reason: "r" }],
    ["POST", `/v1/projects/alpha/items/${ids.P2}/forget`, { reason: "r" }],
    ["GET", "/v1/projects/alpha/tombstones", undefined],
    ["POST", "/v1/projects/alpha/tombstones/tomb_x/lift", { reason: "r" }],
  ];

  test("an agent key of the project is refused on every route, and nothing changes", async () => {
    for (const [method, path, body] of routes()) {
      const answer = await http(method, path, agentA, body);
      expect({ path, status: answer.status, code: answer.json.code }).toEqual({
        path,
        status: 401,
        code: "invalid_auth",
      });
    }
    expect(await view()).toEqual(baseline);
  });

  test("a named operator may, and is recorded as operator:<name>", async () => {
    const { token } = await ok("POST", "/v1/operators", ADMIN_TOKEN, { name: "alice" });
    const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", token, {
      target: "agent",
      value: "agent-b",
      reason: "noise",
    });
    expect(revocation.revokedBy).toBe("operator:alice");
    const { revocation: lifted } = await ok(
      "POST",
      `/v1/projects/alpha/revocations/${revocation.id}/lift`,
      token,
      { reason: "fine" },
    );
    expect(lifted.liftedBy).toBe("operator:alice");
  });
});

describe("isolation between projects", () => {
  test("a revocation of alpha withholds nothing of beta, and neither project sees the other's", async () => {
    const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "evidence",
      value: "pr:12",
      reason: "alpha only",
    });
    const beta = await view("beta", betaKey);
    expect(beta.recalled).toEqual([ids.BETA]);
    expect(beta.recallGaps).toEqual([]);
    const { revocations } = await ok("GET", "/v1/projects/beta/revocations", ADMIN_TOKEN);
    expect(revocations).toEqual([]);
    const crossLift = await http("POST", `/v1/projects/beta/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
      reason: "from beta",
    });
    expect({ status: crossLift.status, code: crossLift.json.code }).toEqual({
      status: 404,
      code: "not_found",
    });
    await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, { reason: "done" });
  });
});

/** A second hub in a process of its own (the built hub), on the same database file; resolves to its URL. */
async function secondHubProcess(): Promise<{ url: string; child: ChildProcess }> {
  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  expect(existsSync(dist), "build first: pnpm --filter @kxm/hub... run build").toBe(true);
  const script = [
    `import { readHubEnv, serveHub } from ${JSON.stringify(dist)};`,
    "await serveHub({ env: readHubEnv() });",
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: dir,
    env: {
      ...process.env,
      KXM_AUTH_TOKEN: ADMIN_TOKEN,
      KXM_DB_PATH: join(dir, "kxm.db"),
      KXM_HOST: "127.0.0.1",
      KXM_PORT: "0",
      KXM_LOG_LEVEL: "info",
      KXM_RATE_LIMIT: "1000000",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const event = JSON.parse(line) as { event?: string; url?: string };
      if (event.event === "hub_listening" && event.url !== undefined) resolve(event.url);
    });
    child.on("exit", () => reject(new Error("the second hub exited before listening")));
  });
  return { url, child };
}

describe("a second hub process on the same database", () => {
  test("sees a revocation made through the first, and its lifting, through the change feed", async () => {
    const second = await secondHubProcess();
    try {
      expect(await view("alpha", agentA, second.url)).toEqual(baseline);
      const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
        target: "source",
        value: "docs/testing.md",
        reason: "stale doc",
      });
      const seen = await view("alpha", agentA, second.url);
      expect(seen.recalled).not.toContain("mem_release");
      expect(seen.recallGaps.at(-1)).toBe("items_withheld:revoked:1");
      await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, { reason: "ok" });
      expect(await view("alpha", agentA, second.url)).toEqual(baseline);
    } finally {
      const exited = new Promise((resolve) => second.child.on("exit", resolve));
      second.child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});

describe("forgetting", () => {
  const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

  test("an authored fact is withheld while its tombstone is active, and served again once lifted", async () => {
    const { tombstone, deleted } = await ok(
      "POST",
      "/v1/projects/alpha/items/mem_deploy/forget",
      ADMIN_TOKEN,
      {
        reason: "wrong fact",
      },
    );
    expect(tombstone).toMatchObject({
      itemId: "mem_deploy",
      kind: "authored",
      contentSha256: sha256(DEPLOY),
    });
    expect(deleted).toEqual([]);
    const after = await view();
    expect(after.recalled).toEqual(baseline.recalled.filter((id) => id !== "mem_deploy"));
    expect(after.recallGaps.at(-1)).toBe("items_withheld:forgotten:1");
    expect(after.packetGaps.at(-1)).toBe("items_withheld:forgotten:1");
    await ok("POST", `/v1/projects/alpha/tombstones/${tombstone.id}/lift`, ADMIN_TOKEN, {
      reason: "it was right",
    });
    expect(await view()).toEqual(baseline);
  });

  test("a stored item is deleted from the file; the tombstone keeps the hash, and the content is refused", async () => {
    const { tombstone, deleted } = await ok(
      "POST",
      `/v1/projects/alpha/items/${ids.P2}/forget`,
      ADMIN_TOKEN,
      {
        reason: "personal data",
      },
    );
    expect(deleted).toEqual([ids.P2]);
    expect(tombstone).toMatchObject({
      itemId: ids.P2,
      kind: "item",
      contentSha256: sha256(NOTES),
      forgottenBy: "kxm-admin",
      reason: "personal data",
    });
    const after = await view();
    expect(after.recalled).toEqual(baseline.recalled.filter((id) => id !== ids.P2));
    expect(after.recallGaps.filter((gap) => gap.startsWith("items_withheld"))).toEqual([]);

    // The content is gone from the database file and its WAL; the tombstone row holds the hash only.
    const files = await Promise.all(
      ["kxm.db", "kxm.db-wal"].map((name) => readFile(join(dir, name)).catch(() => Buffer.alloc(0))),
    );
    for (const bytes of files) expect(bytes.includes(Buffer.from(NOTES))).toBe(false);
    const db = new Database(join(dir, "kxm.db"), { readonly: true });
    try {
      expect(db.prepare("select count(*) as n from items where id = ?").get(ids.P2)).toEqual({ n: 0 });
      expect(db.prepare("select count(*) as n from state_proposals where item_id = ?").get(ids.P2)).toEqual({
        n: 0,
      });
      const row = db.prepare("select * from tombstones where id = ?").get(tombstone.id);
      expect(Object.values(row).some((value) => String(value).includes(NOTES))).toBe(false);
      expect(row.content_sha256).toBe(sha256(NOTES));
    } finally {
      db.close();
    }

    const again = {
      authority: "evidence",
      confidence: "verified",
      key: "release.notes",
      summary: NOTES,
      evidenceRefs: ["pr:41"],
    };
    const refused = await http("POST", "/v1/projects/alpha/state/proposals", agentB, again);
    expect({ status: refused.status, code: refused.json.code }).toEqual({
      status: 409,
      code: "content_forgotten",
    });
    const run = (await ok("POST", "/v1/projects/alpha/runs", agentA, { workflow: "ci" })).run.id;
    const journal = await http("POST", `/v1/projects/alpha/runs/${run}/journal`, agentA, {
      category: "observation",
      summary: `  ${NOTES}  `,
    });
    expect({ status: journal.status, code: journal.json.code }).toEqual({
      status: 409,
      code: "content_forgotten",
    });
    // Another project may hold the same content: a tombstone is one project's.
    expect((await http("POST", "/v1/projects/beta/state/proposals", betaKey, again)).status).toBe(201);

    const { tombstones } = await ok("GET", "/v1/projects/alpha/tombstones", ADMIN_TOKEN);
    expect(tombstones.map((t: { id: string }) => t.id)).toContain(tombstone.id);
    expect((await ok("GET", "/v1/projects/beta/tombstones", ADMIN_TOKEN)).tombstones).toEqual([]);
    await ok("POST", `/v1/projects/alpha/tombstones/${tombstone.id}/lift`, ADMIN_TOKEN, {
      reason: "consent",
    });
    expect((await http("POST", "/v1/projects/alpha/state/proposals", agentB, again)).status).toBe(201);
  });

  test("forgetting a promoted value deletes its consumed proposal too, and what derives from it is withheld", async () => {
    const { tombstone, deleted } = await ok(
      "POST",
      `/v1/projects/alpha/items/${ids.S1}/forget`,
      ADMIN_TOKEN,
      {
        reason: "wrong",
      },
    );
    expect(deleted).toEqual([ids.P1, ids.S1].sort());
    const after = await view();
    expect(after.recalled).not.toContain(ids.S1);
    expect(after.recalled).not.toContain(ids.D1);
    expect(after.recalled).not.toContain(ids.SUM);
    expect(after.recallGaps.at(-1)).toBe("items_withheld:forgotten:2");
    expect(after.packetGaps.at(-1)).toBe("items_withheld:forgotten:2");
    await ok("POST", `/v1/projects/alpha/tombstones/${tombstone.id}/lift`, ADMIN_TOKEN, { reason: "undo" });
    const lifted = await view();
    expect(lifted.recalled).toEqual(expect.arrayContaining([ids.D1, ids.SUM]));
    expect(lifted.recalled).not.toContain(ids.S1);
  });

  test("an id that is neither stored nor authored is 404", async () => {
    const answer = await http("POST", "/v1/projects/alpha/items/state_nothing/forget", ADMIN_TOKEN, {
      reason: "x",
    });
    expect({ status: answer.status, code: answer.json.code }).toEqual({ status: 404, code: "not_found" });
  });
});

describe("open contradictions", () => {
  test("a withheld competitor leaves packets, the contradictions route and the wiki records, and comes back when lifted", async () => {
    const proposal = { authority: "evidence", confidence: "verified", key: "release.window" };
    const a = await ok("POST", "/v1/projects/alpha/state/proposals", agentA, {
      ...proposal,
      summary: "Releases go out on Tuesdays",
      evidenceRefs: ["pr:71"],
    });
    const b = await ok("POST", "/v1/projects/alpha/state/proposals", agentB, {
      ...proposal,
      summary: "Releases go out on Thursdays",
      evidenceRefs: ["pr:72"],
    });
    const window = [a.proposalId, b.proposalId].sort();
    const shown = async () => {
      const route = await ok("GET", "/v1/projects/alpha/contradictions", agentA);
      const wiki = await ok("GET", "/v1/projects/alpha/wiki/records", agentA);
      expect(wiki.contradictions).toEqual(route);
      // A packet's contradictions section holds the same competitors: one rule for every reader.
      const { packet } = await ok("POST", "/v1/projects/alpha/context", agentA, {
        role: "planner",
        task: "when do releases go out",
      });
      const inPacket = (packet.contradictions as { id: string }[])
        .map((item) => item.id)
        .filter((id) => window.includes(id));
      const listed = (route.state as { stateKey: string; itemIds: string[] }[]).find(
        (contradiction) => contradiction.stateKey === "release.window",
      );
      expect(inPacket.sort()).toEqual(listed === undefined ? [] : [...listed.itemIds].sort());
      return listed;
    };
    expect((await shown())?.itemIds.sort()).toEqual(window);
    const { revocation } = await ok("POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "evidence",
      value: "pr:72",
      reason: "the Thursday claim came from a bad review",
    });
    // One competitor left: no longer a contradiction, and the withheld proposal is named nowhere.
    expect(await shown()).toBeUndefined();
    await ok("POST", `/v1/projects/alpha/revocations/${revocation.id}/lift`, ADMIN_TOKEN, {
      reason: "reviewed",
    });
    expect((await shown())?.itemIds.sort()).toEqual(window);
  });
});
