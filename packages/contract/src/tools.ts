import { z } from "zod";
import { ProjectIdSchema, RefSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import { AssembledPacketSchema, RecallResultSchema } from "./packet.js";
import { ContextRequestSchema, RecallRequestSchema } from "./request.js";
import { NAMED_ROLES } from "./roles.js";
import { ROUTES } from "./routes.js";
import { AUTHORITIES, type Authority, ORIGIN_CEILINGS } from "./vocabulary.js";

// The input schemas of KXM's agent tools (served over MCP by @kxm/mcp), built from the request and route schemas
// so that a tool and its HTTP route can never disagree. Every tool takes an optional `project`: the project always
// comes from the agent's credential, and naming another one is refused with `context_isolation_violation`.

/** The optional `project` every tool accepts; it must be the credential's own project. */
const ToolProjectSchema = ProjectIdSchema.optional().describe(
  "Optional. Your project comes from your agent key; naming another project is refused.",
);

/** `kxm_context`: assemble a context packet for a role and task. */
export const ContextToolInputSchema = z.strictObject({
  project: ToolProjectSchema,
  role: ContextRequestSchema.shape.role.describe(
    `Your role: ${NAMED_ROLES.join(", ")}, or any other name (which gets the default policy)`,
  ),
  task: ContextRequestSchema.shape.task.describe("The task you are working on, in a sentence or two"),
  budget: ContextRequestSchema.shape.budgetTokens.describe(
    "Token budget for the packet (default: the role's budget)",
  ),
  kinds: ContextRequestSchema.shape.includeKinds.describe(
    "Item kinds to include: evidence, state, episode, knowledge, skill (default: the role's kinds)",
  ),
  runId: ContextRequestSchema.shape.runId.describe("Limit journal items to one workflow run"),
  stage: ContextRequestSchema.shape.stage.describe("Limit journal items to one stage of the run"),
});
export type ContextToolInput = z.infer<typeof ContextToolInputSchema>;

/** `kxm_recall`: recall records by query; metadata only. */
export const RecallToolInputSchema = z.strictObject({
  project: ToolProjectSchema,
  query: RecallRequestSchema.shape.query.describe("Words to search the project's live records for"),
  kinds: RecallRequestSchema.shape.kinds.describe(
    "Only these item kinds; skills are never recalled (kxm_context delivers them), so skill alone finds nothing",
  ),
  limit: RecallRequestSchema.shape.limit.describe("At most this many hits"),
});
export type RecallToolInput = z.infer<typeof RecallToolInputSchema>;

const proposal = ROUTES.proposeState.body.shape;

/**
 * The authorities an agent's proposal may claim: those at or below the ceiling of the `peer` origin that every
 * agent credential writes with (evidence and hypothesis). Policy and instruction need an operator. `AUTHORITIES`
 * lists the strongest first, so these are the ceiling and everything after it.
 */
export const AGENT_AUTHORITIES = AUTHORITIES.slice(
  AUTHORITIES.indexOf(ORIGIN_CEILINGS.peer),
) as unknown as readonly [Authority, ...Authority[]];

/** `kxm_promote`: propose a value for a state key. Despite its name it only proposes; an operator promotes. */
export const PromoteToolInputSchema = z.strictObject({
  project: ToolProjectSchema,
  key: proposal.key.describe("The state key, such as release.branch"),
  summary: proposal.summary.max(LIMITS.summaryChars).describe("The proposed value, in one or two sentences"),
  authority: z
    .enum(AGENT_AUTHORITIES)
    .describe(
      `How authoritative the value is: ${AGENT_AUTHORITIES.join(" or ")} (an agent's proposal is capped there)`,
    ),
  confidence: proposal.confidence.describe("verified, probable or uncertain"),
  evidenceRefs: z
    .array(RefSchema)
    .min(LIMITS.minStateEvidenceRefs)
    .max(LIMITS.maxStateEvidenceRefs)
    .describe(
      `References that support the value, such as pr:12 or a commit; ${LIMITS.minStateEvidenceRefs} to ${LIMITS.maxStateEvidenceRefs}`,
    ),
  supersedes: proposal.supersedes.describe("Ids of the state items this value replaces"),
  expiresAt: proposal.expiresAt.describe(
    "When the value stops holding (ISO 8601 with a zone): from then on it is withheld from packets",
  ),
  reviewBy: proposal.reviewBy.describe(
    "When the value should be checked again (ISO 8601 with a zone): still served, listed as review_due",
  ),
});
export type PromoteToolInput = z.infer<typeof PromoteToolInputSchema>;

const episodeQuery = ROUTES.episodes.query.shape;

/** `kxm_episode`: the episodes of the project's finished runs, newest first, paged. */
export const EpisodeToolInputSchema = z.strictObject({
  project: ToolProjectSchema,
  runId: episodeQuery.runId.describe("Only the episode of this run"),
  limit: z.int().min(1).max(50).optional().describe("Episodes per page, 1 to 50"),
  cursor: episodeQuery.cursor.describe("The nextCursor of the previous page"),
});
export type EpisodeToolInput = z.infer<typeof EpisodeToolInputSchema>;

/** What a failed tool call carries as structured content: the catalogue code and a one-line message. */
export const ToolErrorSchema = z.object({ code: z.string(), message: z.string() });
export type ToolErrorContent = z.infer<typeof ToolErrorSchema>;

/** What `kxm_promote` answers: the proposal's id; the value is only proposed. */
export const PromoteToolOutputSchema = z.object({ proposalId: z.string(), status: z.literal("proposed") });
export type PromoteToolOutput = z.infer<typeof PromoteToolOutputSchema>;

/**
 * The structured content of each tool's successful answer: the packet and audit, the recall result, the proposal,
 * a page of episodes. A tool error carries {@link ToolErrorSchema} instead.
 */
export const TOOL_OUTPUT_SCHEMAS = {
  kxm_context: AssembledPacketSchema,
  kxm_recall: RecallResultSchema,
  kxm_promote: PromoteToolOutputSchema,
  kxm_episode: ROUTES.episodes.response,
} as const;

/** The agent tools by name, with their input schemas. */
export const TOOL_INPUT_SCHEMAS = {
  kxm_context: ContextToolInputSchema,
  kxm_recall: RecallToolInputSchema,
  kxm_promote: PromoteToolInputSchema,
  kxm_episode: EpisodeToolInputSchema,
} as const;
export type ToolName = keyof typeof TOOL_INPUT_SCHEMAS;

/** Who a credential is, as the hub's `GET /mcp/whoami` answers: the operator, or one project's agent. */
export const WhoamiSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("admin") }),
  z.object({ kind: z.literal("agent"), project: z.string(), agentId: z.string() }),
]);
export type Whoami = z.infer<typeof WhoamiSchema>;

/** The path of the hub's MCP endpoint (Streamable HTTP) and of its credential check. */
export const MCP_PATHS = { endpoint: "/mcp", whoami: "/mcp/whoami" } as const;
