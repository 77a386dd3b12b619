/**
 * The one error catalogue. Every code is stable: clients match on `code`, never on a message or a class.
 * `docs/reference/errors.md` documents each code; a test fails when one is missing there.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: "The request does not match its schema" },
  invalid_usage: { status: 400, title: "A command was called with a missing, unknown or invalid argument" },
  invalid_context_item: { status: 400, title: "A context item does not match its schema or lifecycle rules" },
  context_limits_exceeded: { status: 400, title: "A value is over one of KXM's limits" },
  context_authority_violation: {
    status: 403,
    title: "Content claims more authority than its origin allows, or carries a control-plane field",
  },
  context_isolation_violation: { status: 403, title: "A request reached another project's records" },
  invalid_auth: { status: 401, title: "The credential is missing, unknown or revoked" },
  origin_not_allowed: {
    status: 403,
    title: "The request's Origin is not loopback or in KXM_MCP_ALLOWED_ORIGINS (DNS-rebinding protection)",
  },
  admin_auth_not_configured: { status: 503, title: "The hub has no admin token configured" },
  invalid_state_proposal: { status: 400, title: "A state proposal is malformed or has no evidence" },
  state_proposer_mismatch: { status: 403, title: "proposedBy does not name the caller" },
  state_promotion_invalid: { status: 403, title: "The proposal's author may not promote it" },
  state_proposal_not_found: { status: 404, title: "No such proposal in this project" },
  state_proposal_not_promotable: { status: 400, title: "The proposal was already consumed" },
  state_contradiction: { status: 409, title: "More than one current value exists for a state key" },
  journal_evidence_required: {
    status: 400,
    title: "This journal category needs at least one evidence reference",
  },
  journal_review_invalid: {
    status: 409,
    title: "The journal entry's run has not finished, so the entry cannot be reviewed yet",
  },
  project_root_not_found: { status: 400, title: "No folder holding .kxm/ or .git was found" },
  memory_invalid: { status: 400, title: "A memory file does not parse or breaks a memory rule" },
  memory_candidate_not_found: { status: 404, title: "No such memory candidate waiting for review" },
  memory_fact_exists: { status: 409, title: "A memory fact with this id (or file) already exists" },
  memory_sync_refused: { status: 409, title: "An instruction file has malformed memory markers" },
  memory_sync_no_target: { status: 400, title: "None of AGENTS.md, CLAUDE.md, GEMINI.md exists" },
  skill_invalid: { status: 400, title: "A skill folder or its SKILL.md is malformed" },
  skill_not_found: { status: 404, title: "No such skill" },
  skill_exists: { status: 409, title: "A skill with this content is already proposed, promoted or rejected" },
  skill_promotion_invalid: {
    status: 403,
    title: "The skill's proposer may not promote it, or evidence is missing",
  },
  skill_unverified: { status: 409, title: "A skill's files do not match their recorded hashes" },
  distill_failed: {
    status: 500,
    title: "The distillation agent failed or wrote outside its allowlist; the run's status is unchanged",
  },
  git_unavailable: { status: 503, title: "git failed or did not answer in time" },
  hub_unreachable: { status: 503, title: "The hub could not be reached" },
  hub_answer_invalid: {
    status: 502,
    title: "The hub's URL answered, but not as a KXM hub does: not HTTP, not JSON, or off the route's schema",
  },
  file_unwritable: {
    status: 500,
    title:
      "A file or folder the command writes cannot be written: a file in the way, a full or read-only disk",
  },
  not_found: { status: 404, title: "No such resource" },
  project_not_empty: {
    status: 409,
    title: "The project still holds records or agent keys; remove it with force to delete them too",
  },
  method_not_allowed: { status: 405, title: "The route exists but does not take this method" },
  payload_too_large: { status: 413, title: "The request body is over 256 KiB" },
  malformed_http: { status: 400, title: "The request is not well-formed HTTP/1.1" },
  request_timeout: { status: 408, title: "The request did not arrive in time" },
  expectation_failed: {
    status: 417,
    title: "The request's Expect header asks for something the hub does not do",
  },
  headers_too_large: { status: 431, title: "The request line and headers are over 16 KiB" },
  rate_limited: { status: 429, title: "Too many requests for this credential" },
  database_path_unusable: {
    status: 500,
    title: "The database path cannot hold a SQLite file (kernel file system, folder, too long, read-only)",
  },
  backup_refused: {
    status: 409,
    title:
      "A backup or restore would overwrite a file, write over the live database, or has nowhere to write",
  },
  database_in_use: { status: 409, title: "Another process, such as a serving hub, has the database open" },
  database_damaged: {
    status: 422,
    title: "The file fails SQLite's integrity check or is not a KXM database",
  },
  database_schema_newer: { status: 409, title: "The database was migrated by a newer KXM than this one" },
  database_url_invalid: {
    status: 400,
    title: "KXM_DATABASE_URL is not a postgres:// or postgresql:// URL with a host and a database",
  },
  database_not_empty: { status: 409, title: "The PostgreSQL database already holds KXM data" },
  database_unreachable: {
    status: 503,
    title: "The PostgreSQL server could not be reached or refused the login",
  },
  browser_not_configured: {
    status: 400,
    title: "The Steel deployment is not configured, or a STEEL_* or KXM_BROWSER_* setting is invalid",
  },
  browser_key_lookup_failed: { status: 503, title: "pass-cli could not give the Steel API key" },
  browser_unreachable: { status: 503, title: "The Steel deployment could not be reached" },
  browser_auth_failed: { status: 401, title: "Steel refused the API key (401 or 403)" },
  browser_answer_invalid: {
    status: 502,
    title:
      "Steel answered, but not as Steel does: not JSON, off the schema, or a new session that is not live",
  },
  browser_request_failed: { status: 502, title: "Steel answered a request with an error status" },
  browser_session_not_found: { status: 404, title: "No such browser session on the Steel deployment" },
  browser_session_released: { status: 409, title: "The browser session is released" },
  browser_human_control: {
    status: 409,
    title: "A person holds the browser session: no CDP URL and no agent action until it is resumed",
  },
  browser_takeover_invalid: {
    status: 409,
    title: "The takeover state machine does not allow this transition",
  },
  browser_verification_failed: {
    status: 409,
    title: "The signed-in check did not hold; the session went back to the person",
  },
  browser_release_mismatch: {
    status: 502,
    title: "Releasing one browser session changed another: the sweep stopped",
  },
  content_forgotten: {
    status: 409,
    title: "The content was forgotten: an active tombstone holds its hash until an operator lifts it",
  },
  // Fact checks (`kxm memory verify`, issue 20).
  memory_check_failed: { status: 409, title: "A memory fact's check failed, timed out or could not start" },
  memory_check_not_found: { status: 404, title: "No active memory fact with a check has this id" },
  // Replaying a stored packet (`kxm context replay`, decision 0016).
  replay_history_purged: {
    status: 410,
    title: "Retention purged the record history this packet was assembled from",
  },
  replay_history_forgotten: {
    status: 410,
    title: "A record this packet read was forgotten since: its content is gone",
  },
  replay_memory_unavailable: {
    status: 409,
    title: "The memory commit this packet served cannot be read from the project's checkout",
  },
  replay_ranker_changed: { status: 409, title: "This packet was assembled by another ranker version" },
  replay_task_mismatch: { status: 400, title: "The task given is not the one this packet was assembled for" },
  replay_mismatch: {
    status: 409,
    title: "The rebuilt packet differs from the stored one: an input did not come back",
  },
  internal_error: { status: 500, title: "An unexpected failure inside KXM" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/**
 * The one error type KXM throws for expected failures. It carries the catalogue code and its HTTP status.
 * Check for it with {@link isKxmError}, which compares the code, not the class, so duplicated package copies
 * still agree.
 */
export class KxmError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "KxmError";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
  }

  /** The wire form: what crosses a process boundary. */
  toJSON(): { code: ErrorCode; status: number; message: string } {
    return { code: this.code, status: this.status, message: this.message };
  }
}

/** True when `value` is a KXM error (by its code, so it works across package copies). */
export function isKxmError(value: unknown): value is KxmError {
  if (typeof value !== "object" || value === null) return false;
  const { code, status } = value as { code?: unknown; status?: unknown };
  return (
    typeof code === "string" &&
    Object.hasOwn(ERROR_CATALOGUE, code) &&
    status === ERROR_CATALOGUE[code as ErrorCode].status
  );
}
