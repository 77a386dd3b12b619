import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ADMIN_ACTOR, type ErrorCode, KxmError, operatorActor, type RouteDefinition } from "@kxm/contract";
import type { KxmStore } from "@kxm/state-store";
import type { FastifyRequest } from "fastify";

/** Who is calling: the admin (admin token), a named operator (operator token) or one project's agent (agent key). */
export type Caller =
  | { readonly kind: "admin" }
  | { readonly kind: "operator"; readonly name: string }
  | { readonly kind: "agent"; readonly project: string; readonly agentId: string };

/** Every agent key the store issues starts with this. */
const AGENT_KEY_PREFIX = "kxm_";

/** Every operator token the store issues starts with this. */
const OPERATOR_TOKEN_PREFIX = "kxo_";

/** The name the hub records for the admin token: proposer of its proposals, promoter of its promotions. */
export { ADMIN_ACTOR };

/**
 * The name a caller's actions are recorded under (proposer, promoter, reviewer): `kxm-admin`, `operator:<name>` or
 * the agent's id. Distinct credentials never share one, so the author check of a promotion tells them apart.
 */
export function actorOf(caller: Caller): string {
  if (caller.kind === "agent") return caller.agentId;
  if (caller.kind === "operator") return operatorActor(caller.name);
  return ADMIN_ACTOR;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** A credential's SHA-256 in hex: a key for it (rate limiting) that does not reveal it. */
export function credentialDigest(credential: string): string {
  return sha256(credential).toString("hex");
}

/**
 * The Bearer credential of a request, or undefined when there is none. A header that is present but not a Bearer
 * credential counts as a credential that matches nothing (an empty string), so it is refused, not ignored.
 */
export function presentedCredential(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? "";
}

/** Compares the admin token with a presented credential in constant time: both are hashed, so lengths never leak. */
export class AdminToken {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = sha256(token);
  }

  matches(presented: string): boolean {
    return timingSafeEqual(this.digest, sha256(presented));
  }

  /**
   * A name for this token that reveals nothing of it (an HMAC of its digest), kept with the inspector's admin
   * sessions: a hub started with another admin token no longer knows them.
   */
  fingerprint(): string {
    return createHmac("sha256", this.digest).update("kxm inspector admin session").digest("hex");
  }
}

function invalidAuth(): KxmError {
  return new KxmError("invalid_auth", "the credential is missing, unknown or revoked");
}

/**
 * Decides who may call a route (`ROUTES[...].auth`):
 * - `none`: anyone;
 * - `admin`: the admin token only; a hub without one answers 503 `admin_auth_not_configured` (no loopback bypass);
 * - `operator`: the admin token or a named operator's token; 503 as `admin` on a hub without an admin token;
 * - `project`: the admin token, an operator's token, or an agent key of the project named in the path; another
 *   project's key is 403 `context_isolation_violation`.
 * Operator tokens count only on a hub with an admin token: without one the control plane is off, whoever asks.
 * A missing, unknown or revoked credential is 401 `invalid_auth`, with one exception: on a project route that lists
 * `admin_auth_not_configured` (a state proposal, which the operator makes with the admin token), a credential that
 * does not even look like an agent key (`kxm_…`), sent to a hub without an admin token, is 503
 * `admin_auth_not_configured`: it is an operator's token that the hub was not started with.
 */
export async function authorize(
  route: Pick<RouteDefinition, "auth" | "errors">,
  credential: string | undefined,
  pathProject: string | undefined,
  admin: AdminToken | undefined,
  store: KxmStore,
): Promise<Caller | undefined> {
  const { auth } = route;
  if (auth === "none") return undefined;
  if (auth === "admin" || auth === "operator") {
    if (admin === undefined) {
      throw new KxmError(
        "admin_auth_not_configured",
        "this route needs the hub to run with KXM_AUTH_TOKEN set",
      );
    }
    if (credential !== undefined && admin.matches(credential)) return { kind: "admin" };
    if (auth === "operator" && credential !== undefined) {
      const operator = await operatorOf(credential, store);
      if (operator !== undefined) return operator;
    }
    throw new KxmError(
      "invalid_auth",
      auth === "admin"
        ? "this route needs the admin token; the credential is missing or not it"
        : "this route needs the admin token or an operator's token; the credential is missing, unknown or revoked",
    );
  }
  if (credential === undefined) throw invalidAuth();
  if (admin?.matches(credential)) return { kind: "admin" };
  if (admin !== undefined) {
    const operator = await operatorOf(credential, store);
    if (operator !== undefined) return operator;
  }
  const agent = credential === "" ? undefined : await store.authenticateAgent(credential);
  if (agent === undefined) {
    const agentShaped = credential.startsWith(AGENT_KEY_PREFIX);
    if (
      admin === undefined &&
      !agentShaped &&
      (route.errors as readonly ErrorCode[]).includes("admin_auth_not_configured")
    ) {
      throw new KxmError(
        "admin_auth_not_configured",
        "the credential is not an agent key, and the hub runs without KXM_AUTH_TOKEN",
      );
    }
    throw invalidAuth();
  }
  if (agent.project !== pathProject) {
    throw new KxmError(
      "context_isolation_violation",
      "an agent key may only reach its own project's records",
    );
  }
  return { kind: "agent", project: agent.project, agentId: agent.agentId };
}

/** The operator behind an operator-shaped credential (`kxo_…`), or undefined. */
async function operatorOf(credential: string, store: KxmStore): Promise<Caller | undefined> {
  if (!credential.startsWith(OPERATOR_TOKEN_PREFIX)) return undefined;
  const operator = await store.authenticateOperator(credential);
  return operator === undefined ? undefined : { kind: "operator", name: operator.name };
}
