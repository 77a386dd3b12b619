import { describe, expect, it } from "vitest";
import { renderBrief } from "../src/brief.js";
import { fact } from "./support/memory-fixtures.js";

describe("renderBrief", () => {
  it("says so when there is no active fact", () => {
    expect(renderBrief([])).toBe("No active project memory facts.");
    expect(
      renderBrief([fact("old", { lifecycle: "deprecated" }), fact("gone", { lifecycle: "superseded" })]),
    ).toBe("No active project memory facts.");
  });

  it("uses the singular for one fact", () => {
    expect(renderBrief([fact("test-runner", { summary: "Run npm test before every commit" })])).toBe(
      "Project memory (1 active fact)\n\n• [project] [convention] Run npm test before every commit (test-runner)",
    );
  });

  it("lists active facts in the given order and skips the rest, with no trailing newline", () => {
    const text = renderBrief([
      fact("zeta", { scope: "operator", kind: "default" }),
      fact("old", { lifecycle: "deprecated" }),
      fact("alpha", { scope: "agent", kind: "learning", summary: "Line one\n  line two" }),
    ]);
    expect(text).toBe(
      [
        "Project memory (2 active facts)",
        "",
        "• [operator] [default] Summary of zeta (zeta)",
        "• [agent] [learning] Line one line two (alpha)",
      ].join("\n"),
    );
  });
});
