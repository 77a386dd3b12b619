// The public surface of @kxm/contract. Named exports only: adding a name here makes it public on purpose.
// Everything here is pure data and functions; the hub client, which calls fetch, is the `@kxm/contract/client`
// subpath (client.ts), and nothing exported here imports it (the layer check's contract-client-subpath rule).
export { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode, isKxmError, KxmError } from "./errors.js";
export {
  ADMIN_ACTOR,
  IdSchema,
  OperatorNameSchema,
  operatorActor,
  ProjectIdSchema,
  RefListSchema,
  RefSchema,
  TimestampSchema,
} from "./fields.js";
export { type ContextItem, ContextItemSchema, type Provenance, ProvenanceSchema } from "./item.js";
export { type JournalEntry, JournalEntrySchema, type JournalReview, JournalReviewSchema } from "./journal.js";
export { LIMITS } from "./limits.js";
export { compareCodeUnits } from "./order.js";
export {
  type AssembledPacket,
  AssembledPacketSchema,
  type ContextPacket,
  ContextPacketSchema,
  type JsonValue,
  JsonValueSchema,
  PACKET_SECTIONS,
  type PacketAudit,
  PacketAuditSchema,
  type PacketMemory,
  PacketMemorySchema,
  type PacketSection,
  type RecallItem,
  RecallItemSchema,
  type RecallResult,
  RecallResultSchema,
  WITHHELD_STATES,
} from "./packet.js";
export {
  type ContextRequest,
  ContextRequestSchema,
  type RecallRequest,
  RecallRequestSchema,
} from "./request.js";
export {
  REVOCATION_TARGETS,
  type Revocation,
  RevocationSchema,
  type RevocationTarget,
  RevocationTargetSchema,
  TOMBSTONE_KINDS,
  type Tombstone,
  TombstoneSchema,
} from "./revocation.js";
export {
  DEFAULT_ROLE_POLICY,
  NAMED_ROLES,
  type NamedRole,
  ROLE_POLICIES,
  type RolePolicy,
  roleForAgentId,
  rolePolicy,
} from "./roles.js";
export {
  type AgentKeyRecord,
  AgentKeySchema,
  ExplanationSchema,
  type OperatorRecord,
  OperatorSchema,
  type Problem,
  ProblemSchema,
  type ProjectRecord,
  ProjectSchema,
  type ReviewedJournalEntry,
  ReviewedJournalEntrySchema,
  ROUTES,
  type RouteAuth,
  type RouteDefinition,
  type RouteName,
  type RunRecord,
  RunSchema,
  type WikiRecords,
  WikiRecordsSchema,
} from "./routes.js";
export {
  AGENT_AUTHORITIES,
  type ContextToolInput,
  ContextToolInputSchema,
  type EpisodeToolInput,
  EpisodeToolInputSchema,
  MCP_PATHS,
  type PromoteToolInput,
  PromoteToolInputSchema,
  type PromoteToolOutput,
  PromoteToolOutputSchema,
  type RecallToolInput,
  RecallToolInputSchema,
  TOOL_INPUT_SCHEMAS,
  TOOL_OUTPUT_SCHEMAS,
  type ToolErrorContent,
  ToolErrorSchema,
  type ToolName,
  type Whoami,
  WhoamiSchema,
} from "./tools.js";
export { kxmErrorFromZod, parseOrThrow } from "./validation.js";
export {
  AUTHORITIES,
  type Authority,
  AuthoritySchema,
  CONFIDENCES,
  CONTROL_PLANE_FIELDS,
  type Confidence,
  ConfidenceSchema,
  ITEM_KINDS,
  ITEM_STATUSES,
  type ItemKind,
  ItemKindSchema,
  type ItemStatus,
  ItemStatusSchema,
  JOURNAL_CATEGORIES,
  type JournalCategory,
  JournalCategorySchema,
  ORIGIN_CEILINGS,
  ORIGINS,
  type Origin,
  OriginSchema,
  SHARED_PROJECT,
} from "./vocabulary.js";
