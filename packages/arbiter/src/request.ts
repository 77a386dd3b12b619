import {
  type ContextItem,
  type ContextRequest,
  ContextRequestSchema,
  type ItemKind,
  KxmError,
  LIMITS,
  parseOrThrow,
  type RecallRequest,
  RecallRequestSchema,
  rolePolicy,
  SHARED_PROJECT,
} from "@kxm/contract";

/** A validated context request with the role's defaults filled in. */
export interface ResolvedContextRequest {
  /** The caller's request, echoed in a fixed key order so equal requests give equal bytes. */
  readonly echo: ContextRequest;
  readonly project: string;
  readonly role: string;
  readonly task: string;
  readonly budgetTokens: number;
  readonly kinds: readonly ItemKind[];
}

export function resolveContextRequest(request: ContextRequest): ResolvedContextRequest {
  const parsed = parseOrThrow(ContextRequestSchema, request, "invalid_request", "context request");
  const policy = rolePolicy(parsed.role);
  const echo: ContextRequest = { project: parsed.project, role: parsed.role, task: parsed.task };
  if (parsed.budgetTokens !== undefined) echo.budgetTokens = parsed.budgetTokens;
  if (parsed.includeKinds !== undefined) echo.includeKinds = [...parsed.includeKinds];
  if (parsed.runId !== undefined) echo.runId = parsed.runId;
  if (parsed.stage !== undefined) echo.stage = parsed.stage;
  return {
    echo,
    project: parsed.project,
    role: parsed.role,
    task: parsed.task,
    budgetTokens: parsed.budgetTokens ?? policy.budgetTokens,
    kinds: parsed.includeKinds ?? policy.kinds,
  };
}

export interface ResolvedRecallRequest {
  readonly project: string;
  readonly query: string;
  readonly kinds: readonly ItemKind[] | undefined;
  readonly limit: number;
}

export function resolveRecallRequest(request: RecallRequest): ResolvedRecallRequest {
  const parsed = parseOrThrow(RecallRequestSchema, request, "invalid_request", "recall request");
  return {
    project: parsed.project,
    query: parsed.query,
    kinds: parsed.kinds,
    limit: parsed.limit ?? LIMITS.recallDefaultLimit,
  };
}

/** True when an item may take part in a request for `project`: its own records and `_shared` defaults. */
export function belongsTo(itemProject: string, project: string): boolean {
  return itemProject === project || itemProject === SHARED_PROJECT;
}

/** The refusal for a pool that holds another project's record. Refused, never filtered. */
export function isolationViolation(project: string): KxmError {
  return new KxmError(
    "context_isolation_violation",
    `the pool for project "${project}" holds records of another project; refusing the whole request`,
  );
}

/** Checks a plain pool: isolation first, then that no id appears twice (ties would make the order ambiguous). */
export function checkPool(pool: readonly ContextItem[], project: string): void {
  const ids = new Set<string>();
  for (const item of pool) {
    if (!belongsTo(item.project, project)) throw isolationViolation(project);
    ids.add(item.id);
  }
  if (ids.size !== pool.length) {
    throw new KxmError("invalid_request", "the pool holds more than one item with the same id");
  }
}
