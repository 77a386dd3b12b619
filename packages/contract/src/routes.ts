import { z } from "zod";
import type { ErrorCode } from "./errors.js";
import {
  IdSchema,
  OperatorNameSchema,
  ProjectIdSchema,
  RefListSchema,
  RefSchema,
  TimestampSchema,
} from "./fields.js";
import { ContextItemSchema } from "./item.js";
import { JournalEntrySchema, JournalReviewSchema, StepManifestSchema } from "./journal.js";
import { LIMITS } from "./limits.js";
import {
  AssembledPacketSchema,
  PacketIdSchema,
  RecallResultSchema,
  StoredPacketSchema,
  WITHHELD_REASONS,
} from "./packet.js";
import { ContextRequestSchema, RecallRequestSchema } from "./request.js";
import {
  ReasonBodySchema,
  RevocationParamsSchema,
  RevocationSchema,
  RevokeBodySchema,
  TombstoneParamsSchema,
  TombstoneSchema,
  WithheldAuthoredSchema,
} from "./revocation.js";
import { AuthoritySchema, ConfidenceSchema, JournalCategorySchema } from "./vocabulary.js";

/** An RFC 9457 problem document, as the hub answers every error. */
export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  code: z.string(),
  detail: z.string(),
});
export type Problem = z.infer<typeof ProblemSchema>;

const ProjectParams = z.strictObject({ project: ProjectIdSchema });
const StateKeySchema = z.string().trim().min(1).max(LIMITS.stateKeyChars);
const EvidenceRefsSchema = z
  .array(RefSchema)
  .min(LIMITS.minStateEvidenceRefs)
  .max(LIMITS.maxStateEvidenceRefs);
const ActorSchema = z.string().trim().min(1).max(LIMITS.idChars);

/** A registered project and the checkout its authored memory and skills are read from. */
export const ProjectSchema = z.object({
  id: z.string(),
  /** Absolute path of the project's checkout, or null when none is registered. */
  checkoutRoot: z.string().nullable(),
  createdAt: z.string(),
});
/** A registered project, as the hub answers it and as the store keeps it. */
export type ProjectRecord = z.infer<typeof ProjectSchema>;

/** A checkout root as the API takes it: an absolute path of an existing folder on the hub's machine. */
const CheckoutRootSchema = z.string().min(1).max(4096);

/** An agent's active key, without the key: who holds it and since when. */
export const AgentKeySchema = z.object({ agentId: z.string(), createdAt: z.string() });
export type AgentKeyRecord = z.infer<typeof AgentKeySchema>;

/** A named operator's active token, without the token. */
export const OperatorSchema = z.object({ name: z.string(), createdAt: z.string() });
export type OperatorRecord = z.infer<typeof OperatorSchema>;

/** A workflow run. `finishedAt`, `failingStep` and `lessons` are absent until set, never undefined-valued. */
export const RunSchema = z.object({
  id: z.string(),
  project: z.string(),
  workflow: z.string(),
  status: z.enum(["running", "succeeded", "failed", "cancelled"]),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  failingStep: z.string().optional(),
  lessons: z.array(z.string()).optional(),
});
/** A workflow run, as the hub answers it and as the store keeps it. */
export type RunRecord = z.infer<typeof RunSchema>;

export const ExplanationSchema = z.object({
  id: z.string(),
  exists: z.boolean(),
  /** Why the hub withholds the item from every packet and recall; absent for an item it serves. */
  withheld: z.enum(WITHHELD_REASONS).optional(),
  item: z
    .object({
      id: z.string(),
      kind: z.string(),
      authority: z.string(),
      confidence: z.string(),
      sourceType: z.string(),
      sourceRef: z.string().optional(),
    })
    .optional(),
  lineage: z.array(
    z.object({
      id: z.string(),
      exists: z.boolean(),
      sourceType: z.string().optional(),
      sourceRef: z.string().optional(),
    }),
  ),
  lineageDepth: z.int(),
  evidenceRefs: z.array(z.string()),
});

/** A reviewed journal entry of a finished run, with its run and its review. */
export const ReviewedJournalEntrySchema = z.object({
  entry: JournalEntrySchema,
  run: RunSchema,
  review: JournalReviewSchema,
});
export type ReviewedJournalEntry = z.infer<typeof ReviewedJournalEntrySchema>;

/**
 * What the knowledge wiki is compiled from: a project's reviewed records only. Current and superseded state (never
 * a pending or consumed proposal), the open contradictions (by id: compiling never resolves one), the active memory
 * facts and verified promoted skills of the project's own checkout, and the journal entries of finished runs that an
 * operator reviewed.
 */
export const WikiRecordsSchema = z.object({
  project: z.string(),
  /** The hub's time when the records were read. */
  generatedAt: z.string(),
  state: z.array(ContextItemSchema),
  memory: z.array(ContextItemSchema),
  skills: z.array(ContextItemSchema),
  journal: z.array(ReviewedJournalEntrySchema),
  contradictions: z.object({
    state: z.array(z.object({ stateKey: z.string(), itemIds: z.array(z.string()) })),
    journal: z.array(z.string()),
  }),
});
export type WikiRecords = z.infer<typeof WikiRecordsSchema>;

/**
 * Who may call a route: `none` needs no credential; `admin` takes the admin token only (hub management: projects,
 * agent keys, operators); `operator` takes the admin token or a named operator's token (operator work: promotion,
 * review, explain); `project` takes the admin token, an operator's token, or an agent key of the path's project.
 */
export type RouteAuth = "none" | "admin" | "operator" | "project";

/** One HTTP route as data: the hub registers it, the client calls it, the OpenAPI document describes it. */
export interface RouteDefinition {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly summary: string;
  readonly auth: RouteAuth;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly status: 200 | 201;
  readonly response: z.ZodType;
  readonly errors: readonly ErrorCode[];
}

const AUTH_ERRORS = ["invalid_auth", "context_isolation_violation", "rate_limited"] as const;
/**
 * What an admin or operator route that reads or changes one record by id can answer besides success: the
 * credential's errors, a hub without an admin token, a malformed request and an unknown record.
 */
const OPERATOR_RECORD_ERRORS = [
  ...AUTH_ERRORS,
  "admin_auth_not_configured",
  "invalid_request",
  "not_found",
] as const;

/** Every route of the hub's API, versioned under /v1. */
export const ROUTES = {
  health: {
    method: "GET",
    path: "/v1/health",
    summary: "Liveness and version",
    auth: "none",
    status: 200,
    response: z.object({ status: z.literal("ok"), version: z.string() }),
    errors: [],
  },
  getContext: {
    method: "POST",
    path: "/v1/projects/:project/context",
    summary: "Assemble a context packet for a role and task",
    auth: "project",
    params: ProjectParams,
    body: ContextRequestSchema.omit({ project: true }),
    status: 200,
    response: AssembledPacketSchema,
    errors: [...AUTH_ERRORS, "invalid_request", "context_limits_exceeded", "not_found"],
  },
  recall: {
    method: "POST",
    path: "/v1/projects/:project/recall",
    summary: "Recall records by query (metadata only)",
    auth: "project",
    params: ProjectParams,
    body: RecallRequestSchema.omit({ project: true }),
    status: 200,
    response: RecallResultSchema,
    errors: [...AUTH_ERRORS, "invalid_request", "context_limits_exceeded", "not_found"],
  },
  proposeState: {
    method: "POST",
    path: "/v1/projects/:project/state/proposals",
    summary: "Propose a value for a state key (origin follows the credential)",
    auth: "project",
    params: ProjectParams,
    body: z.strictObject({
      key: StateKeySchema,
      summary: z.string(),
      authority: AuthoritySchema,
      confidence: ConfidenceSchema,
      evidenceRefs: z.array(RefSchema).max(LIMITS.maxStateEvidenceRefs),
      supersedes: RefListSchema.optional(),
      proposedBy: ActorSchema.optional(),
      /** Carried into the promoted value: withheld from that time on. */
      expiresAt: TimestampSchema.optional(),
      /** Carried into the promoted value: listed as due for review from that time on. */
      reviewBy: TimestampSchema.optional(),
    }),
    status: 201,
    response: z.object({ proposalId: z.string() }),
    errors: [
      ...AUTH_ERRORS,
      "invalid_request",
      "invalid_state_proposal",
      "context_authority_violation",
      "state_proposer_mismatch",
      "context_limits_exceeded",
      "admin_auth_not_configured",
      "not_found",
      "content_forgotten",
    ],
  },
  promoteState: {
    method: "POST",
    path: "/v1/projects/:project/state/proposals/:proposalId/promote",
    summary: "Promote a proposal with evidence (admin or operator; never the proposal's author)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, proposalId: IdSchema }),
    body: z.strictObject({ evidenceRefs: EvidenceRefsSchema }),
    status: 200,
    response: z.object({ state: ContextItemSchema }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "invalid_state_proposal",
      "state_proposal_not_found",
      "state_proposal_not_promotable",
      "state_promotion_invalid",
    ],
  },
  getState: {
    method: "GET",
    path: "/v1/projects/:project/state/:key",
    summary: "The current value of a state key, now or as of a time",
    auth: "project",
    params: z.strictObject({ project: ProjectIdSchema, key: StateKeySchema }),
    query: z.strictObject({ asOf: TimestampSchema.optional() }),
    status: 200,
    response: z.object({ state: ContextItemSchema }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found", "state_contradiction"],
  },
  stateHistory: {
    method: "GET",
    path: "/v1/projects/:project/state/:key/history",
    summary: "Every retained value and proposal of a state key",
    auth: "project",
    params: z.strictObject({ project: ProjectIdSchema, key: StateKeySchema }),
    status: 200,
    response: z.object({ items: z.array(ContextItemSchema) }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found"],
  },
  contradictions: {
    method: "GET",
    path: "/v1/projects/:project/contradictions",
    summary: "Open contradictions: competing state values or proposals, and contradiction journal entries",
    auth: "project",
    params: ProjectParams,
    status: 200,
    response: z.object({
      state: z.array(z.object({ stateKey: z.string(), itemIds: z.array(z.string()) })),
      journal: z.array(z.string()),
    }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found"],
  },
  episodes: {
    method: "GET",
    path: "/v1/projects/:project/episodes",
    summary: "Episodes of finished runs, newest first, paged",
    auth: "project",
    params: ProjectParams,
    query: z.strictObject({
      runId: IdSchema.optional(),
      limit: z.coerce.number().int().min(1).max(50).optional(),
      cursor: z.string().min(1).max(256).optional(),
    }),
    status: 200,
    response: z.object({ items: z.array(ContextItemSchema), nextCursor: z.string().optional() }),
    errors: [...AUTH_ERRORS, "invalid_request", "context_limits_exceeded", "not_found"],
  },
  explain: {
    method: "GET",
    path: "/v1/projects/:project/items/:itemId/explain",
    summary:
      "Whether an item exists, its lineage, evidence and the source of each ancestor (admin or operator)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, itemId: IdSchema }),
    status: 200,
    response: ExplanationSchema,
    errors: OPERATOR_RECORD_ERRORS,
  },
  startRun: {
    method: "POST",
    path: "/v1/projects/:project/runs",
    summary: "Start a workflow run",
    auth: "project",
    params: ProjectParams,
    body: z.strictObject({
      workflow: z.string().trim().min(1).max(LIMITS.idChars),
      runId: IdSchema.optional(),
    }),
    status: 201,
    response: z.object({ run: RunSchema }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found"],
  },
  finishRun: {
    method: "POST",
    path: "/v1/projects/:project/runs/:runId/finish",
    summary: "Finish a run; it yields one episode item",
    auth: "project",
    params: z.strictObject({ project: ProjectIdSchema, runId: IdSchema }),
    body: z.strictObject({
      outcome: z.enum(["succeeded", "failed", "cancelled"]),
      failingStep: z.string().trim().min(1).max(LIMITS.idChars).optional(),
      lessons: z.array(z.string().trim().min(1).max(LIMITS.summaryChars)).max(LIMITS.maxRefs).optional(),
    }),
    status: 200,
    response: z.object({ run: RunSchema, episode: ContextItemSchema }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found", "content_forgotten"],
  },
  appendJournal: {
    method: "POST",
    path: "/v1/projects/:project/runs/:runId/journal",
    summary: "Append a journal entry to a run",
    auth: "project",
    params: z.strictObject({ project: ProjectIdSchema, runId: IdSchema }),
    body: z.strictObject({
      category: JournalCategorySchema,
      summary: z.string(),
      stage: z.string().trim().min(1).max(LIMITS.roleChars).optional(),
      evidenceRefs: RefListSchema.optional(),
      manifest: StepManifestSchema.optional(),
    }),
    status: 201,
    response: z.object({ entry: JournalEntrySchema }),
    errors: [
      ...AUTH_ERRORS,
      "invalid_request",
      "journal_evidence_required",
      "context_limits_exceeded",
      "not_found",
      "content_forgotten",
    ],
  },
  reviewJournal: {
    method: "POST",
    path: "/v1/projects/:project/journal/:entryId/review",
    summary: "Mark a journal entry of a finished run reviewed, so the wiki compiles it (admin or operator)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, entryId: IdSchema }),
    body: z.strictObject({ evidenceRefs: RefListSchema.optional() }),
    status: 200,
    response: z.object({ review: JournalReviewSchema, created: z.boolean() }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "journal_review_invalid",
      "not_found",
    ],
  },
  wikiRecords: {
    method: "GET",
    path: "/v1/projects/:project/wiki/records",
    summary:
      "The reviewed records the knowledge wiki is compiled from: current and superseded state, open contradictions, authored memory, promoted skills and reviewed journal entries",
    auth: "project",
    params: ProjectParams,
    status: 200,
    response: WikiRecordsSchema,
    errors: [...AUTH_ERRORS, "invalid_request", "not_found"],
  },
  createProject: {
    method: "POST",
    path: "/v1/projects",
    summary: "Register a project and the checkout its memory and skills are read from (admin only)",
    auth: "admin",
    body: z.strictObject({ id: ProjectIdSchema, checkoutRoot: CheckoutRootSchema.optional() }),
    status: 201,
    response: z.object({ project: ProjectSchema }),
    errors: [...AUTH_ERRORS, "admin_auth_not_configured", "invalid_request"],
  },
  listProjects: {
    method: "GET",
    path: "/v1/projects",
    summary: "List projects (admin only)",
    auth: "admin",
    status: 200,
    response: z.object({ projects: z.array(ProjectSchema) }),
    errors: [...AUTH_ERRORS, "admin_auth_not_configured"],
  },
  createAgentKey: {
    method: "POST",
    path: "/v1/projects/:project/agents",
    summary: "Create an agent key for a project; the key is shown once (admin only)",
    auth: "admin",
    params: ProjectParams,
    body: z.strictObject({ agentId: IdSchema }),
    status: 201,
    response: z.object({ project: z.string(), agentId: z.string(), key: z.string() }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  revokeAgentKey: {
    method: "DELETE",
    path: "/v1/projects/:project/agents/:agentId",
    summary: "Revoke an agent key (admin only)",
    auth: "admin",
    params: z.strictObject({ project: ProjectIdSchema, agentId: IdSchema }),
    status: 200,
    response: z.object({ revoked: z.boolean() }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  updateProject: {
    method: "PATCH",
    path: "/v1/projects/:project",
    summary: "Change a project's checkout root (admin only)",
    auth: "admin",
    params: ProjectParams,
    body: z.strictObject({ checkoutRoot: CheckoutRootSchema }),
    status: 200,
    response: z.object({ project: ProjectSchema }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  removeProject: {
    method: "DELETE",
    path: "/v1/projects/:project",
    summary:
      "Remove a project; refused while it holds records or active agent keys, unless force=true deletes them too (admin only)",
    auth: "admin",
    params: ProjectParams,
    query: z.strictObject({ force: z.enum(["true", "false"]).optional() }),
    status: 200,
    response: z.object({
      removed: z.object({
        project: z.string(),
        items: z.int(),
        runs: z.int(),
        journalEntries: z.int(),
        agentKeys: z.int(),
      }),
    }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "not_found",
      "project_not_empty",
    ],
  },
  listAgentKeys: {
    method: "GET",
    path: "/v1/projects/:project/agents",
    summary: "List the agents of a project that hold an active key, never the keys (admin only)",
    auth: "admin",
    params: ProjectParams,
    status: 200,
    response: z.object({ project: z.string(), agents: z.array(AgentKeySchema) }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  rotateAgentKey: {
    method: "POST",
    path: "/v1/projects/:project/agents/:agentId/rotate",
    summary:
      "Replace an agent's active key with a new one, shown once; the old key stops working (admin only)",
    auth: "admin",
    params: z.strictObject({ project: ProjectIdSchema, agentId: IdSchema }),
    status: 200,
    response: z.object({ project: z.string(), agentId: z.string(), key: z.string() }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  createOperator: {
    method: "POST",
    path: "/v1/operators",
    summary: "Create a named operator's token; the token is shown once (admin only)",
    auth: "admin",
    body: z.strictObject({ name: OperatorNameSchema }),
    status: 201,
    response: z.object({ name: z.string(), token: z.string() }),
    errors: [...AUTH_ERRORS, "admin_auth_not_configured", "invalid_request", "context_limits_exceeded"],
  },
  listOperators: {
    method: "GET",
    path: "/v1/operators",
    summary: "List the operators that hold an active token, never the tokens (admin only)",
    auth: "admin",
    status: 200,
    response: z.object({ operators: z.array(OperatorSchema) }),
    errors: [...AUTH_ERRORS, "admin_auth_not_configured"],
  },
  revokeOperator: {
    method: "DELETE",
    path: "/v1/operators/:name",
    summary: "Revoke a named operator's token (admin only)",
    auth: "admin",
    params: z.strictObject({ name: OperatorNameSchema }),
    status: 200,
    response: z.object({ revoked: z.boolean() }),
    errors: [...AUTH_ERRORS, "admin_auth_not_configured", "invalid_request"],
  },
  // Revocation and forgetting (decision 0017): operator routes, so an agent key, and MCP with it, cannot call them.
  revoke: {
    method: "POST",
    path: "/v1/projects/:project/revocations",
    summary:
      "Revoke an evidence reference, a source reference or prefix, an item or an agent: what depends on it is withheld from every packet and recall (admin or operator)",
    auth: "operator",
    params: ProjectParams,
    body: RevokeBodySchema,
    status: 201,
    response: z.object({ revocation: RevocationSchema }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "not_found",
    ],
  },
  listRevocations: {
    method: "GET",
    path: "/v1/projects/:project/revocations",
    summary: "List a project's revocations, lifted ones too, oldest first (admin or operator)",
    auth: "operator",
    params: ProjectParams,
    status: 200,
    response: z.object({ revocations: z.array(RevocationSchema) }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  unrevoke: {
    method: "POST",
    path: "/v1/projects/:project/revocations/:revocationId/lift",
    summary: "Lift a revocation; its row stays with who lifted it, when and why (admin or operator)",
    auth: "operator",
    params: RevocationParamsSchema,
    body: ReasonBodySchema,
    status: 200,
    response: z.object({ revocation: RevocationSchema }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "not_found",
    ],
  },
  forget: {
    method: "POST",
    path: "/v1/projects/:project/items/:itemId/forget",
    summary:
      "Forget an item: a stored item or journal entry is deleted, an authored fact or skill withheld; a tombstone keeps the hash, never the content (admin or operator)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, itemId: IdSchema }),
    body: ReasonBodySchema,
    status: 201,
    /** `deleted`: the stored items and journal entries (as `journal_<entryId>`) that held the content, by id. */
    response: z.object({ tombstone: TombstoneSchema, deleted: z.array(z.string()) }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "not_found",
    ],
  },
  listTombstones: {
    method: "GET",
    path: "/v1/projects/:project/tombstones",
    summary: "List a project's tombstones, lifted ones too, oldest first (admin or operator)",
    auth: "operator",
    params: ProjectParams,
    status: 200,
    response: z.object({ tombstones: z.array(TombstoneSchema) }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  unforget: {
    method: "POST",
    path: "/v1/projects/:project/tombstones/:tombstoneId/lift",
    summary:
      "Lift a tombstone: its content may be written again; the row stays with who lifted it, when and why (admin or operator)",
    auth: "operator",
    params: TombstoneParamsSchema,
    body: ReasonBodySchema,
    status: 200,
    response: z.object({ tombstone: TombstoneSchema }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "not_found",
    ],
  },
  // The one route of the group an agent may read: ids and reasons only, so dispatch and brief can leave them out.
  listWithheld: {
    method: "GET",
    path: "/v1/projects/:project/withheld",
    summary:
      "The authored memory facts and promoted skills the hub withholds, by id with the reason, never a summary: what runs and instruction files leave out",
    auth: "project",
    params: ProjectParams,
    status: 200,
    /** Sorted by id; only authored items (`mem_…`, `skill_…`), whatever the reason. */
    response: z.object({ items: z.array(WithheldAuthoredSchema) }),
    errors: [...AUTH_ERRORS, "invalid_request", "not_found"],
  },
  listPackets: {
    method: "GET",
    path: "/v1/projects/:project/packets",
    summary: "The project's stored packet audits, last served first, paged (admin or operator)",
    auth: "operator",
    params: ProjectParams,
    query: z.strictObject({
      runId: IdSchema.optional(),
      limit: z.coerce.number().int().min(1).max(50).optional(),
      cursor: z.string().min(1).max(256).optional(),
    }),
    status: 200,
    response: z.object({ packets: z.array(StoredPacketSchema), nextCursor: z.string().optional() }),
    errors: [
      ...AUTH_ERRORS,
      "admin_auth_not_configured",
      "invalid_request",
      "context_limits_exceeded",
      "not_found",
    ],
  },
  getPacket: {
    method: "GET",
    path: "/v1/projects/:project/packets/:packetId",
    summary:
      "One stored packet audit by packet id: what was selected, why, and from which inputs (admin or operator)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, packetId: PacketIdSchema }),
    status: 200,
    response: z.object({ packet: StoredPacketSchema }),
    errors: OPERATOR_RECORD_ERRORS,
  },
  replayPacket: {
    method: "POST",
    path: "/v1/projects/:project/packets/:packetId/replay",
    summary:
      "Rebuild a stored packet from history, given its task: the same bytes /context answered, or which input can no longer be had (admin or operator)",
    auth: "operator",
    params: z.strictObject({ project: ProjectIdSchema, packetId: PacketIdSchema }),
    body: ContextRequestSchema.pick({ task: true }),
    status: 200,
    response: AssembledPacketSchema,
    errors: [
      ...OPERATOR_RECORD_ERRORS,
      "context_limits_exceeded",
      "replay_ranker_changed",
      "replay_task_mismatch",
      "replay_history_purged",
      "replay_history_forgotten",
      "replay_memory_unavailable",
      "replay_mismatch",
    ],
  },
} as const satisfies Record<string, RouteDefinition>;

export type RouteName = keyof typeof ROUTES;
