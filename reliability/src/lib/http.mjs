// @ts-check
// JSON over HTTP to a real hub, and the set-up most scenarios share.

/**
 * @param {string} base the hub's URL
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown, headers?: Record<string, string> }} [options]
 * @returns {Promise<{ status: number, type: string, text: string, json: any }>}
 */
export async function call(base, method, path, options = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let json;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, type: response.headers.get("content-type") ?? "", text, json };
}

/**
 * Registers `project` (admin) and returns a new agent key for it.
 * @param {string} base
 * @param {string} adminToken
 * @param {string} project
 * @param {{ agentId?: string, checkoutRoot?: string }} [options]
 */
export async function projectWithAgent(base, adminToken, project, options = {}) {
  const created = await call(base, "POST", "/v1/projects", {
    token: adminToken,
    body: {
      id: project,
      ...(options.checkoutRoot === undefined ? {} : { checkoutRoot: options.checkoutRoot }),
    },
  });
  if (created.status !== 201) throw new Error(`createProject answered ${created.status}: ${created.text}`);
  const agent = await call(base, "POST", `/v1/projects/${project}/agents`, {
    token: adminToken,
    body: { agentId: options.agentId ?? "agent-planner" },
  });
  if (agent.status !== 201) throw new Error(`createAgentKey answered ${agent.status}: ${agent.text}`);
  return /** @type {string} */ (agent.json.key);
}

/** A proposal of `key` with `summary`, as an agent makes it. @param {string} key @param {string} summary */
export const proposal = (key, summary) => ({
  key,
  summary,
  authority: "evidence",
  confidence: "verified",
  evidenceRefs: ["pr:12"],
});

/** The admin token of every hub the suite starts (a scenario's own hub, never a real deployment). */
export const ADMIN_TOKEN = "reliability-admin-token-0123456789abcdef";
