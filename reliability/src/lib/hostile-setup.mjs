// @ts-check
// The hub state hostile requests are sent against: two projects, an operator, agent keys of each project and a
// revoked one, and every kind of credential as the Authorization header it is sent as.

/**
 * @typedef {(method: string, path: string, token: string, body?: unknown) => Promise<{ status: number, json: any }>} Caller
 */

/**
 * Sets up the hub through its API (as the admin) and returns the set-up the generator takes, with every secret
 * that must never be logged.
 * @param {Caller} call
 * @param {string} adminToken
 * @returns {Promise<{ setup: import("./hostile-requests.mjs").HostileSetup, secrets: string[] }>}
 */
export async function setUpHostile(call, adminToken) {
  /** @param {string} method @param {string} path @param {unknown} [body] */
  const admin = async (method, path, body) => {
    const answer = await call(method, path, adminToken, body);
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}`);
    return answer.json;
  };
  await admin("POST", "/v1/projects", { id: "alpha" });
  await admin("POST", "/v1/projects", { id: "beta" });
  const own = (await admin("POST", "/v1/projects/alpha/agents", { agentId: "agent-planner" })).key;
  const other = (await admin("POST", "/v1/projects/beta/agents", { agentId: "agent-planner" })).key;
  const revoked = (await admin("POST", "/v1/projects/alpha/agents", { agentId: "agent-revoked" })).key;
  await admin("DELETE", "/v1/projects/alpha/agents/agent-revoked");
  const operator = (await admin("POST", "/v1/operators", { name: "reviewer" })).token;
  const unknownAgent = `kxm_${"A".repeat(43)}`;
  const unknownOperator = `kxo_${"B".repeat(43)}`;
  return {
    setup: {
      project: "alpha",
      otherProject: "beta",
      credentials: {
        none: undefined,
        garbage: "Bearer \u00ff not a token; Basic Z2FyYmFnZQ==",
        "unknown-agent-key": `Bearer ${unknownAgent}`,
        "unknown-operator-token": `Bearer ${unknownOperator}`,
        admin: `Bearer ${adminToken}`,
        operator: `Bearer ${operator}`,
        "agent-own-project": `Bearer ${own}`,
        "agent-other-project": `Bearer ${other}`,
        "revoked-agent-key": `Bearer ${revoked}`,
      },
    },
    secrets: [adminToken, operator, own, other, revoked, unknownAgent, unknownOperator],
  };
}
