import { tmpdir } from "node:os";
import { ROUTES, type RouteName } from "@kxm/contract";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { ADMIN_TOKEN, call, GUIDE_PROPOSAL } from "./helpers.js";

/** One request to a route: path parameters, query and body. */
export interface Sample {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** The URL of a route with its parameters filled in and its query appended. */
export function urlOf(name: RouteName, sample: Sample): string {
  const path = ROUTES[name].path.replace(/:(\w+)/g, (_, param: string) =>
    encodeURIComponent(sample.params?.[param] ?? ""),
  );
  const query = new URLSearchParams(sample.query ?? {}).toString();
  return query === "" ? path : `${path}?${query}`;
}

export async function send(
  app: FastifyInstance,
  name: RouteName,
  sample: Sample,
  token?: string,
): Promise<LightMyRequestResponse> {
  return call(app, ROUTES[name].method, urlOf(name, sample), token, sample.body);
}

let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/**
 * A request that succeeds for an authorized caller of `project`, per route; each call makes what it needs (a fresh
 * proposal to promote, a fresh run to finish), so it can be sent again. `Record<RouteName, ...>`: a route added to
 * the table fails the typecheck here until it has a sample, and then every table-driven test covers it.
 */
export interface SampleContext {
  app: FastifyInstance;
  project: string;
  /** An agent key of `project`. */
  key: string;
}

export const SAMPLES: Record<RouteName, (context: SampleContext) => Promise<Sample>> = {
  health: async () => ({}),
  getContext: async ({ project }) => ({
    params: { project },
    body: { role: "planner", task: "release branch" },
  }),
  recall: async ({ project }) => ({ params: { project }, body: { query: "release" } }),
  proposeState: async ({ project }) => ({ params: { project }, body: GUIDE_PROPOSAL }),
  promoteState: async ({ app, project, key }) => {
    // An agent's proposal: the admin may not promote its own.
    const proposed = await call(app, "POST", `/v1/projects/${project}/state/proposals`, key, {
      ...GUIDE_PROPOSAL,
      key: unique("matrix.key"),
    });
    const { proposalId } = proposed.json();
    return { params: { project, proposalId }, body: { evidenceRefs: ["review:1"] } };
  },
  getState: async ({ project }) => ({ params: { project, key: "release.branch" } }),
  stateHistory: async ({ project }) => ({ params: { project, key: "release.branch" } }),
  contradictions: async ({ project }) => ({ params: { project } }),
  episodes: async ({ project }) => ({ params: { project }, query: { limit: "5" } }),
  explain: async ({ project }) => ({ params: { project, itemId: "state_unknown" } }),
  startRun: async ({ project }) => ({ params: { project }, body: { workflow: "ci" } }),
  finishRun: async ({ app, project }) => ({
    params: { project, runId: await startRun(app, project) },
    body: { outcome: "succeeded" },
  }),
  appendJournal: async ({ app, project }) => ({
    params: { project, runId: await startRun(app, project) },
    body: { category: "observation", summary: "The build took four minutes" },
  }),
  reviewJournal: async ({ app, project }) => ({
    params: { project, entryId: await finishedEntry(app, project) },
    body: { evidenceRefs: ["review:pr-12"] },
  }),
  wikiRecords: async ({ project }) => ({ params: { project } }),
  createProject: async () => ({ body: { id: unique("made") } }),
  listProjects: async () => ({}),
  createAgentKey: async ({ project }) => ({ params: { project }, body: { agentId: unique("agent") } }),
  revokeAgentKey: async ({ app, project }) => {
    const agentId = unique("agent-to-revoke");
    const created = await call(app, "POST", `/v1/projects/${project}/agents`, ADMIN_TOKEN, { agentId });
    if (created.statusCode !== 201) throw new Error(`createAgentKey ${created.statusCode}`);
    return { params: { project, agentId } };
  },
  updateProject: async ({ project }) => ({ params: { project }, body: { checkoutRoot: tmpdir() } }),
  removeProject: async ({ app }) => {
    // A fresh, empty project: removing it needs no force.
    const id = unique("to-remove");
    const created = await call(app, "POST", "/v1/projects", ADMIN_TOKEN, { id });
    if (created.statusCode !== 201) throw new Error(`createProject ${created.statusCode}`);
    return { params: { project: id } };
  },
  listAgentKeys: async ({ project }) => ({ params: { project } }),
  rotateAgentKey: async ({ app, project }) => {
    const agentId = unique("agent-to-rotate");
    const created = await call(app, "POST", `/v1/projects/${project}/agents`, ADMIN_TOKEN, { agentId });
    if (created.statusCode !== 201) throw new Error(`createAgentKey ${created.statusCode}`);
    return { params: { project, agentId } };
  },
  createOperator: async () => ({ body: { name: unique("operator") } }),
  listOperators: async () => ({}),
  revokeOperator: async ({ app }) => {
    const name = unique("operator-to-revoke");
    const created = await call(app, "POST", "/v1/operators", ADMIN_TOKEN, { name });
    if (created.statusCode !== 201) throw new Error(`createOperator ${created.statusCode}`);
    return { params: { name } };
  },
  revoke: async ({ project }) => ({
    params: { project },
    body: { target: "evidence", value: unique("ref:matrix"), reason: "matrix" },
  }),
  listRevocations: async ({ project }) => ({ params: { project } }),
  unrevoke: async ({ app, project }) => ({
    params: { project, revocationId: await revocation(app, project) },
    body: { reason: "matrix" },
  }),
  forget: async ({ app, project }) => ({
    params: { project, itemId: `journal_${await journalEntry(app, project, unique("Forget me"))}` },
    body: { reason: "matrix" },
  }),
  listTombstones: async ({ project }) => ({ params: { project } }),
  unforget: async ({ app, project }) => ({
    params: { project, tombstoneId: await tombstone(app, project) },
    body: { reason: "matrix" },
  }),
  listWithheld: async ({ project }) => ({ params: { project } }),
  listPackets: async ({ project }) => ({ params: { project }, query: { limit: "5" } }),
  getPacket: async ({ app, project, key }) => {
    const served = await call(app, "POST", `/v1/projects/${project}/context`, key, {
      role: "planner",
      task: unique("stored packet"),
    });
    if (served.statusCode !== 200) throw new Error(`getContext ${served.statusCode}`);
    return { params: { project, packetId: served.json().audit.packetId } };
  },
  replayPacket: async ({ app, project, key }) => {
    const task = unique("replayed packet");
    const served = await call(app, "POST", `/v1/projects/${project}/context`, key, { role: "planner", task });
    if (served.statusCode !== 200) throw new Error(`getContext ${served.statusCode}`);
    return { params: { project, packetId: served.json().audit.packetId }, body: { task } };
  },
};

/** A fresh active revocation of the project (of a reference nothing holds). */
export async function revocation(app: FastifyInstance, project: string): Promise<string> {
  const made = await call(app, "POST", `/v1/projects/${project}/revocations`, ADMIN_TOKEN, {
    target: "evidence",
    value: unique("ref:to-lift"),
    reason: "to lift",
  });
  if (made.statusCode !== 201) throw new Error(`revoke ${made.statusCode}: ${made.body}`);
  return made.json().revocation.id;
}

/** A journal entry of a running run, with this summary. */
export async function journalEntry(app: FastifyInstance, project: string, summary: string): Promise<string> {
  const runId = await startRun(app, project);
  const appended = await call(app, "POST", `/v1/projects/${project}/runs/${runId}/journal`, ADMIN_TOKEN, {
    category: "observation",
    summary,
  });
  if (appended.statusCode !== 201) throw new Error(`appendJournal ${appended.statusCode}: ${appended.body}`);
  return appended.json().entry.id;
}

/** A fresh active tombstone of the project (of a journal entry made for it). */
export async function tombstone(app: FastifyInstance, project: string): Promise<string> {
  const entryId = await journalEntry(app, project, unique("Forgotten"));
  const made = await call(app, "POST", `/v1/projects/${project}/items/${entryId}/forget`, ADMIN_TOKEN, {
    reason: "to lift",
  });
  if (made.statusCode !== 201) throw new Error(`forget ${made.statusCode}: ${made.body}`);
  return made.json().tombstone.id;
}

export async function startRun(app: FastifyInstance, project: string): Promise<string> {
  const started = await call(app, "POST", `/v1/projects/${project}/runs`, ADMIN_TOKEN, { workflow: "ci" });
  if (started.statusCode !== 201) throw new Error(`startRun ${started.statusCode}: ${started.body}`);
  return started.json().run.id;
}

/** A journal entry of a run that has finished: one that can be reviewed. */
export async function finishedEntry(
  app: FastifyInstance,
  project: string,
  category = "decision",
  summary = "Release from the main branch",
): Promise<string> {
  const runId = await startRun(app, project);
  const appended = await call(app, "POST", `/v1/projects/${project}/runs/${runId}/journal`, ADMIN_TOKEN, {
    category,
    summary,
  });
  if (appended.statusCode !== 201) throw new Error(`appendJournal ${appended.statusCode}: ${appended.body}`);
  const finished = await call(app, "POST", `/v1/projects/${project}/runs/${runId}/finish`, ADMIN_TOKEN, {
    outcome: "succeeded",
  });
  if (finished.statusCode !== 200) throw new Error(`finishRun ${finished.statusCode}: ${finished.body}`);
  return appended.json().entry.id;
}
