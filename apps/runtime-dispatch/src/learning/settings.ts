import { LIMITS } from "@kxm/contract";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { parseYamlFile, readProjectFile } from "../definitions/yaml-file.js";

// The learning loop's settings: `.kxm/learning.yaml`, optional (every field has a default), validated like a
// workflow (an unknown key or a bad value is `invalid_request` naming the file, the line and the rule).

const LEARNING_FILE = KXM_PATHS.learning;

const LearningSchema = z.strictObject({
  episodes: z
    .strictObject({
      /**
       * The episodes digest's budget in the dispatch prompt, in tokens of four characters: 0 turns the digest off;
       * otherwise at least the arbiter's smallest budget, 512.
       */
      digestTokens: z
        .number()
        .int()
        .min(0)
        .max(8_000)
        .refine((tokens) => tokens === 0 || tokens >= LIMITS.minBudgetTokens, {
          message: `must be 0 (no digest) or at least ${LIMITS.minBudgetTokens}`,
        })
        .default(600),
      /** At most this many episodes in the digest; 0 turns the digest off. */
      digestItems: z.number().int().min(0).max(50).default(8),
    })
    .prefault({}),
  breaker: z
    .strictObject({
      /** This many failed attempts in a row, across the run's steps, stop the run. */
      consecutiveFailures: z.number().int().min(1).max(100).default(3),
    })
    .prefault({}),
  distill: z
    .strictObject({
      /** After a run, ask an agent for skill candidates (only when `agent` has an adapter). */
      enabled: z.boolean().default(true),
      /** The agent id whose adapter distils. */
      agent: z.string().min(1).max(64).default("default"),
    })
    .prefault({}),
  retrospective: z
    .strictObject({
      /** Note a memory candidate summarizing a run in which an attempt failed. */
      proposeMemory: z.boolean().default(true),
    })
    .prefault({}),
});
export type LearningSettings = z.infer<typeof LearningSchema>;

/** The settings of `source` (the file's text); the defaults for an empty file. */
export function parseLearningSettings(source: string): LearningSettings {
  const text = source.trim() === "" ? "{}" : source;
  return parseYamlFile(LEARNING_FILE, text, LearningSchema).value;
}

/** `.kxm/learning.yaml` under `root`, or every default when it does not exist. */
export async function loadLearningSettings(root: string): Promise<LearningSettings> {
  const source = await readProjectFile(root, LEARNING_FILE);
  return parseLearningSettings(source ?? "");
}
