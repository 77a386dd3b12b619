import {
  DEFAULT_ROLE_POLICY,
  ITEM_KINDS,
  JOURNAL_CATEGORIES,
  NAMED_ROLES,
  ROLE_POLICIES,
  roleForAgentId,
  rolePolicy,
} from "@kxm/contract";
import { describe, expect, test } from "vitest";

// The role table of docs/reference/behaviour.md section 2 (and the guide's "Role policies"), transcribed row by row.
const TABLE = {
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
};

const ANY_OTHER_NAME = {
  kinds: ["knowledge", "evidence"],
  journalCategories: ["lesson", "observation"],
  budgetTokens: 32_000,
};

describe("role policies", () => {
  test("are exactly the table of docs/reference/behaviour.md: kinds in priority order, journal categories, budget", () => {
    expect(ROLE_POLICIES).toEqual(TABLE);
  });

  test("name the five roles in the table's order", () => {
    expect(NAMED_ROLES).toEqual(["repro", "planner", "critic", "implementer", "verifier"]);
  });

  test("give any other name knowledge and evidence, lessons and observations, and 32,000 tokens", () => {
    expect(DEFAULT_ROLE_POLICY).toEqual(ANY_OTHER_NAME);
  });

  test("use only known kinds and journal categories, each once per role", () => {
    for (const policy of [...Object.values(ROLE_POLICIES), DEFAULT_ROLE_POLICY]) {
      for (const kind of policy.kinds) expect(ITEM_KINDS).toContain(kind);
      for (const category of policy.journalCategories) expect(JOURNAL_CATEGORIES).toContain(category);
      expect(new Set(policy.kinds).size).toBe(policy.kinds.length);
      expect(new Set(policy.journalCategories).size).toBe(policy.journalCategories.length);
    }
  });

  test("ask for the skill kind only for the implementer", () => {
    const withSkills = NAMED_ROLES.filter((role) =>
      ROLE_POLICIES[role].kinds.some((kind) => kind === "skill"),
    );
    expect(withSkills).toEqual(["implementer"]);
  });
});

describe("rolePolicy", () => {
  test.each(Object.keys(TABLE))("gives %s its own row", (role) => {
    expect(rolePolicy(role)).toEqual(TABLE[role as keyof typeof TABLE]);
  });

  test.each([
    "reviewer",
    "",
    "Planner",
    "PLANNER",
    " planner",
    "planner ",
    "critic-arch",
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "valueOf",
  ])("gives %j the default policy: names match exactly and inherited names are not roles", (role) => {
    expect(rolePolicy(role)).toBe(DEFAULT_ROLE_POLICY);
  });
});

describe("roleForAgentId", () => {
  test.each([
    ["planner", "planner"],
    ["verifier", "verifier"],
    ["critic-arch", "critic"],
    ["repro-1", "repro"],
    ["implementer-x-y", "implementer"],
    ["verifier-critic-1", "verifier"],
  ])("maps %s to the role %s", (agentId, role) => {
    expect(roleForAgentId(agentId)).toBe(role);
  });

  // docs/reference/behaviour.md: "the first role ... such that the id starts with `<role>-`". `critic-` starts with `critic-`,
  // so it is a critic, even with nothing after the hyphen.
  test("maps critic- to critic: the id starts with the role and a hyphen", () => {
    expect(roleForAgentId("critic-")).toBe("critic");
  });

  test.each([
    ["criticx", "no hyphen after the role name"],
    ["critic_arch", "an underscore is not a hyphen"],
    ["Critic-arch", "prefixes match case-sensitively"],
    ["arch-critic", "the role must be a prefix, not a suffix"],
    ["-critic", "a leading hyphen"],
    ["reviewer", "an unknown name"],
    ["constructor", "an inherited property name"],
    ["__proto__", "an inherited property name"],
    ["constructor-1", "an inherited property name with a hyphen"],
    ["", "an empty id"],
  ])("keeps %j as a custom role (%s)", (agentId) => {
    expect(roleForAgentId(agentId)).toBe(agentId);
  });

  test("a custom role gets the default policy, a prefixed one its role's policy", () => {
    expect(rolePolicy(roleForAgentId("criticx"))).toBe(DEFAULT_ROLE_POLICY);
    expect(rolePolicy(roleForAgentId("__proto__"))).toBe(DEFAULT_ROLE_POLICY);
    expect(rolePolicy(roleForAgentId("critic-arch"))).toEqual(TABLE.critic);
  });
});
