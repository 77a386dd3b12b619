import { rules } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { SECRETLINT_RULE_IDS, secretlintRanges } from "../src/secretlint-ranges.js";
import { SECRET_FIXTURES } from "./fixtures/secrets.js";

interface Rule {
  meta: { id: string };
  create(context: unknown, options: unknown): { file?: (source: unknown) => unknown };
}

describe("secretlint preset as a library", () => {
  it("runs every preset rule except filter-comments", () => {
    const ids = (rules as unknown as Rule[]).map((rule) => rule.meta.id);
    expect(SECRETLINT_RULE_IDS).toEqual(
      ids.filter((id) => id !== "@secretlint/secretlint-rule-filter-comments"),
    );
    expect(SECRETLINT_RULE_IDS).toContain("@secretlint/secretlint-rule-aws");
    expect(SECRETLINT_RULE_IDS.length).toBeGreaterThanOrEqual(13);
  });

  it("reports synchronously for .txt: every handler returns nothing to await, and reports before returning", () => {
    const text = SECRET_FIXTURES.map((f) => f.text).join("\n");
    let total = 0;
    for (const rule of rules as unknown as Rule[]) {
      const reported: Array<[number, number]> = [];
      const context = {
        createTranslator:
          (messages: Record<string, { en?: (p: unknown) => string }>) => (id: string, props: unknown) =>
            messages[id]?.en?.(props) ?? id,
        report: ({ range }: { range: [number, number] }) => reported.push(range),
        ignore() {},
        registerRule() {},
      };
      const options = rule.meta.id === "@secretlint/secretlint-rule-aws" ? { enableIDScanRule: true } : {};
      const handler = rule.create(context, options).file;
      const result = handler?.({ content: text, filePath: undefined, ext: ".txt", contentType: "text" });
      expect(result, rule.meta.id).toBeUndefined();
      total += reported.length;
    }
    expect(total).toBeGreaterThan(0);
    expect(secretlintRanges(text).length).toBe(total);
  });

  it("catches kinds that only the preset knows (Shopify, Linear, 1Password)", () => {
    for (const f of SECRET_FIXTURES.filter((fixture) => fixture.kind.endsWith("(secretlint)"))) {
      const ranges = secretlintRanges(f.text);
      expect(ranges.length, f.kind).toBeGreaterThan(0);
    }
  });
});
