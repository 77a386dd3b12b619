import { z } from "zod";

// Every environment variable the CLI reads, validated in one place.
const EnvSchema = z.object({
  /** Who the CLI acts as when it records a proposer, promoter or rejector; overrides git's user.email. */
  KXM_ACTOR: z.string().trim().min(1).max(128).optional(),
  /** Print stack traces of unexpected failures. */
  KXM_DEBUG: z.enum(["0", "1", "false", "true"]).optional(),
});

export type CliEnv = z.infer<typeof EnvSchema>;

/** The validated environment, or the one-line problem with it (naming the variable, never its value). */
export function readEnv(source: NodeJS.ProcessEnv = process.env): { env: CliEnv } | { problem: string } {
  const result = EnvSchema.safeParse({
    KXM_ACTOR: source.KXM_ACTOR || undefined,
    KXM_DEBUG: source.KXM_DEBUG || undefined,
  });
  if (result.success) return { env: result.data };
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  const rule = name === "KXM_DEBUG" ? "must be 1 or 0" : "must be 1 to 128 characters, not only white space";
  return { problem: `environment variable ${name} ${rule}` };
}

/** Whether stack traces of unexpected failures are wanted; false when the environment itself is invalid. */
export function debugEnabled(): boolean {
  const read = readEnv();
  return "env" in read && (read.env.KXM_DEBUG === "1" || read.env.KXM_DEBUG === "true");
}
