// Renders the route reference of docs/reference/http-api.md from the contract's ROUTES, so the page cannot drift
// from the table: docs.test.ts compares the page with this output.
import { ERROR_CATALOGUE, type ErrorCode, ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import { z } from "zod";

/** An example call of each route, shown as curl; the docs test checks each against the route's schemas. */
export const EXAMPLES: Record<
  RouteName,
  { params?: Record<string, string>; query?: Record<string, string>; body?: unknown }
> = {
  health: {},
  getContext: {
    params: { project: "demo" },
    body: { role: "planner", task: "Which branch do we release from?" },
  },
  recall: { params: { project: "demo" }, body: { query: "release branch" } },
  proposeState: {
    params: { project: "demo" },
    body: {
      key: "release.branch",
      summary: "Releases are cut from the main branch",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    },
  },
  promoteState: {
    params: { project: "demo", proposalId: "$PROPOSAL_ID" },
    body: { evidenceRefs: ["review:pr-12"] },
  },
  getState: { params: { project: "demo", key: "release.branch" }, query: { asOf: "2026-09-01T00:00:00Z" } },
  stateHistory: { params: { project: "demo", key: "release.branch" } },
  contradictions: { params: { project: "demo" } },
  episodes: { params: { project: "demo" }, query: { limit: "10" } },
  explain: { params: { project: "demo", itemId: "$ITEM_ID" } },
  startRun: { params: { project: "demo" }, body: { workflow: "release" } },
  finishRun: {
    params: { project: "demo", runId: "$RUN_ID" },
    body: {
      outcome: "failed",
      failingStep: "integration-tests",
      lessons: ["Integration tests need a database"],
    },
  },
  appendJournal: {
    params: { project: "demo", runId: "$RUN_ID" },
    body: { category: "error", summary: "The integration tests timed out", stage: "verify" },
  },
  reviewJournal: {
    params: { project: "demo", entryId: "$ENTRY_ID" },
    body: { evidenceRefs: ["review:pr-12"] },
  },
  wikiRecords: { params: { project: "demo" } },
  createProject: { body: { id: "demo", checkoutRoot: "/srv/checkouts/demo" } },
  listProjects: {},
  createAgentKey: { params: { project: "demo" }, body: { agentId: "agent-planner" } },
  revokeAgentKey: { params: { project: "demo", agentId: "agent-planner" } },
  updateProject: { params: { project: "demo" }, body: { checkoutRoot: "/srv/checkouts/demo-v2" } },
  removeProject: { params: { project: "demo" }, query: { force: "true" } },
  listAgentKeys: { params: { project: "demo" } },
  rotateAgentKey: { params: { project: "demo", agentId: "agent-planner" } },
  createOperator: { body: { name: "alice" } },
  listOperators: {},
  revokeOperator: { params: { name: "alice" } },
  revoke: {
    params: { project: "demo" },
    body: { target: "source_prefix", value: "docs/old/", reason: "The old docs were withdrawn" },
  },
  listRevocations: { params: { project: "demo" } },
  unrevoke: {
    params: { project: "demo", revocationId: "$REVOCATION_ID" },
    body: { reason: "The docs were checked again" },
  },
  forget: { params: { project: "demo", itemId: "$ITEM_ID" }, body: { reason: "Personal data" } },
  listTombstones: { params: { project: "demo" } },
  unforget: {
    params: { project: "demo", tombstoneId: "$TOMBSTONE_ID" },
    body: { reason: "Consent was given" },
  },
  listWithheld: { params: { project: "demo" } },
  listPackets: { params: { project: "demo" }, query: { runId: "run-1", limit: "10" } },
  getPacket: { params: { project: "demo", packetId: "pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7" } },
  replayPacket: {
    params: { project: "demo", packetId: "pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7" },
    body: { task: "Which branch do we release from?" },
  },
};

const AUTH_TEXT: Record<RouteDefinition["auth"], string> = {
  none: "none",
  admin: "admin token only (503 `admin_auth_not_configured` when the hub has none)",
  operator:
    "the admin token or an operator's token (503 `admin_auth_not_configured` when the hub has no admin token)",
  project: "the admin token, an operator's token, or an agent key of the path's project",
};

function fields(schema: z.ZodType | undefined): string {
  if (schema === undefined) return "none";
  if (!(schema instanceof z.ZodObject)) return "see the OpenAPI document";
  const shape = schema.shape as Record<string, z.ZodType>;
  return Object.entries(shape)
    .map(([name, field]) => (field.safeParse(undefined).success ? `\`${name}\`` : `\`${name}\` (required)`))
    .join(", ");
}

function responseKeys(schema: z.ZodType): string {
  if (!(schema instanceof z.ZodObject)) return "see the OpenAPI document";
  return `\`{${Object.keys(schema.shape).join(", ")}}\``;
}

function curl(name: RouteName, route: RouteDefinition): string {
  const example = EXAMPLES[name];
  let path = route.path.replace(/:(\w+)/g, (_, param: string) => example.params?.[param] ?? `:${param}`);
  const query = new URLSearchParams(example.query ?? {}).toString();
  if (query !== "") path += `?${query}`;
  const lines = [`curl -sS -X ${route.method} "$KXM_HUB_URL${path}"`];
  if (route.auth === "admin") lines.push(`-H "Authorization: Bearer $KXM_AUTH_TOKEN"`);
  if (route.auth === "operator") lines.push(`-H "Authorization: Bearer $KXM_OPERATOR_TOKEN"`);
  if (route.auth === "project") lines.push(`-H "Authorization: Bearer $KXM_AGENT_KEY"`);
  if (example.body !== undefined) {
    lines.push(`-H "Content-Type: application/json"`);
    lines.push(`-d '${JSON.stringify(example.body)}'`);
  }
  return ["```bash", lines.join(" \\\n  "), "```"].join("\n");
}

/** The route reference: one section per route of the table, in table order. */
export function renderRouteReference(): string {
  const sections = (Object.keys(ROUTES) as RouteName[]).map((name) => {
    const route: RouteDefinition = ROUTES[name];
    const errors = (route.errors as readonly ErrorCode[])
      .map((code) => `\`${code}\` ${ERROR_CATALOGUE[code].status}`)
      .join(", ");
    return [
      `### \`${route.method} ${route.path}\``,
      "",
      `${route.summary}.`,
      "",
      "| | |",
      "|---|---|",
      `| Operation | \`${name}\` |`,
      `| Auth | ${AUTH_TEXT[route.auth]} |`,
      `| Path parameters | ${
        route.params === undefined
          ? "none"
          : Object.keys(route.params.shape)
              .map((p) => `\`${p}\``)
              .join(", ")
      } |`,
      `| Query | ${fields(route.query)} |`,
      `| Body | ${fields(route.body)} |`,
      `| Success | \`${route.status}\` ${responseKeys(route.response)} |`,
      `| Errors | ${errors === "" ? "none of its own" : errors} |`,
      "",
      curl(name, route),
    ].join("\n");
  });
  return sections.join("\n\n");
}

export const ROUTES_START =
  "<!-- routes:start (generated from ROUTES by apps/hub/test/http-api-doc.ts; do not edit) -->";
export const ROUTES_END = "<!-- routes:end -->";
