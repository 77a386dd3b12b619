import {
  type AssembledPacket,
  type ContextItem,
  type ContextPacket,
  type JsonValue,
  LIMITS,
  type NearMiss,
  type Origin,
} from "@kxm/contract";
import { roundScore } from "./bm25.js";
import { estimateTokens } from "./budget.js";
import type { WithheldItem } from "./near-miss.js";
import type { ResolvedContextRequest } from "./request.js";
import type { Analysis } from "./tokenize.js";

/** Options of a packet assembly that do not come from the request. */
export type AssembleOptions = {
  /**
   * How text becomes tokens (`standard`, the default, or the opt-in `english`). A {@link PoolIndex} analyses its
   * items when they enter, so it takes the profile when it is made and refuses a different one here.
   */
  readonly analysis?: Analysis;
  /** Ids of the items that are open contradictions: always eligible, ranked first, their own section. */
  readonly contradictionIds?: Iterable<string>;
  /** The caller's working state, carried into `packet.workingState` unchanged. */
  readonly workingState?: Readonly<Record<string, JsonValue>>;
  /**
   * Items a rule below the arbiter keeps out of the pool (revoked, forgotten, expired, a failing check): never
   * selected, only considered as near misses, with their reason. None may share an id with the pool or each other.
   */
  readonly withheld?: readonly WithheldItem[];
} & (
  | { readonly phases?: undefined; readonly now?: undefined }
  | {
      /**
       * Filled by {@link PoolIndex.assemble} (not by `assemblePacket`) with where the call's time went, for
       * benchmarks; without it no clock is read. Never changes the packet.
       */
      readonly phases: PacketPhases;
      /**
       * The clock the phases are measured with, in milliseconds (a benchmark passes `performance.now`): the
       * arbiter reads no clock of its own.
       */
      readonly now: () => number;
    }
);

/**
 * Milliseconds of one indexed assembly: the task's tokens; BM25 of the kinds the walk reaches and the matched count of
 * the rest; ranking (buckets and chunks); the budget fill with the packet and audit.
 */
export interface PacketPhases {
  tokenizeMs: number;
  scoreMs: number;
  sortMs: number;
  fillMs: number;
}

/** A selected item with what its placement needs. */
export interface Selection {
  readonly item: ContextItem;
  readonly score: number;
  readonly contradiction: boolean;
}

/** The counts an assembly reports, however the ranking was computed. */
export interface AssemblyOutcome {
  readonly selected: readonly Selection[];
  readonly chars: number;
  readonly deferred: number;
  readonly liveCount: number;
  readonly excludedSuperseded: number;
  readonly candidateCount: number;
  readonly matchedCandidates: number;
  readonly taskTokens: number;
  readonly nearMisses: NearMiss[];
}

/** The gap strings of docs/reference/behaviour.md section 2, step 6, in their order. */
function packetGaps(budgetTokens: number, outcome: AssemblyOutcome): string[] {
  const gaps: string[] = [];
  const selectedCount = outcome.selected.length;
  if (selectedCount > 0 && outcome.deferred > 0) {
    gaps.push(`budget of ${budgetTokens} tokens reached; ${outcome.deferred} candidates deferred`);
  }
  if (selectedCount === 0 && outcome.candidateCount > 0) {
    gaps.push(`budget of ${budgetTokens} tokens cannot fit any selected context`);
  }
  if (selectedCount >= LIMITS.maxPacketItems)
    gaps.push("context item limit reached; refine the task or kinds");
  if (outcome.liveCount === 0) gaps.push("no context records exist for this project yet");
  return gaps;
}

/** Places each selected item in exactly one section and writes the audit. */
export function buildAssembly(
  request: ResolvedContextRequest,
  outcome: AssemblyOutcome,
  options: AssembleOptions,
): AssembledPacket {
  const sections = {
    currentState: [] as ContextItem[],
    knowledge: [] as ContextItem[],
    evidence: [] as ContextItem[],
    episodes: [] as ContextItem[],
    skills: [] as ContextItem[],
    contradictions: [] as ContextItem[],
  };
  const provenanceSummary: Partial<Record<Origin, number>> = {};
  for (const { item, contradiction } of outcome.selected) {
    if (contradiction) sections.contradictions.push(item);
    else if (item.kind === "state") sections.currentState.push(item);
    else if (item.kind === "knowledge") sections.knowledge.push(item);
    else if (item.kind === "evidence") sections.evidence.push(item);
    else if (item.kind === "episode") sections.episodes.push(item);
    else sections.skills.push(item);
    const origin = item.provenance.sourceType;
    provenanceSummary[origin] = (provenanceSummary[origin] ?? 0) + 1;
  }
  const estimatedTokens = estimateTokens(outcome.chars);
  const unresolvedGaps = packetGaps(request.budgetTokens, outcome);
  const packet: ContextPacket = {
    project: request.project,
    role: request.role,
    ...sections,
    workingState: { ...(options.workingState ?? {}) },
    provenanceSummary,
    budgetTokens: request.budgetTokens,
    estimatedTokens,
    unresolvedGaps,
  };
  return {
    packet,
    audit: {
      request: request.echo,
      selectedIds: outcome.selected.map(({ item }) => item.id),
      candidateCount: outcome.candidateCount,
      excludedSuperseded: outcome.excludedSuperseded,
      budgetTokens: request.budgetTokens,
      estimatedTokens,
      unresolvedGaps: [...unresolvedGaps],
      relevance: {
        taskTokens: outcome.taskTokens,
        matchedCandidates: outcome.matchedCandidates,
        selected: outcome.selected.map(({ score }) => roundScore(score)),
      },
      nearMisses: outcome.nearMisses,
    },
  };
}
