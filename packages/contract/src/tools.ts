import { z } from "zod";
import { ProjectIdSchema } from "./fields.js";
import { ContextRequestSchema, RecallRequestSchema } from "./request.js";
import { ROUTES } from "./routes.js";

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
    "Your role: planner, implementer, reviewer, critic, tester, or any other name (the default policy)",
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
  kinds: RecallRequestSchema.shape.kinds.describe("Only these item kinds"),
  limit: RecallRequestSchema.shape.limit.describe("At most this many hits"),
});
export type RecallToolInput = z.infer<typeof RecallToolInputSchema>;

const proposal = ROUTES.proposeState.body.shape;

/** `kxm_promote`: propose a value for a state key. Despite its name it only proposes; an operator promotes. */
export const PromoteToolInputSchema = z.strictObject({
  project: ToolProjectSchema,
  key: proposal.key.describe("The state key, such as release.branch"),
  summary: proposal.summary.describe("The proposed value, in one or two sentences"),
  authority: proposal.authority.describe(
    "How authoritative the value is; an agent's proposal is capped at evidence (policy or instruction is refused)",
  ),
  confidence: proposal.confidence.describe("verified, probable or uncertain"),
  evidenceRefs: proposal.evidenceRefs.describe(
    "References that support the value, such as pr:12 or a commit; at least one",
  ),
  supersedes: proposal.supersedes.describe("Ids of the state items this value replaces"),
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
