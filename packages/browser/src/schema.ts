// Steel's answers, as KXM reads them. Only the fields KXM uses are checked; the rest passes through, so a newer
// deployment that adds fields still parses.
import { KxmError } from "@kxm/contract";
import { z } from "zod";
import type { SteelSession } from "./types.js";

const SessionSchema = z.looseObject({
  id: z.string().min(1).max(256),
  createdAt: z.string().optional().nullable(),
  status: z.string().optional().nullable(),
  timeout: z.number().nonnegative().optional().nullable(),
});

const ListSchema = z.union([z.array(SessionSchema), z.looseObject({ sessions: z.array(SessionSchema) })]);

function toSession(raw: z.infer<typeof SessionSchema>): SteelSession {
  return {
    id: raw.id,
    ...(typeof raw.createdAt === "string" ? { createdAt: raw.createdAt } : {}),
    ...(typeof raw.status === "string" ? { status: raw.status } : {}),
    ...(typeof raw.timeout === "number" ? { timeoutMs: raw.timeout } : {}),
  };
}

/** Where a zod failure is, as `sessions.0.id`; never the value found there. */
function where(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  return `${path === "" ? "the body" : path}: ${issue?.message ?? "invalid"}`;
}

/** One session from a parsed JSON body; `browser_answer_invalid` naming `context` when it is off the schema. */
export function parseSession(body: unknown, context: string): SteelSession {
  const parsed = SessionSchema.safeParse(body);
  if (!parsed.success) {
    throw new KxmError("browser_answer_invalid", `${context}: not a Steel session (${where(parsed.error)})`);
  }
  return toSession(parsed.data);
}

/** A session list: `{sessions: [...]}` or a bare array. */
export function parseSessionList(body: unknown, context: string): SteelSession[] {
  const parsed = ListSchema.safeParse(body);
  if (!parsed.success) {
    throw new KxmError(
      "browser_answer_invalid",
      `${context}: not a Steel session list (${where(parsed.error)})`,
    );
  }
  const sessions = Array.isArray(parsed.data) ? parsed.data : parsed.data.sessions;
  return sessions.map(toSession);
}

/** True when the server's status says the session can still be driven (no status counts as live). */
export function isLive(session: SteelSession): boolean {
  return session.status === undefined || session.status === "live";
}
