import {
  createAgentKey,
  createOperator,
  createProject,
  health,
  listAgentKeys,
  listOperators,
  listProjects,
  removeProject,
  revokeAgentKey,
  revokeOperator,
  rotateAgentKey,
  updateProject,
} from "./admin.js";
import { explain, getContext, recall } from "./context.js";
import { getPacket, listPackets, replayPacket } from "./packets.js";
import { appendJournal, episodes, finishRun, startRun } from "./runs.js";
import { contradictions, getState, promoteState, proposeState, stateHistory } from "./state.js";
import type { RouteHandlers } from "./types.js";
import { reviewJournal, wikiRecords } from "./wiki.js";
import {
  forget,
  listRevocations,
  listTombstones,
  listWithheld,
  revoke,
  unforget,
  unrevoke,
} from "./withhold.js";

/** One handler per route of the contract's table: a route added there fails this file's typecheck until handled. */
export const HANDLERS: RouteHandlers = {
  health,
  getContext,
  recall,
  proposeState,
  promoteState,
  getState,
  stateHistory,
  contradictions,
  episodes,
  explain,
  startRun,
  finishRun,
  appendJournal,
  reviewJournal,
  wikiRecords,
  createProject,
  listProjects,
  createAgentKey,
  revokeAgentKey,
  updateProject,
  removeProject,
  listAgentKeys,
  rotateAgentKey,
  createOperator,
  listOperators,
  revokeOperator,
  revoke,
  listRevocations,
  unrevoke,
  forget,
  listTombstones,
  unforget,
  listWithheld,
  listPackets,
  getPacket,
  replayPacket,
};
