import { KxmError } from "@kxm/contract";
import { describe, expect, it, vi } from "vitest";
import { assembleDispatchContext } from "../src/dispatch/dispatch-context.js";
import { DISPATCH_GAPS } from "../src/dispatch/gaps.js";
import { commitAll, gitRepo, putFact, startRun } from "./support/repo.js";

// The promoted-skills folder is listed twice, by the revision hash and by the skill loader; a listing that fails
// only the second time (a race with a checkout, say) cannot be staged on disk, so the loader is made to fail here.
vi.mock("@kxm/memory-git", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@kxm/memory-git")>();
  return {
    ...actual,
    loadPromotedSkillItems: async () => {
      throw new KxmError("skill_invalid", ".kxm/skills/promoted: cannot be listed");
    },
  };
});

describe("assembleDispatchContext with unlistable skills", () => {
  it("reports dispatch_context_skills_unreadable and still delivers memory", async () => {
    const root = await gitRepo();
    await putFact(root, "use-pnpm");
    commitAll(root, "memory");
    const run = await startRun(root);
    const step = run.workflow.steps[1]!;
    const context = await assembleDispatchContext({ root, run, step });
    expect(context.gaps).toEqual([DISPATCH_GAPS.skillsUnreadable]);
    expect(context.projectItems.map((entry) => entry.item.id)).toEqual(["mem_use-pnpm"]);
  });
});
