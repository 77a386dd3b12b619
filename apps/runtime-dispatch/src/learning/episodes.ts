import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { redactSecrets } from "@kxm/provenance";
import { z } from "zod";

// Episodes: one record per step attempt of `kxm run`, across every run of the project, in the runner-owned,
// append-only `.kxm/runs/episodes.jsonl` (local like the rest of `.kxm/runs/`, never committed). A line that does
// not parse is skipped on read and counted, never fatal: a crash mid-append loses at most that one line.

export const EPISODE_SCHEMA = "kxm.episode.v1";

/** The longest `tried` and `failure` texts an episode keeps, after redaction. */
const EPISODE_TEXT_CHARS = 500;

const EpisodeSchema = z.strictObject({
  schema: z.literal(EPISODE_SCHEMA),
  /** When the attempt finished (ISO 8601 with offset). */
  at: z.iso.datetime({ offset: true }),
  runId: z.string().min(1),
  workflow: z.string().min(1),
  stepId: z.string().min(1),
  agent: z.string().min(1),
  /** 1-based. */
  attempt: z.number().int().min(1),
  /** What the attempt tried: the agent's `Tried:` line, else the first line of the step's instructions. */
  tried: z.string().max(EPISODE_TEXT_CHARS),
  /** The attempt completed (any allowed outcome). */
  progress: z.boolean(),
  /** It completed with the step's first allowed outcome and every required evidence key. */
  verified: z.boolean(),
  /** Why it failed (the agent's `Failure:` line, else the runner's reason); "" when it did not fail. */
  failure: z.string().max(EPISODE_TEXT_CHARS),
  /** {@link normalizeFailure} of `failure`: what "the same failure" compares. */
  failureKey: z.string().max(EPISODE_TEXT_CHARS),
  durationMs: z.number().int().min(0),
});
export type Episode = z.infer<typeof EpisodeSchema>;

/** `<root>/.kxm/runs/episodes.jsonl`. */
export function episodesPath(root: string): string {
  return join(root, ...KXM_PATHS.episodes.split("/"));
}

/** A text as one redacted line of at most {@link EPISODE_TEXT_CHARS} code units (never inside a surrogate pair). */
export function episodeText(text: string): string {
  let line = redactSecrets(text).replace(/\s+/g, " ").trim();
  if (line.length > EPISODE_TEXT_CHARS) {
    line = line.slice(0, EPISODE_TEXT_CHARS);
    const last = line.charCodeAt(line.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) line = line.slice(0, -1);
  }
  return line;
}

/** An exit code or status (kept: exit code 2 and exit code 3 are different failures), a hex id, or a number. */
const VARIABLE_PART =
  /(\bexit(?:ed)?(?: with)?(?: code| status)?[ :=]*)(\d{1,3})\b|\b[0-9a-f]{7,}\b|\d+(?:\.\d+)?/g;

/**
 * The comparable form of a failure: lowercased, every run of digits (durations, line numbers, pids) and every hex
 * id of 7 or more characters replaced by `#`, quotes dropped, spaces collapsed. An exit code or exit status keeps
 * its number, since an agent that exits 2 and then 3 failed in two different ways. Two failures are the same when
 * their keys are equal.
 */
export function normalizeFailure(failure: string): string {
  return failure
    .toLowerCase()
    .replace(VARIABLE_PART, (_match, exit: string | undefined, code: string | undefined) =>
      exit === undefined ? "#" : `${exit}${code}`,
    )
    .replace(/["'`]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, EPISODE_TEXT_CHARS);
}

/** Appends one episode as one line (a single write, O_APPEND), creating the folder when needed. */
export async function appendEpisode(root: string, episode: Episode): Promise<void> {
  const record = EpisodeSchema.parse(episode);
  const path = episodesPath(root);
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(record)}\n`, { encoding: "utf8", flag: "a" });
}

/** Every episode in file order, and how many lines were skipped as corrupt. No file: none. */
export async function readEpisodes(root: string): Promise<{ episodes: Episode[]; skipped: number }> {
  let text: string;
  try {
    text = await readFile(episodesPath(root), "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return { episodes: [], skipped: 0 };
    throw error;
  }
  return parseEpisodes(text);
}

/** {@link readEpisodes} over a file's text. */
function parseEpisodes(text: string): { episodes: Episode[]; skipped: number } {
  const episodes: Episode[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const parsed = EpisodeSchema.safeParse(raw);
    if (parsed.success) episodes.push(parsed.data);
    else skipped++;
  }
  return { episodes, skipped };
}
