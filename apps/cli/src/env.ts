import { z } from "zod";

// Every environment variable the CLI reads, validated in one place.
const EnvSchema = z.object({
  /** Who the CLI acts as when it records a proposer, promoter or rejector; overrides git's user.email. */
  KXM_ACTOR: z.string().trim().min(1).max(200).optional(),
  /** Print stack traces of unexpected failures. */
  KXM_DEBUG: z.enum(["0", "1"]).optional(),
});

export type CliEnv = z.infer<typeof EnvSchema>;

/** The validated environment; an invalid value is reported as a usage error by the caller. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  return EnvSchema.parse({
    KXM_ACTOR: source.KXM_ACTOR || undefined,
    KXM_DEBUG: source.KXM_DEBUG || undefined,
  });
}
