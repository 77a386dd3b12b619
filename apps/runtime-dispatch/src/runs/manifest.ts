import { join } from "node:path";
import { LIMITS, type StepManifest } from "@kxm/contract";
import { writeFileWhole } from "@kxm/memory-git";
import type { DeliveredItem, RenderedPrompt } from "../dispatch/prompt.js";
import { jsonText, type Run, runDir } from "./runs.js";

export const MANIFEST_SCHEMA = "kxm.dispatch-manifest.v1";

/** What one dispatch delivered: written to `.kxm/runs/<run-id>/<step-id>.<attempt>.manifest.json`. */
export interface DispatchManifest {
  schema: typeof MANIFEST_SCHEMA;
  runId: string;
  stepId: string;
  attempt: number;
  packetId: string;
  agent: string;
  role: string;
  /** The memory revision the run pinned; context is only delivered when the tree still has it. */
  memoryRevision: string | null;
  items: DeliveredItem[];
  gaps: string[];
  packetTokens: number;
  promptTokens: number;
}

export function buildManifest(
  run: Run,
  stepId: string,
  attempt: number,
  agent: string,
  role: string,
  rendered: RenderedPrompt,
): DispatchManifest {
  return {
    schema: MANIFEST_SCHEMA,
    runId: run.runId,
    stepId,
    attempt,
    packetId: rendered.packetId,
    agent,
    role,
    memoryRevision: run.memoryRevision ?? null,
    items: rendered.delivered.map(({ id, section, characters, score }) => ({
      id,
      section,
      characters,
      score,
    })),
    gaps: [...rendered.gaps],
    packetTokens: rendered.packetTokens,
    promptTokens: rendered.promptTokens,
  };
}

/** `.kxm/runs/<run-id>/<step-id>.<attempt>.manifest.json`. */
export function manifestPath(root: string, runId: string, stepId: string, attempt: number): string {
  return join(runDir(root, runId), `${stepId}.${attempt}.manifest.json`);
}

/** Writes the manifest whole or not at all; returns its path. */
export async function writeManifest(root: string, manifest: DispatchManifest): Promise<string> {
  const path = manifestPath(root, manifest.runId, manifest.stepId, manifest.attempt);
  await writeFileWhole(path, jsonText(manifest));
  return path;
}

/**
 * What a step report tells the hub of a manifest: its ids and metadata (never a packet's text), at most
 * `LIMITS.maxPacketItems` items and `LIMITS.maxManifestGaps` gaps, the rest counted as omitted (a gap too long for
 * the contract counts as omitted as well). The manifest file keeps them all.
 */
export function stepManifest(manifest: DispatchManifest): StepManifest {
  const items = manifest.items.slice(0, LIMITS.maxPacketItems);
  const fitting = manifest.gaps.filter((gap) => gap.length <= LIMITS.refChars);
  const gaps = fitting.slice(0, LIMITS.maxManifestGaps);
  const omittedItems = manifest.items.length - items.length;
  const omittedGaps = manifest.gaps.length - gaps.length;
  return {
    attempt: manifest.attempt,
    agent: manifest.agent,
    role: manifest.role,
    memoryRevision: manifest.memoryRevision,
    items: items.map(({ id, section, characters, score }) => ({ id, section, characters, score })),
    ...(omittedItems > 0 ? { omittedItems } : {}),
    gaps,
    ...(omittedGaps > 0 ? { omittedGaps } : {}),
    packetTokens: manifest.packetTokens,
    promptTokens: manifest.promptTokens,
  };
}
