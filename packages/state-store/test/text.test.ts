import { expectKxmRejection } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import { guideProposal } from "./support/state-fixtures.js";
import { at, T0, tempStore } from "./support/temp-store.js";

// One rule for text on both engines: PostgreSQL's text cannot hold U+0000, so no store takes it, anywhere.

describe("text holding U+0000", () => {
  test("is refused with invalid_request in every kind of argument, and nothing is stored", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const head = await store.changeHead();
    const refused = [
      store.proposeState(guideProposal({ summary: "Releases\u0000 from main" }), at(T0, 1)),
      store.proposeState(guideProposal({ evidenceRefs: ["pr:\u00001"] }), at(T0, 1)),
      store.startRun({ project: "demo", workflow: "fix\u0000bug" }, at(T0, 1)),
      store.revoke(
        { project: "demo", target: "evidence", value: "pr:1", reason: "bad\u0000", revokedBy: "alice" },
        at(T0, 1),
      ),
      store.getItems("demo", ["state_1", "state_\u0000"]),
      store.createProject({ id: "a\u0000b" }, at(T0, 1)),
    ];
    const errors = [];
    for (const call of refused) errors.push(await expectKxmRejection(call, "invalid_request", 400));
    expect(errors[0]?.message).toBe("text must not hold U+0000 (NUL): summary");
    expect(errors[1]?.message).toBe("text must not hold U+0000 (NUL): evidenceRefs[0]");
    expect(errors[4]?.message).toBe("text must not hold U+0000 (NUL): argument 2[1]");
    expect(await store.changeHead()).toBe(head);
    expect(await store.liveItems("demo")).toEqual([]);
    expect((await store.listProjects()).map((project) => project.id)).toEqual(["demo"]);
  });

  test("any other control character in a summary is stored as it is, on both engines", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const summary = "Tabs\tand\u0001bells\u0007 stay";
    const item = await store.proposeState(guideProposal({ summary }), at(T0, 1));
    expect((await store.getItem("demo", item.id))?.summary).toBe(item.summary);
  });
});
