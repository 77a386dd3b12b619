import { KxmError } from "@kxm/contract";
import { replayStoredPacket } from "../replay.js";
import type { RouteHandler } from "./types.js";

/** The project's stored packet audits, last served first, paged by the store's cursor (decision 0016). */
export const listPackets: RouteHandler<"listPackets"> = async ({ params, query, hub }) => {
  await hub.project(params.project);
  const page = await hub.store.listPackets(params.project, {
    limit: query.limit ?? 20,
    ...(query.runId === undefined ? {} : { runId: query.runId }),
    ...(query.cursor === undefined ? {} : { before: query.cursor }),
  });
  return page.nextCursor === undefined
    ? { packets: page.packets }
    : { packets: page.packets, nextCursor: page.nextCursor };
};

/** One stored packet audit; a packet id the project never served (another project's too) is 404. */
export const getPacket: RouteHandler<"getPacket"> = async ({ params, hub }) => {
  await hub.project(params.project);
  const packet = await hub.store.getPacket(params.project, params.packetId);
  if (packet === undefined) {
    throw new KxmError("not_found", `project ${params.project} has no stored packet ${params.packetId}`);
  }
  return { packet };
};

/**
 * Rebuilds a stored packet from history with the task given (replay.ts): the bytes `/context` answered, or the
 * input that can no longer be had. Logs the ids and the task's length, never the task.
 */
export const replayPacket: RouteHandler<"replayPacket"> = async ({ params, body, hub, log }) => {
  const replayed = await replayStoredPacket(hub, params.project, params.packetId, body.task, log);
  log.info({
    event: "packet_replayed",
    project: params.project,
    packetId: params.packetId,
    taskChars: body.task.length,
  });
  return replayed;
};
