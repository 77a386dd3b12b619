import type { ItemKind, JournalCategory } from "./vocabulary.js";

/** What a role prefers: kinds in priority order, the journal categories it reads, and its default budget. */
export interface RolePolicy {
  readonly kinds: readonly ItemKind[];
  readonly journalCategories: readonly JournalCategory[];
  readonly budgetTokens: number;
}

/** The five named roles, in the table's order (that order decides agent-id prefixes). */
export const ROLE_POLICIES = {
  repro: {
    kinds: ["episode", "knowledge", "evidence"],
    journalCategories: ["error", "lesson", "observation", "contradiction"],
    budgetTokens: 8_000,
  },
  planner: {
    kinds: ["state", "knowledge", "evidence"],
    journalCategories: ["plan", "decision", "contradiction", "observation", "hypothesis", "experiment"],
    budgetTokens: 16_000,
  },
  critic: {
    kinds: ["knowledge", "evidence", "episode"],
    journalCategories: ["contradiction", "error", "lesson", "experiment"],
    budgetTokens: 12_000,
  },
  implementer: {
    kinds: ["knowledge", "state", "skill", "episode", "evidence"],
    journalCategories: ["plan", "decision", "lesson", "state-change"],
    budgetTokens: 16_000,
  },
  verifier: {
    kinds: ["evidence", "knowledge", "episode"],
    journalCategories: ["plan", "error", "lesson", "contradiction"],
    budgetTokens: 8_000,
  },
} as const satisfies Record<string, RolePolicy>;

export type NamedRole = keyof typeof ROLE_POLICIES;

export const NAMED_ROLES = Object.keys(ROLE_POLICIES) as NamedRole[];

/** The policy of any role that is not one of the five named roles. */
export const DEFAULT_ROLE_POLICY: RolePolicy = {
  kinds: ["knowledge", "evidence"],
  journalCategories: ["lesson", "observation"],
  budgetTokens: 32_000,
};

/** The policy for a role name. Names match exactly; any other name gets {@link DEFAULT_ROLE_POLICY}. */
export function rolePolicy(role: string): RolePolicy {
  return Object.hasOwn(ROLE_POLICIES, role) ? ROLE_POLICIES[role as NamedRole] : DEFAULT_ROLE_POLICY;
}

/**
 * The role a Runtime agent id maps to: an exact role name, else the first named role (in table order) such that
 * the id starts with `<role>-`, else the id itself (a custom role). `critic-arch` is a critic.
 */
export function roleForAgentId(agentId: string): string {
  if (Object.hasOwn(ROLE_POLICIES, agentId)) return agentId;
  return NAMED_ROLES.find((role) => agentId.startsWith(`${role}-`)) ?? agentId;
}
