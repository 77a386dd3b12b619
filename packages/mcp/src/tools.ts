import {
  ContextToolInputSchema,
  EpisodeToolInputSchema,
  type HubClient,
  PromoteToolInputSchema,
  RecallToolInputSchema,
  type ToolName,
} from "@kxm/contract";
import type { z } from "zod";

/** One agent tool: its name, what an agent reads about it, its input schema and what it does. */
export interface KxmTool<S extends z.ZodObject = z.ZodObject> {
  readonly name: ToolName;
  readonly title: string;
  readonly description: string;
  readonly input: S;
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
      "and when the task changes. Give your role (planner, implementer, reviewer, critic, tester, or another " +
      "name) and the task; budget (tokens) and kinds are optional. Your project comes from your agent key.",
    input: ContextToolInputSchema,
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
      "Search the project's live records (evidence, state, episodes, knowledge, skills) by query. Answers carry " +
      "metadata only (id, kind, status, origin, authority, confidence, relevance), never the summaries: call " +
      "kxm_context to read content. Use it to check whether something is already known before proposing it.",
    input: RecallToolInputSchema,
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
      "value is stored as a proposal (origin peer, authority capped at evidence) and becomes current only when " +
      "an operator promotes it with evidence. Give at least one evidence reference (pr:12, a commit, a file). " +
      "Answers the proposal's id; until promotion, kxm_context still shows the old value.",
    input: PromoteToolInputSchema,
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
