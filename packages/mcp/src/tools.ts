import {
  AGENT_AUTHORITIES,
  AUTHORITIES,
  ContextToolInputSchema,
  EpisodeToolInputSchema,
  KxmError,
  NAMED_ROLES,
  PromoteToolInputSchema,
  RecallToolInputSchema,
  TOOL_OUTPUT_SCHEMAS,
  type ToolName,
} from "@kxm/contract";
import type { HubClient } from "@kxm/contract/client";
import type { z } from "zod";

/** One agent tool: its name, what an agent reads about it, its input and output schemas and what it does. */
export interface KxmTool<S extends z.ZodObject = z.ZodObject> {
  readonly name: ToolName;
  readonly title: string;
  readonly description: string;
  readonly input: S;
  /** The structured content of a successful answer (from the contract). */
  readonly output: z.ZodType;
  /** Refuses raw arguments with a more telling code than the schema's, before they are parsed. */
  readonly refuse?: (raw: Readonly<Record<string, unknown>>) => void;
  /** Runs the tool for the credential's project, through the hub client only. */
  readonly run: (client: HubClient, project: string, args: z.output<S>) => Promise<Record<string, unknown>>;
}

function tool<S extends z.ZodObject>(definition: KxmTool<S>): KxmTool {
  return definition as unknown as KxmTool;
}

/** The four agent tools, in the order they are listed. */
export const KXM_TOOLS: readonly KxmTool[] = [
  tool({
    name: "kxm_context",
    title: "KXM context packet",
    description:
      "Get a token-budgeted context packet for your role and task from KXM: the project's policies and " +
      "instructions, current state values, relevant evidence, episodes of past runs, knowledge and skills, with " +
      "open contradictions and gaps, plus an audit of what was selected and why. Call it at the start of a task " +
      `and when the task changes. Give your role (${NAMED_ROLES.join(", ")}, or any other name, which gets ` +
      "the default policy) and the task; budget (tokens) and kinds are optional. Your project comes from your " +
      "agent key.",
    input: ContextToolInputSchema,
    output: TOOL_OUTPUT_SCHEMAS.kxm_context,
    run: (client, project, args) =>
      client.getContext({
        params: { project },
        body: {
          role: args.role,
          task: args.task,
          ...(args.budget === undefined ? {} : { budgetTokens: args.budget }),
          ...(args.kinds === undefined ? {} : { includeKinds: args.kinds }),
          ...(args.runId === undefined ? {} : { runId: args.runId }),
          ...(args.stage === undefined ? {} : { stage: args.stage }),
        },
      }),
  }),
  tool({
    name: "kxm_recall",
    title: "KXM recall",
    description:
      "Search the project's live records (evidence, state, episodes, knowledge) by query. Skills are never " +
      "recalled: kxm_context delivers the verified skills that fit your task. Answers carry metadata only (id, " +
      "kind, status, origin, authority, confidence, relevance), never the summaries: call kxm_context to read " +
      "content. Use it to check whether something is already known before proposing it.",
    input: RecallToolInputSchema,
    output: TOOL_OUTPUT_SCHEMAS.kxm_recall,
    run: (client, project, args) =>
      client.recall({
        params: { project },
        body: {
          query: args.query,
          ...(args.kinds === undefined ? {} : { kinds: args.kinds }),
          ...(args.limit === undefined ? {} : { limit: args.limit }),
        },
      }),
  }),
  tool({
    name: "kxm_promote",
    title: "KXM propose a state value",
    description:
      "Propose a value for a state key, such as release.branch. Despite its name, this tool only PROPOSES: the " +
      `value is stored as a proposal (origin peer, authority ${AGENT_AUTHORITIES.join(" or ")}) and becomes ` +
      "current only when an operator promotes it with evidence. Give at least one evidence reference (pr:12, a " +
      "commit, a file). Answers the proposal's id; until promotion, kxm_context still shows the old value.",
    input: PromoteToolInputSchema,
    output: TOOL_OUTPUT_SCHEMAS.kxm_promote,
    refuse: (raw) => {
      const claimed = raw.authority;
      const known = (AUTHORITIES as readonly unknown[]).includes(claimed);
      if (known && !(AGENT_AUTHORITIES as readonly unknown[]).includes(claimed)) {
        throw new KxmError(
          "context_authority_violation",
          `kxm_promote argument authority: an agent may claim ${AGENT_AUTHORITIES.join(" or ")} only; an operator sets higher authority`,
        );
      }
    },
    run: async (client, project, args) => {
      const answer = await client.proposeState({
        params: { project },
        body: {
          key: args.key,
          summary: args.summary,
          authority: args.authority,
          confidence: args.confidence,
          evidenceRefs: args.evidenceRefs,
          ...(args.supersedes === undefined ? {} : { supersedes: args.supersedes }),
          ...(args.expiresAt === undefined ? {} : { expiresAt: args.expiresAt }),
          ...(args.reviewBy === undefined ? {} : { reviewBy: args.reviewBy }),
        },
      });
      return { proposalId: answer.proposalId, status: "proposed" };
    },
  }),
  tool({
    name: "kxm_episode",
    title: "KXM episodes",
    description:
      "List the episodes of the project's finished workflow runs, newest first (the run, its outcome, the " +
      "failing step and the lessons), a page at a time. Give runId for one run's episode; when nextCursor is " +
      "present, pass it as cursor for the next page. Use it to learn from past failures before repeating them.",
    input: EpisodeToolInputSchema,
    output: TOOL_OUTPUT_SCHEMAS.kxm_episode,
    run: (client, project, args) =>
      client.episodes({
        params: { project },
        query: {
          ...(args.runId === undefined ? {} : { runId: args.runId }),
          ...(args.limit === undefined ? {} : { limit: args.limit }),
          ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
        },
      }),
  }),
];
