import { existsSync, readFileSync } from "node:fs";
import { LIMITS } from "@kxm/contract";
import { REDACTED } from "@kxm/provenance";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { leaked, secretCases } from "../../../reliability/src/lib/secrets-corpus.mjs";
import { ADMIN_TOKEN, call, createTestHub, projectWithAgent, type TestHub } from "./helpers.js";

// Corpus secrets (generated from a seed: none is in the repository) whose whole text fits in one reference.
const CASES = secretCases(20261202).filter((c) => c.text.length <= LIMITS.refChars);
function ofKind(kind: string, context = "sentence") {
  const found = CASES.find((c) => c.kind === kind && c.context === context);
  if (found === undefined) throw new Error(`no corpus case ${kind}/${context}`);
  return found;
}
// Whole secrets as references (two of them become the same `[redacted]`), and secrets inside references.
const WHOLE = [ofKind("kxm-agent-key"), ofKind("github-classic-token"), ofKind("aws-access-key-id")];
const INSIDE = [
  ofKind("pgpassword-env", "shell"),
  ofKind("stripe-secret-key", "log"),
  ofKind("basic-auth-url", "json"),
];
const ALL = [...WHOLE, ...INSIDE];
const KEY = "release.branch";

describe("secrets in reference lists never reach storage, packets, the wiki or the log", () => {
  let hub: TestHub;
  let agent = "";
  const bodies: string[] = [];
  let stateId = "";

  async function send(method: "GET" | "POST", url: string, token: string, body?: unknown, status = 200) {
    const response = await call(hub.app, method, url, token, body);
    expect(response.statusCode, `${method} ${url}`).toBe(status);
    bodies.push(response.body);
    return response.json();
  }

  beforeAll(async () => {
    hub = await createTestHub();
    agent = await projectWithAgent(hub.app, "demo");
    const proposed = await send(
      "POST",
      "/v1/projects/demo/state/proposals",
      agent,
      {
        key: KEY,
        summary: "Releases are cut from main",
        authority: "evidence",
        confidence: "verified",
        evidenceRefs: ["pr:12", WHOLE[0]?.secret, INSIDE[0]?.text, WHOLE[1]?.secret],
      },
      201,
    );
    const promoted = await send(
      "POST",
      `/v1/projects/demo/state/proposals/${proposed.proposalId}/promote`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:pr-12", INSIDE[1]?.text, WHOLE[2]?.secret],
      },
    );
    stateId = promoted.state.id;
    // The test clock stands still, and a promotion takes effect 1 ms after its proposal's validFrom.
    hub.clock.advance(1_000);
    const run = await send("POST", "/v1/projects/demo/runs", agent, { workflow: "ci" }, 201);
    const runPath = `/v1/projects/demo/runs/${run.run.id}`;
    const entry = await send(
      "POST",
      `${runPath}/journal`,
      agent,
      {
        category: "observation",
        summary: "The release gate passed",
        evidenceRefs: [INSIDE[2]?.text, "ci:run-7"],
      },
      201,
    );
    // A lesson needs evidence: one that is wholly a secret still counts, as `[redacted]`.
    await send(
      "POST",
      `${runPath}/journal`,
      agent,
      {
        category: "lesson",
        summary: "Pin the runner image",
        evidenceRefs: [WHOLE[0]?.secret, WHOLE[1]?.secret],
      },
      201,
    );
    await send("POST", `${runPath}/finish`, agent, { outcome: "succeeded" });
    await send("POST", `/v1/projects/demo/journal/${entry.entry.id}/review`, ADMIN_TOKEN, {
      evidenceRefs: [INSIDE[0]?.text, "review:ok"],
    });
    await send("GET", `/v1/projects/demo/state/${KEY}`, agent);
    await send("GET", `/v1/projects/demo/state/${KEY}/history`, agent);
    await send("GET", "/v1/projects/demo/wiki/records", agent);
    await send("POST", "/v1/projects/demo/context", agent, {
      role: "planner",
      task: "release gate branch main",
    });
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("the state value keeps its evidence, redacted, as a sorted union without repeats", async () => {
    const { state } = await send("GET", `/v1/projects/demo/state/${KEY}`, agent);
    expect(state.id).toBe(stateId);
    const refs: string[] = state.evidenceRefs;
    expect(refs).toContain("pr:12");
    expect(refs).toContain("review:pr-12");
    expect(refs).toContain(REDACTED);
    expect(new Set(refs).size).toBe(refs.length);
    expect([...refs].sort()).toEqual(refs);
    // Six references went in; the three whole secrets merged into one `[redacted]`.
    expect(refs).toHaveLength(5);
  });

  test("no answer holds a secret, and the packet and wiki carry the redacted items", () => {
    const answers = bodies.join("\n");
    expect(answers).toContain(stateId);
    expect(answers).toContain(REDACTED);
    expect(ALL.filter((c) => leaked(c.secret, answers)).map((c) => c.kind)).toEqual([]);
  });

  test("neither the database files nor the log hold a secret", async () => {
    await hub.close();
    const files = [hub.dbPath, `${hub.dbPath}-wal`].filter((path) => existsSync(path));
    const database = files.map((path) => readFileSync(path).toString("latin1")).join("\n");
    expect(database).toContain("review:pr-12"); // the search sees references
    expect(ALL.filter((c) => leaked(c.secret, database)).map((c) => c.kind)).toEqual([]);
    const log = hub.rawLogs.join("\n");
    expect(log.length).toBeGreaterThan(0);
    expect(ALL.filter((c) => leaked(c.secret, log)).map((c) => c.kind)).toEqual([]);
  });
});

describe("a state key that looks like a secret", () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await createTestHub();
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("is refused with invalid_request, without echoing it", async () => {
    const agent = await projectWithAgent(hub.app, "demo");
    const secret = ofKind("kxm-agent-key").secret;
    const response = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", agent, {
      key: `deploy.${secret}`,
      summary: "Deploys need the key",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
    expect(response.body).toContain("the state key looks like a secret");
    expect(leaked(secret, response.body + hub.rawLogs.join("\n"))).toBe(false);
  });
});
