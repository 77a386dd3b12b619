import { createHash } from "node:crypto";
import { assemblePacket } from "@kxm/arbiter";
import { type ContextItem, compareCodeUnits, LIMITS } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import type { ContextEntry } from "../dispatch/dispatch-context.js";
import { DISPATCH_GAPS, episodesSkippedGap } from "../dispatch/gaps.js";
import { type Episode, episodeText, readEpisodes } from "./episodes.js";
import type { LearningSettings } from "./settings.js";

// The episodes digest of the dispatch prompt: the earlier step attempts most relevant to this one, chosen by the
// arbiter (kind `episode`, the step's dispatch task, the digest's own budget), so a fresh agent sees the dead ends
// and the fixes before it repeats them. Pure over the episodes' records: the same records in any file order give
// the same entries, so the same prompt bytes.

/** Which attempt the digest is for, and what the arbiter selects with. */
export interface DigestRequest {
  project: string;
  /** The role the step's agent id maps to. */
  role: string;
  /** The step's dispatch task: its instructions, a blank line and the run prompt (cut to 2,000). */
  task: string;
  runId: string;
  stepId: string;
  /** 1-based. */
  attempt: number;
  settings: LearningSettings["episodes"];
}

/** What the digest delivers: entries in rank order, and gaps. */
export interface EpisodesDigest {
  entries: ContextEntry[];
  gaps: string[];
}

const ID_PATTERN = /^[^\s\p{Cc}]+$/u;

/** `at` as UTC to the second: `2026-12-02T13:00:00Z`. */
function digestTime(at: string): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** How the attempt ended, for the one-liner: `verified`, `ok (unverified)` or `FAILED: <failure>`. */
function verdict(episode: Episode): string {
  if (episode.verified) return "verified";
  if (episode.progress) return "ok (unverified)";
  const failure = episodeText(episode.failure);
  return failure === "" ? "FAILED" : `FAILED: ${failure}`;
}

/**
 * The episode's compact one-liner: `<at> <step>#<attempt>: <tried> -> verified`, `-> ok (unverified)` or
 * `-> FAILED: <failure>` (`<at> <step>#<attempt> -> …` when nothing was recorded as tried). Redacted, one line.
 */
function episodeLine(episode: Episode): string {
  const tried = episodeText(episode.tried);
  const head = `${digestTime(episode.at)} ${episodeText(episode.stepId)}#${episode.attempt}`;
  return `${head}${tried === "" ? "" : `: ${tried}`} -> ${verdict(episode)}`;
}

/** The episode's identity: one attempt of one step of one run. */
function episodeKey(episode: Episode): string {
  return JSON.stringify([episode.runId, episode.stepId, episode.attempt]);
}

/** `episode_<runId>_<stepId>_<attempt>`, or `episode_<hash>` when that is not a valid item id. */
function plainId(episode: Episode): string {
  return `episode_${episode.runId}_${episode.stepId}_${episode.attempt}`;
}

function hashedId(key: string): string {
  return `episode_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

/** The episode as a context item: kind `episode`, origin `workflow`, evidence, probable, observed when it ended. */
function episodeItem(episode: Episode, project: string, id = plainId(episode)): ContextItem {
  return parseContextItem({
    id,
    kind: "episode",
    project,
    summary: episodeLine(episode),
    provenance: { sourceType: "workflow", sourceRef: `run:${episodeText(episode.runId).slice(0, 128)}` },
    authority: "evidence",
    confidence: "probable",
    observedAt: new Date(episode.at).toISOString(),
  });
}

/**
 * The episodes recorded before attempt `attempt` of step `stepId` of run `runId`. While a run prepares an attempt,
 * that is every episode in the file (its own is written when it ends); re-rendering an attempt that already ran
 * leaves out its own episode, the step's later attempts, and everything recorded at or after the earliest of them.
 */
function recordedBefore(
  episodes: readonly Episode[],
  at: { runId: string; stepId: string; attempt: number },
): Episode[] {
  const isOwnOrLater = (episode: Episode) =>
    episode.runId === at.runId && episode.stepId === at.stepId && episode.attempt >= at.attempt;
  const own = episodes.filter(isOwnOrLater);
  if (own.length === 0) return [...episodes];
  const cutoff = Math.min(...own.map((episode) => Date.parse(episode.at)));
  return episodes.filter((episode) => !isOwnOrLater(episode) && Date.parse(episode.at) < cutoff);
}

/** One record per attempt: of duplicates, the latest `at`, then the greatest record text (order-independent). */
function dedupe(episodes: readonly Episode[]): Episode[] {
  const chosen = new Map<string, { episode: Episode; text: string }>();
  for (const episode of episodes) {
    const key = episodeKey(episode);
    const text = JSON.stringify(episode);
    const held = chosen.get(key);
    if (held !== undefined) {
      const time = Date.parse(episode.at) - Date.parse(held.episode.at);
      if (time < 0 || (time === 0 && compareCodeUnits(text, held.text) <= 0)) continue;
    }
    chosen.set(key, { episode, text });
  }
  return [...chosen.entries()].sort(([a], [b]) => compareCodeUnits(a, b)).map(([, held]) => held.episode);
}

/** Item ids: the plain id when it is valid and no other attempt has it, else a hash of the attempt's key. */
function itemIds(episodes: readonly Episode[]): string[] {
  const plain = episodes.map(plainId);
  const counts = new Map<string, number>();
  for (const id of plain) counts.set(id, (counts.get(id) ?? 0) + 1);
  return plain.map((id, i) =>
    id.length <= LIMITS.idChars && ID_PATTERN.test(id) && counts.get(id) === 1
      ? id
      : hashedId(episodeKey(episodes[i]!)),
  );
}

/**
 * Selects the digest from `episodes` (pure): those recorded before the attempt, one per attempt, as `episode` items
 * ranked by the arbiter with the step's dispatch task and a budget of `settings.digestTokens`, then at most
 * `settings.digestItems` of them in rank order. A budget or an item limit of 0 turns the digest off.
 */
export function selectEpisodes(episodes: readonly Episode[], request: DigestRequest): ContextEntry[] {
  const { digestTokens, digestItems } = request.settings;
  if (digestTokens === 0 || digestItems === 0) return [];
  const eligible = dedupe(recordedBefore(episodes, request));
  if (eligible.length === 0) return [];
  const ids = itemIds(eligible);
  const pool: ContextItem[] = [];
  eligible.forEach((episode, i) => {
    try {
      pool.push(episodeItem(episode, request.project, ids[i]));
    } catch {
      // A record the item rules refuse is left out, like a corrupt line.
    }
  });
  if (pool.length === 0) return [];
  const { packet, audit } = assemblePacket(pool, {
    project: request.project,
    role: request.role,
    task: request.task,
    budgetTokens: digestTokens,
    includeKinds: ["episode"],
  });
  const scores = new Map(audit.selectedIds.map((id, i) => [id, audit.relevance.selected[i] ?? 0]));
  return packet.episodes.slice(0, digestItems).map((item) => ({ item, score: scores.get(item.id) ?? 0 }));
}

/**
 * Reads `.kxm/runs/episodes.jsonl` under `root` and selects the digest. Never throws: an unreadable file or a
 * failure is a gap and no digest; corrupt lines are skipped and counted in a gap.
 */
export async function loadEpisodesDigest(root: string, request: DigestRequest): Promise<EpisodesDigest> {
  const { digestTokens, digestItems } = request.settings;
  if (digestTokens === 0 || digestItems === 0) return { entries: [], gaps: [] };
  let read: Awaited<ReturnType<typeof readEpisodes>>;
  try {
    read = await readEpisodes(root);
  } catch {
    return { entries: [], gaps: [DISPATCH_GAPS.episodesUnreadable] };
  }
  const gaps = read.skipped > 0 ? [episodesSkippedGap(read.skipped)] : [];
  try {
    return { entries: selectEpisodes(read.episodes, request), gaps };
  } catch {
    return { entries: [], gaps: [...gaps, DISPATCH_GAPS.episodesFailed] };
  }
}
