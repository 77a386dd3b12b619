import { ROUTES } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { ADMIN_TOKEN, call, GUIDE_PROPOSAL, hubEachTest, projectWithAgent } from "./helpers.js";

// The hub sends packets and recall answers without checking them against their schemas again (app.ts,
// TRUSTED_RESPONSES): this holds it to them. Each body must parse as the route's response and come back unchanged,
// so no field the schema does not know reaches the wire.

const hub = hubEachTest();

describe("answers sent without a second schema check", () => {
  test("packets (plain and for a run's stage) and recall answers match their route's response exactly", async () => {
    const key = await projectWithAgent(hub.app, "demo");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, GUIDE_PROPOSAL);
    const { proposalId } = proposed.json();
    await call(hub.app, "POST", `/v1/projects/demo/state/proposals/${proposalId}/promote`, ADMIN_TOKEN, {
      evidenceRefs: ["review:pr-12"],
    });
    await call(hub.app, "POST", "/v1/projects/demo/runs", key, { workflow: "release", runId: "run-1" });
    await call(hub.app, "POST", "/v1/projects/demo/runs/run-1/journal", key, {
      category: "plan",
      summary: "Release from the main branch after the tests pass",
      stage: "plan",
    });

    const answers = [
      [
        ROUTES.getContext,
        await call(hub.app, "POST", "/v1/projects/demo/context", key, {
          role: "planner",
          task: "release branch",
        }),
      ],
      [
        ROUTES.getContext,
        await call(hub.app, "POST", "/v1/projects/demo/context", key, {
          role: "planner",
          task: "release branch",
          runId: "run-1",
          stage: "plan",
        }),
      ],
      [
        ROUTES.recall,
        await call(hub.app, "POST", "/v1/projects/demo/recall", key, { query: "release branch" }),
      ],
    ] as const;
    for (const [route, answer] of answers) {
      expect(answer.statusCode, answer.body).toBe(route.status);
      const body = answer.json();
      expect(route.response.parse(body)).toStrictEqual(body);
    }
    // The packets are not empty, so the check covers items, not just an envelope.
    expect(answers[0][1].json().packet.currentState).toHaveLength(1);
    expect(
      answers[1][1].json().packet.knowledge.length + answers[1][1].json().packet.evidence.length,
    ).toBeGreaterThan(0);
    expect(answers[2][1].json().items.length).toBeGreaterThan(0);
  });
});
