// Agent keys on PostgreSQL: the same keys, checks and errors as `../sqlite/credentials.ts`.
import crypto from "node:crypto";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { and, eq, isNull, sql } from "drizzle-orm";
import { KEY_SHAPE } from "../domain/credentials.js";
import { projectId, recordId } from "../input.js";
import { isoTime } from "../time.js";
import type { AgentIdentity } from "../types.js";
import { type Pg, requireProject, writeTx } from "./db.js";
import { prepared } from "./prepared.js";
import { agentCredentials } from "./schema.js";

function keyHash(key: string): string {
  return crypto.createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * A new key for the agent, returned once: only its SHA-256 is stored. Refuses an unknown project (404
 * `not_found`) and an agent that already holds a key that is not revoked (`invalid_request`).
 */
export async function createAgentKey(
  db: Pg,
  project: string,
  agentId: string,
  now: Date,
): Promise<{ agentId: string; key: string }> {
  const p = projectId(project);
  const agent = recordId(agentId, "agentId", "invalid_request");
  const createdAt = isoTime(now, "now");
  return writeTx(db, async (tx) => {
    await requireProject(tx, p);
    const [active] = await tx
      .select({ keyHash: agentCredentials.keyHash })
      .from(agentCredentials)
      .where(
        and(
          eq(agentCredentials.project, p),
          eq(agentCredentials.agentId, agent),
          isNull(agentCredentials.revokedAt),
        ),
      );
    if (active !== undefined) {
      throw new KxmError(
        "invalid_request",
        `agent ${agent} already has an active key in project ${p}; revoke it before creating another`,
      );
    }
    return { agentId: agent, key: await insertKey(tx, p, agent, createdAt) };
  });
}

/** Mints and stores (as its SHA-256) a new key for the agent; the caller checked it holds no active one. */
async function insertKey(tx: Pg, project: string, agentId: string, createdAt: string): Promise<string> {
  const key = `kxm_${crypto.randomBytes(32).toString("base64url")}`;
  await tx.insert(agentCredentials).values({ keyHash: keyHash(key), project, agentId, createdAt });
  return key;
}

/** Revokes the agent's active key; false when it has none. */
export async function revokeAgentKey(db: Pg, project: string, agentId: string, now: Date): Promise<boolean> {
  const revokedAt = isoTime(now, "now");
  const revoked = await db
    .update(agentCredentials)
    .set({ revokedAt })
    .where(
      and(
        eq(agentCredentials.project, project),
        eq(agentCredentials.agentId, agentId),
        isNull(agentCredentials.revokedAt),
      ),
    )
    .returning({ keyHash: agentCredentials.keyHash });
  return revoked.length > 0;
}

/**
 * The identity behind `key`, or undefined for a malformed, unknown or revoked key. The row is found by the key's
 * SHA-256 through the primary key's index: only hashes are stored, and the lookup's timing depends on the hash,
 * never on how much of a guessed key is right.
 */
export async function authenticateAgent(db: Pg, key: string): Promise<AgentIdentity | undefined> {
  if (typeof key !== "string" || !KEY_SHAPE.test(key)) return undefined;
  const [row] = await prepared(db, "kxm_agent_by_key", (pg, name) =>
    pg
      .select({
        project: agentCredentials.project,
        agentId: agentCredentials.agentId,
        revokedAt: agentCredentials.revokedAt,
      })
      .from(agentCredentials)
      .where(eq(agentCredentials.keyHash, sql.placeholder("keyHash")))
      .prepare(name),
  ).execute({ keyHash: keyHash(key) });
  if (row === undefined || row.revokedAt !== null) return undefined;
  return { project: row.project, agentId: row.agentId };
}

/** The agents of the project holding an active key, by agent id; never a key or its hash. Unknown project: 404. */
export async function listAgentKeys(
  db: Pg,
  project: string,
): Promise<Array<{ agentId: string; createdAt: string }>> {
  const p = projectId(project);
  await requireProject(db, p);
  const rows = await db
    .select({ agentId: agentCredentials.agentId, createdAt: agentCredentials.createdAt })
    .from(agentCredentials)
    .where(and(eq(agentCredentials.project, p), isNull(agentCredentials.revokedAt)));
  return rows.sort((a, b) => compareCodeUnits(a.agentId, b.agentId));
}

/**
 * Replaces the agent's active key with a new one in one transaction: the old key is revoked at `now` and the new
 * one returned once. An unknown project, or an agent with no active key, is 404 `not_found`.
 */
export async function rotateAgentKey(
  db: Pg,
  project: string,
  agentId: string,
  now: Date,
): Promise<{ agentId: string; key: string }> {
  const p = projectId(project);
  const agent = recordId(agentId, "agentId", "invalid_request");
  const rotatedAt = isoTime(now, "now");
  return writeTx(db, async (tx) => {
    await requireProject(tx, p);
    if (!(await revokeAgentKey(tx, p, agent, now))) {
      throw new KxmError("not_found", `agent ${agent} has no active key in project ${p} to rotate`);
    }
    return { agentId: agent, key: await insertKey(tx, p, agent, rotatedAt) };
  });
}
