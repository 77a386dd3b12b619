import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestHub, type TestHub } from "./helpers.js";

// Distinct strings planted in every field a caller writes; none may reach a log line or an error body.
const CANARY = {
  adminToken: "CANARY-admin-token-a8f3k2m9q1z7",
  task: "CANARY_TASK_b72 release branch",
  summary: "CANARY_SUMMARY_c81 Releases are cut from main",
  query: "CANARY_QUERY_d93 release",
  stateKey: "CANARY_KEY_e14.release",
  proposedBy: "CANARY_PROPOSER_f25",
  journal: "CANARY_JOURNAL_g36 the suite timed out",
  stage: "CANARY_STAGE_h47",
  workflow: "CANARY_WORKFLOW_i58",
  lesson: "CANARY_LESSON_j69 raise the timeout",
  failingStep: "CANARY_STEP_k70",
  evidence: "CANARY_EVIDENCE_l81",
  garbage: "CANARY_GARBAGE_m92",
  field: "CANARY_FIELD_n03",
  asOf: "CANARY_ASOF_o14",
  cursor: "CANARY_CURSOR_p25",
  role: "CANARY_ROLE_q36",
  checkout: "/CANARY_CHECKOUT_r47",
};

describe("logs that never leak", () => {
  let hub: TestHub;
  let agentKey = "";
  const errorBodies: string[] = [];
  const successBodies: { route: string; body: string }[] = [];

  async function request(method: "GET" | "POST" | "DELETE", url: string, token?: string, body?: unknown) {
    const response = await hub.app.inject({
      method,
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    if (response.statusCode >= 400) errorBodies.push(response.body);
    else successBodies.push({ route: url, body: response.body });
    return response;
  }

  beforeAll(async () => {
    hub = await createTestHub({ adminToken: CANARY.adminToken });
    const admin = CANARY.adminToken;
    expect((await request("POST", "/v1/projects", admin, { id: "demo" })).statusCode).toBe(201);
    agentKey = (await request("POST", "/v1/projects/demo/agents", admin, { agentId: "agent-planner" })).json()
      .key;
    const proposal = await request("POST", "/v1/projects/demo/state/proposals", agentKey, {
      key: CANARY.stateKey,
      summary: CANARY.summary,
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: [CANARY.evidence],
    });
    expect(proposal.statusCode).toBe(201);
    await request("POST", "/v1/projects/demo/state/proposals", agentKey, {
      key: CANARY.stateKey,
      summary: CANARY.summary,
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: [CANARY.evidence],
      proposedBy: CANARY.proposedBy,
    });
    await request("POST", "/v1/projects/demo/state/proposals", agentKey, {
      key: CANARY.stateKey,
      summary: CANARY.summary,
      authority: "policy",
      confidence: "verified",
      evidenceRefs: [CANARY.evidence],
    });
    hub.clock.advance(1_000);
    await request("POST", `/v1/projects/demo/state/proposals/${proposal.json().proposalId}/promote`, admin, {
      evidenceRefs: [CANARY.evidence],
    });
    hub.clock.advance(1_000);
    const encodedKey = encodeURIComponent(CANARY.stateKey);
    await request("GET", `/v1/projects/demo/state/${encodedKey}`, agentKey);
    await request("GET", `/v1/projects/demo/state/${encodedKey}?asOf=${CANARY.asOf}`, agentKey);
    await request("GET", `/v1/projects/demo/state/${encodedKey}?asOf=2020-01-01T00:00:00Z`, agentKey);
    await request("GET", `/v1/projects/demo/state/${encodedKey}/history`, agentKey);
    const run = await request("POST", "/v1/projects/demo/runs", agentKey, { workflow: CANARY.workflow });
    const runId = run.json().run.id;
    await request("POST", `/v1/projects/demo/runs/${runId}/journal`, agentKey, {
      category: "error",
      summary: CANARY.journal,
      stage: CANARY.stage,
      evidenceRefs: [CANARY.evidence],
    });
    await request("POST", `/v1/projects/demo/runs/${runId}/journal`, agentKey, {
      category: "lesson",
      summary: CANARY.journal,
      stage: CANARY.stage,
    });
    await request("POST", `/v1/projects/demo/runs/${runId}/finish`, agentKey, {
      outcome: "failed",
      failingStep: CANARY.failingStep,
      lessons: [CANARY.lesson],
    });
    for (const role of ["planner", "repro", "implementer", CANARY.role]) {
      await request("POST", "/v1/projects/demo/context", agentKey, { role, task: CANARY.task });
    }
    await request("POST", "/v1/projects/demo/context", agentKey, {
      role: "repro",
      task: CANARY.task,
      runId,
      stage: CANARY.stage,
    });
    await request("POST", "/v1/projects/demo/context", agentKey, {
      role: "repro",
      task: `${CANARY.task}${"x".repeat(2000)}`,
    });
    await request("POST", "/v1/projects/demo/context", agentKey, {
      role: "repro",
      task: CANARY.task,
      [CANARY.field]: 1,
    });
    await request("POST", "/v1/projects/demo/recall", agentKey, { query: CANARY.query });
    await request("POST", "/v1/projects/demo/recall", agentKey, {
      query: `${CANARY.query}${"y".repeat(500)}`,
    });
    await request("GET", `/v1/projects/demo/episodes?cursor=${CANARY.cursor}`, agentKey);
    await request("GET", "/v1/projects/demo/episodes", agentKey);
    await request("GET", "/v1/projects/demo/contradictions", agentKey);
    await request("GET", "/v1/projects/demo/items/state_x/explain", admin);
    await request("GET", "/v1/projects", CANARY.garbage);
    await request("POST", "/v1/projects/demo/recall", CANARY.garbage, { query: CANARY.query });
    await request("POST", "/v1/projects", admin, { id: "other", checkoutRoot: `${CANARY.checkout}/.kxm/x` });
    await hub.app
      .inject({
        method: "POST",
        url: "/v1/projects/demo/context",
        headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
        payload: `{"role":"planner","task":"${CANARY.task}"`,
      })
      .then((response) => errorBodies.push(response.body));
    await hub.app
      .inject({
        method: "POST",
        url: "/v1/projects/demo/context",
        headers: { authorization: `Bearer ${agentKey}` },
        payload: { role: "planner", task: `${CANARY.task}${"z".repeat(300_000)}` },
      })
      .then((response) => errorBodies.push(response.body));
    await request("GET", `/v1/${CANARY.field}?q=${CANARY.query}`, agentKey);
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("the session produced log lines and errors to check", () => {
    expect(hub.rawLogs.length).toBeGreaterThan(30);
    expect(errorBodies.length).toBeGreaterThan(10);
  });

  test("no canary appears in any log line", () => {
    const values = [...Object.values(CANARY), agentKey];
    const leaks = hub.rawLogs.flatMap((line) =>
      values.filter((value) => line.includes(value)).map((value) => ({ value, line })),
    );
    expect(leaks).toEqual([]);
  });

  test("no canary appears in any error body", () => {
    const values = [...Object.values(CANARY), agentKey];
    const leaks = errorBodies.flatMap((body) =>
      values.filter((value) => body.includes(value)).map((value) => ({ value, body })),
    );
    expect(leaks).toEqual([]);
  });

  test("only the context audit echoes the caller's task back, in a success response", () => {
    const echoes = successBodies.filter(({ body }) => body.includes(CANARY.task));
    expect(echoes.length).toBeGreaterThan(0);
    for (const { route, body } of echoes) {
      expect(route).toBe("/v1/projects/demo/context");
      expect(JSON.parse(body).audit.request.task).toContain(CANARY.task);
    }
  });

  test("a proposer mismatch logs a security alert with ids only", () => {
    const alerts = hub.logs.filter((line) => line.event === "security_alert");
    expect(alerts).toHaveLength(1);
    const { time: _time, pid: _pid, hostname: _hostname, ...alert } = alerts[0]!;
    expect(alert).toEqual({
      level: 40,
      event: "security_alert",
      reason: "proposer_mismatch",
      project: "demo",
      agentId: "agent-planner",
    });
  });

  test("each assembled packet logs sizes and counts, not the task", () => {
    const assembled = hub.logs.filter((line) => line.event === "context_assembled");
    expect(assembled.length).toBe(5);
    for (const line of assembled) {
      expect(line).toMatchObject({
        project: "demo",
        taskChars: CANARY.task.length,
        candidateCount: expect.any(Number),
        selected: expect.any(Number),
        estimatedTokens: expect.any(Number),
        gaps: expect.any(Array),
      });
    }
    expect(assembled.map((line) => line.role)).toEqual([
      "planner",
      "repro",
      "implementer",
      "custom",
      "repro",
    ]);
  });

  test("every request logs one line with its route pattern, status and duration, never its URL", () => {
    const requests = hub.logs.filter((line) => line.event === "request");
    expect(requests.length).toBeGreaterThan(25);
    for (const line of requests) {
      expect(line).toMatchObject({
        method: expect.any(String),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      });
      expect(line).not.toHaveProperty("url");
    }
    expect(requests.map((line) => line.route)).toContain("/v1/projects/:project/state/:key");
  });
});
