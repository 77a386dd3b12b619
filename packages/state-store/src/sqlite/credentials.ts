import crypto from "node:crypto";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { and, eq, isNull, sql } from "drizzle-orm";
import { KEY_SHAPE } from "../domain/credentials.js";
import { projectId, recordId } from "../input.js";
import { agentCredentials } from "../schema.js";
import { isoTime } from "../time.js";
import type { AgentIdentity } from "../types.js";
import { type Db, immediate, requireProject } from "./db.js";

function keyHash(key: string): Buffer {
  return crypto.createHash("sha256").update(key, "utf8").digest();
}

/**
 * A new key for the agent, returned once: only its SHA-256 is stored. Refuses an unknown project (404
 * `not_found`) and an agent that already holds a key that is not revoked (`invalid_request`).
 */
export function createAgentKey(
  db: Db,
  project: string,
  agentId: string,
  now: Date,
): { agentId: string; key: string } {
  const p = projectId(project);
  const agent = recordId(agentId, "agentId", "invalid_request");
  const createdAt = isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, p);
    const active = db
      .select({ keyHash: agentCredentials.keyHash })
      .from(agentCredentials)
      .where(
        and(
          eq(agentCredentials.project, p),
          eq(agentCredentials.agentId, agent),
          isNull(agentCredentials.revokedAt),
        ),
      )
      .get();
    if (active !== undefined) {
      throw new KxmError(
        "invalid_request",
        `agent ${agent} already has an active key in project ${p}; revoke it before creating another`,
      );
    }
    return { agentId: agent, key: insertKey(db, p, agent, createdAt) };
  });
}

/** Mints and stores (as its SHA-256) a new key for the agent; the caller checked it holds no active one. */
function insertKey(db: Db, project: string, agentId: string, createdAt: string): string {
  const key = `kxm_${crypto.randomBytes(32).toString("base64url")}`;
  db.insert(agentCredentials)
    .values({ keyHash: keyHash(key).toString("hex"), project, agentId, createdAt })
    .run();
  return key;
}

/** Revokes the agent's active key; false when it has none. */
export function revokeAgentKey(db: Db, project: string, agentId: string, now: Date): boolean {
  const revokedAt = isoTime(now, "now");
  const result = db
    .update(agentCredentials)
    .set({ revokedAt })
    .where(
      and(
        eq(agentCredentials.project, project),
        eq(agentCredentials.agentId, agentId),
        isNull(agentCredentials.revokedAt),
      ),
    )
    .run();
  return result.changes > 0;
}

/**
 * The identity behind `key`, or undefined for a malformed, unknown or revoked key. The row is found by the key's
 * SHA-256 through the index: only hashes are stored, and the lookup's timing depends on the hash, never on how
 * much of a guessed key is right.
 */
/** The credential lookup of every agent request, prepared once per database (building the SQL cost more than running it). */
const CREDENTIAL_BY_HASH = new WeakMap<Db, ReturnType<typeof prepareCredentialLookup>>();

function prepareCredentialLookup(db: Db) {
  return db
    .select()
    .from(agentCredentials)
    .where(eq(agentCredentials.keyHash, sql.placeholder("hash")))
    .prepare();
}

export function authenticateAgent(db: Db, key: string): AgentIdentity | undefined {
  if (typeof key !== "string" || !KEY_SHAPE.test(key)) return undefined;
  const hash = keyHash(key);
  let lookup = CREDENTIAL_BY_HASH.get(db);
  if (lookup === undefined) {
    lookup = prepareCredentialLookup(db);
    CREDENTIAL_BY_HASH.set(db, lookup);
  }
  const row = lookup.get({ hash: hash.toString("hex") });
  if (row === undefined) return undefined;
  if (row.revokedAt !== null) return undefined;
  return { project: row.project, agentId: row.agentId };
}

/** The agents of the project holding an active key, by agent id; never a key or its hash. Unknown project: 404. */
export function listAgentKeys(db: Db, project: string): Array<{ agentId: string; createdAt: string }> {
  const p = projectId(project);
  requireProject(db, p);
  return db
    .select({ agentId: agentCredentials.agentId, createdAt: agentCredentials.createdAt })
    .from(agentCredentials)
    .where(and(eq(agentCredentials.project, p), isNull(agentCredentials.revokedAt)))
    .all()
    .sort((a, b) => compareCodeUnits(a.agentId, b.agentId));
}

/**
 * Replaces the agent's active key with a new one in one transaction: the old key is revoked at `now` and the new
 * one returned once. An unknown project, or an agent with no active key, is 404 `not_found` (create one with
 * {@link createAgentKey} instead).
 */
export function rotateAgentKey(
  db: Db,
  project: string,
  agentId: string,
  now: Date,
): { agentId: string; key: string } {
  const p = projectId(project);
  const agent = recordId(agentId, "agentId", "invalid_request");
  const rotatedAt = isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, p);
    if (!revokeAgentKey(db, p, agent, now)) {
      throw new KxmError("not_found", `agent ${agent} has no active key in project ${p} to rotate`);
    }
    return { agentId: agent, key: insertKey(db, p, agent, rotatedAt) };
  });
}
