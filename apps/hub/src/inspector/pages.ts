// What each inspector page shows, read through the same services and route handlers as the HTTP API: the pools
// (`freshPool`), the stored packets (`listPackets`, `getPacket`), replay (`replayPacket`) and explain. Nothing
// here reads the store another way.

import { itemTokens } from "@kxm/arbiter";
import {
  type ContextItem,
  compareCodeUnits,
  isKxmError,
  KxmError,
  kxmErrorFromZod,
  type NearMiss,
  PACKET_SECTION_HEADINGS,
  PACKET_SECTIONS,
  type PacketMemory,
  ROUTES,
  type StoredPacket,
  WITHHELD_REASONS,
  type WithheldReason,
} from "@kxm/contract";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { Caller } from "../auth.js";
import { explain, freshPool, poolItem } from "../routes/context.js";
import { getPacket, listPackets, replayPacket } from "../routes/packets.js";
import { episodes } from "../routes/runs.js";
import { contradictions, getState, stateHistory } from "../routes/state.js";
import type { HubServices } from "../services.js";

/** What a page's data is read with: the hub's services, who asks, and the request's logger. */
export interface PageCall {
  readonly hub: HubServices;
  readonly caller: Caller;
  readonly log: FastifyBaseLogger;
}

/**
 * The path parameters of a page, checked with its API route's schema: an id that route would refuse names no
 * page, so it is a 404 like an id that names no record.
 */
function pathParams<S extends z.ZodType>(schema: S, params: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new KxmError("not_found", `no such ${what}`);
  return parsed.data;
}

export interface ProjectRow {
  readonly id: string;
  readonly memory: PacketMemory | undefined;
  /** Withheld items by reason, only the reasons with any, in `WITHHELD_REASONS` order. */
  readonly withheld: readonly { readonly reason: WithheldReason; readonly count: number }[];
  readonly items: number;
  readonly journalEntries: number;
}

/** Every project with its memory revision, what its pool withholds and why, and its record counts. */
export async function projectsPage({ hub }: PageCall): Promise<{ projects: ProjectRow[] }> {
  const projects: ProjectRow[] = [];
  for (const project of await hub.store.listProjects()) {
    const pool = await freshPool(hub, project.id);
    const withheld = pool.withheldItems();
    projects.push({
      id: project.id,
      memory: pool.authoredMemory(),
      withheld: WITHHELD_REASONS.map((reason) => ({
        reason,
        count: withheld.filter((entry) => entry.reason === reason).length,
      })).filter((entry) => entry.count > 0),
      items: pool.baseItems().length,
      journalEntries: pool.journalRecords().length,
    });
  }
  return { projects };
}

/** One page of a project's stored packets, last served first. */
export async function packetsPage(call: PageCall, params: unknown, query: { cursor?: unknown }) {
  const { project } = pathParams(ROUTES.listPackets.params, params, "project");
  const cursor = ROUTES.listPackets.query.safeParse(
    typeof query.cursor === "string" ? { cursor: query.cursor } : {},
  );
  if (!cursor.success) throw new KxmError("not_found", "no such page of packets");
  const page = await listPackets({ ...call, params: { project }, query: cursor.data, body: undefined });
  return { project, ...page };
}

/** A selected item of a stored packet, with its score and, where the pool still holds it, the item now. */
interface SelectedRow {
  readonly id: string;
  readonly score: number | undefined;
  readonly item: ContextItem | undefined;
  /** What the item costs a packet on its own, as the hub holds it now (a near miss's `tokens`). */
  readonly tokens: number | undefined;
  /** The item's time for the recency key (the later of observedAt and validFrom), if it has one. */
  readonly time: string | undefined;
}

/** The later of an item's `observedAt` and `validFrom`, as written: the arbiter's eighth ranking key. */
function rankTime(item: ContextItem): string | undefined {
  const times = [item.observedAt, item.validFrom].filter((time) => time !== undefined);
  return times.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
}

export interface PacketView {
  readonly project: string;
  readonly packet: StoredPacket;
  readonly sections: readonly { heading: string; rows: SelectedRow[] }[];
  readonly nearMisses: readonly NearMiss[];
}

/** A stored packet: each section's items with their scores, the near misses, gaps and memory. */
export async function packetPage(call: PageCall, params: unknown): Promise<PacketView> {
  const { project, packetId } = pathParams(ROUTES.getPacket.params, params, "packet");
  const { packet } = await getPacket({
    ...call,
    params: { project, packetId },
    query: undefined,
    body: undefined,
  });
  const pool = await freshPool(call.hub, project);
  const { selectedIds, relevance } = packet.audit;
  const scores = new Map(selectedIds.map((id, index) => [id, relevance.selected[index]]));
  return {
    project,
    packet,
    sections: PACKET_SECTIONS.map((section) => ({
      heading: PACKET_SECTION_HEADINGS[section],
      rows: packet.sections[section].map((id) => {
        const item = poolItem(pool, id);
        return {
          id,
          score: scores.get(id),
          item,
          tokens: item === undefined ? undefined : itemTokens(item),
          time: item === undefined ? undefined : rankTime(item),
        };
      }),
    })).filter((section) => section.rows.length > 0),
    nearMisses: packet.audit.nearMisses,
  };
}

/** What a replay gave: the same packet id, another, or the error that stopped it. */
export type ReplayOutcome =
  | { readonly ok: true; readonly packetId: string; readonly same: boolean }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** A catalogue error a page shows in place (a replay that failed, a time with no value), not as an error page. */
interface ShownError {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
}

/** Runs `read`, answering a catalogue error it throws as a {@link ShownError}; any other error is thrown on. */
async function orShown<T>(read: () => Promise<T>): Promise<T | ShownError> {
  try {
    return await read();
  } catch (error) {
    if (!isKxmError(error)) throw error;
    const { code, message } = error as KxmError;
    return { ok: false, code, message };
  }
}

/** Replays a stored packet with the task given, through the replay route's handler. */
export async function replayOutcome(call: PageCall, params: unknown, task: unknown): Promise<ReplayOutcome> {
  const { project, packetId } = pathParams(ROUTES.replayPacket.params, params, "packet");
  return orShown(async () => {
    const body = ROUTES.replayPacket.body.safeParse({ task });
    if (!body.success) throw kxmErrorFromZod(body.error, "invalid_request", "task");
    const replayed = await replayPacket({
      ...call,
      params: { project, packetId },
      query: undefined,
      body: body.data,
    });
    const id = replayed.audit.packetId ?? "";
    return { ok: true as const, packetId: id, same: id === packetId };
  });
}

/** One state key of a project: its current values and pending proposals now, and how many values it has kept. */
interface StateKeyRow {
  readonly key: string;
  readonly current: readonly ContextItem[];
  readonly proposed: number;
  readonly values: number;
}

/**
 * A project's temporal state: each state key the pool holds (withheld values too) with its current values, and the
 * open contradictions as the contradictions route answers them, each competing item beside the others.
 */
export async function statePage(call: PageCall, params: unknown) {
  const { project } = pathParams(ROUTES.contradictions.params, params, "project");
  const open = await contradictions({ ...call, params: { project }, query: undefined, body: undefined });
  const pool = await freshPool(call.hub, project);
  const byKey = new Map<string, ContextItem[]>();
  for (const item of [...pool.wholeIndex().items(), ...pool.withheldItems().map((entry) => entry.item)]) {
    if (item.kind !== "state" || item.stateKey === undefined) continue;
    byKey.set(item.stateKey, [...(byKey.get(item.stateKey) ?? []), item]);
  }
  const keys: StateKeyRow[] = [...byKey.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([key, items]) => ({
      key,
      current: items.filter((item) => item.status === "current"),
      proposed: items.filter((item) => item.status === "proposed").length,
      values: items.length,
    }));
  const items = (ids: readonly string[]) => ids.map((id) => ({ id, item: poolItem(pool, id) }));
  return {
    project,
    keys,
    contradictions: open.state.map(({ stateKey, itemIds }) => ({ stateKey, items: items(itemIds) })),
    journalContradictions: items(open.journal),
  };
}

/**
 * A state key's history, every retained value and proposal in order (the history route's), and, when `asOf` is
 * given, its value at that time as the state route answers it (or why there is none).
 */
export async function stateKeyPage(call: PageCall, params: unknown, query: { asOf?: unknown }) {
  const { project, key } = pathParams(ROUTES.stateHistory.params, params, "state key");
  const { items } = await stateHistory({
    ...call,
    params: { project, key },
    query: undefined,
    body: undefined,
  });
  const at = typeof query.asOf === "string" && query.asOf !== "" ? query.asOf : undefined;
  const asOf =
    at === undefined
      ? undefined
      : await orShown(async () => {
          const parsed = ROUTES.getState.query.safeParse({ asOf: at });
          if (!parsed.success) throw kxmErrorFromZod(parsed.error, "invalid_request", "asOf");
          const { state } = await getState({
            ...call,
            params: { project, key },
            query: parsed.data,
            body: undefined,
          });
          return { ok: true as const, state };
        });
  return { project, key, items, at, asOf };
}

/** An item's explanation (the explain route's), with the item itself where the pool holds it. */
export async function itemPage(call: PageCall, params: unknown) {
  const { project, itemId } = pathParams(ROUTES.explain.params, params, "item");
  const explanation = await explain({
    ...call,
    params: { project, itemId },
    query: undefined,
    body: undefined,
  });
  const pool = await freshPool(call.hub, project);
  const item = poolItem(pool, itemId);
  const known = new Set(
    [...explanation.lineage.map((entry) => entry.id), ...explanation.evidenceRefs].filter(
      (id) => poolItem(pool, id) !== undefined,
    ),
  );
  return { project, explanation, item, linked: known };
}

/** The prefix of a run's episode id: `episode_<runId>` (the store's). */
const EPISODE_PREFIX = "episode_";

/** The episodes of a project's finished runs, newest first, a page at a time (the episodes route's). */
export async function runsPage(call: PageCall, params: unknown, query: { cursor?: unknown }) {
  const { project } = pathParams(ROUTES.episodes.params, params, "project");
  const cursor = ROUTES.episodes.query.safeParse(
    typeof query.cursor === "string" ? { cursor: query.cursor } : {},
  );
  if (!cursor.success) throw new KxmError("not_found", "no such page of runs");
  const page = await episodes({
    ...call,
    params: { project },
    query: { limit: 20, ...cursor.data },
    body: undefined,
  });
  return {
    project,
    runs: page.items.map((episode) => ({ runId: episode.id.slice(EPISODE_PREFIX.length), episode })),
    nextCursor: page.nextCursor,
  };
}

/**
 * One run: its episode once it finished, its journal entries by stage, each step report's manifest (what the
 * step's prompt carried, by id, each id the pool holds linking to its page), and the packets the hub served to the
 * run. A run the project has no record of is a 404.
 */
export async function runPage(call: PageCall, params: unknown) {
  const { project, runId } = pathParams(ROUTES.finishRun.params, params, "run");
  const [episode] = (
    await episodes({ ...call, params: { project }, query: { runId, limit: 1 }, body: undefined })
  ).items;
  const pool = await freshPool(call.hub, project);
  const journal = pool.journalRecords().filter(({ entry }) => entry.runId === runId);
  const packets = (
    await listPackets({ ...call, params: { project }, query: { runId, limit: 50 }, body: undefined })
  ).packets;
  if (episode === undefined && journal.length === 0 && packets.length === 0) {
    throw new KxmError("not_found", `project ${project} has no record of run ${runId}`);
  }
  const steps = journal.flatMap(({ entry, item }) =>
    entry.manifest === undefined ? [] : [{ entry, item, manifest: entry.manifest }],
  );
  const linked = new Set(
    steps
      .flatMap(({ manifest }) => manifest.items.map((carried) => carried.id))
      .filter((id) => poolItem(pool, id) !== undefined),
  );
  return {
    project,
    runId,
    episode,
    journal: journal.map(({ entry, item }) => ({ entry, item })),
    steps,
    linked,
    packets,
  };
}
