import { describe, expect, test } from "vitest";
import { ADMIN_TOKEN, call, GUIDE_PROPOSAL, hubEachTest, projectWithAgent } from "./helpers.js";

const hub = hubEachTest();

describe("the guide's temporal-state flow, end to end", () => {
  test("propose as an agent, promote as the operator, then packet, recall and state agree with the guide", async () => {
    const key = await projectWithAgent(hub.app, "demo");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, GUIDE_PROPOSAL);
    expect(proposed.statusCode).toBe(201);
    const { proposalId } = proposed.json();
    expect(proposalId).toMatch(/^state_/);

    const beforePromotion = hub.clock.now().toISOString();
    hub.clock.advance(3 * 3_600_000);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:pr-12"] },
    );
    expect(promoted.statusCode).toBe(200);
    const { state } = promoted.json();
    expect({
      status: state.status,
      authority: state.authority,
      origin: state.provenance.sourceType,
      evidenceRefs: state.evidenceRefs,
    }).toEqual({
      status: "current",
      authority: "evidence",
      origin: "peer",
      evidenceRefs: ["pr:12", "review:pr-12"],
    });

    const packet = await call(hub.app, "POST", "/v1/projects/demo/context", ADMIN_TOKEN, {
      role: "planner",
      task: "Which branch do we release from?",
    });
    expect(packet.statusCode).toBe(200);
    const assembled = packet.json();
    expect(
      JSON.stringify({
        state: assembled.packet.currentState.map((item: { summary: string }) => item.summary),
        gaps: assembled.packet.unresolvedGaps,
        relevance: assembled.audit.relevance,
      }),
    ).toBe(
      '{"state":["Releases are cut from the main branch"],"gaps":[],"relevance":{"taskTokens":2,"matchedCandidates":1,"selected":[0.791]}}',
    );

    const recalled = await call(hub.app, "POST", "/v1/projects/demo/recall", key, {
      query: "release branch",
    });
    expect(recalled.statusCode).toBe(200);
    expect(
      recalled.json().items.map((item: Record<string, unknown>) =>
        JSON.stringify({
          kind: item.kind,
          status: item.status,
          origin: item.sourceType,
          relevance: item.relevance,
        }),
      ),
    ).toEqual(['{"kind":"state","status":"current","origin":"peer","relevance":0.791}']);

    const now = await call(hub.app, "GET", "/v1/projects/demo/state/release.branch", key);
    expect(now.statusCode).toBe(200);
    expect(now.json().state).toMatchObject({
      summary: "Releases are cut from the main branch",
      status: "current",
      authority: "evidence",
    });
    const before = await call(
      hub.app,
      "GET",
      `/v1/projects/demo/state/release.branch?asOf=${encodeURIComponent(beforePromotion)}`,
      ADMIN_TOKEN,
    );
    expect(before.statusCode).toBe(404);
    expect(before.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(before.json().code).toBe("not_found");
  });
});

describe("the rules of temporal state", () => {
  test("an operator's proposal is human origin by kxm-admin, may claim policy, and only an agent's can be promoted", async () => {
    await projectWithAgent(hub.app, "demo");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", ADMIN_TOKEN, {
      ...GUIDE_PROPOSAL,
      authority: "policy",
      proposedBy: "kxm-admin",
    });
    expect(proposed.statusCode).toBe(201);
    const history = await call(hub.app, "GET", "/v1/projects/demo/state/release.branch/history", ADMIN_TOKEN);
    expect(history.json().items).toMatchObject([
      {
        status: "proposed",
        authority: "policy",
        provenance: { sourceType: "human", sourceRef: "proposed-by:kxm-admin" },
      },
    ]);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:1"] },
    );
    expect([promoted.statusCode, promoted.json().code]).toEqual([403, "state_promotion_invalid"]);
  });

  test("an agent's proposal names the agent, and claiming instruction is refused", async () => {
    const key = await projectWithAgent(hub.app, "demo", "agent-planner");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      proposedBy: "agent-planner",
    });
    expect(proposed.statusCode).toBe(201);
    const history = await call(hub.app, "GET", "/v1/projects/demo/state/release.branch/history", key);
    expect(history.json().items[0].provenance).toEqual({
      sourceType: "peer",
      sourceRef: "proposed-by:agent-planner",
    });
    const claimed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      authority: "instruction",
    });
    expect([claimed.statusCode, claimed.json().code]).toEqual([403, "context_authority_violation"]);
  });

  test("a proposal is promoted only under its own project (behaviour 9.8)", async () => {
    const alpha = await projectWithAgent(hub.app, "alpha");
    await projectWithAgent(hub.app, "beta");
    const proposed = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alpha, GUIDE_PROPOSAL);
    const { proposalId } = proposed.json();
    const elsewhere = await call(
      hub.app,
      "POST",
      `/v1/projects/beta/state/proposals/${proposalId}/promote`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:1"],
      },
    );
    expect([elsewhere.statusCode, elsewhere.json().code]).toEqual([404, "state_proposal_not_found"]);
    const unknown = await call(
      hub.app,
      "POST",
      `/v1/projects/ghost/state/proposals/${proposalId}/promote`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:1"],
      },
    );
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, "state_proposal_not_found"]);
    const home = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/state/proposals/${proposalId}/promote`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:1"],
      },
    );
    expect(home.statusCode).toBe(200);
  });

  test("a proposal or promotion without evidence is invalid_state_proposal", async () => {
    const key = await projectWithAgent(hub.app, "demo");
    for (const evidenceRefs of [[], undefined]) {
      const body = { ...GUIDE_PROPOSAL, evidenceRefs };
      const response = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, body);
      expect([response.statusCode, response.json().code]).toEqual([400, "invalid_state_proposal"]);
    }
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, GUIDE_PROPOSAL);
    const url = `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`;
    for (const body of [{ evidenceRefs: [] }, {}]) {
      const response = await call(hub.app, "POST", url, ADMIN_TOKEN, body);
      expect([response.statusCode, response.json().code]).toEqual([400, "invalid_state_proposal"]);
    }
  });
});
