import { KxmError } from "@kxm/contract";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";

/** A half-open range `[start, end)` of UTF-16 code units. */
export type Range = readonly [start: number, end: number];

type Translate = (id: string, props?: Record<string, unknown>) => string;
type Messages = Record<string, { en?: (props?: Record<string, unknown>) => string } | undefined>;

interface RuleContext {
  createTranslator(messages: Messages): Translate;
  report(descriptor: { range: readonly [number, number] }): void;
  ignore(): void;
  registerRule(): void;
}

interface SourceFile {
  content: string;
  filePath: undefined;
  ext: string;
  contentType: "text";
}

interface RuleCreator {
  meta: { id: string };
  create(context: RuleContext, options: Record<string, unknown>): { file?: (source: SourceFile) => unknown };
}

// The preset's bundled types point at packages it does not ship, so its rules are typed here by what we call.
const RULES = presetRules as unknown as readonly RuleCreator[];

// This rule reads `secretlint-disable` comments out of the scanned text: honouring it would let the text itself
// switch redaction off.
const FILTER_COMMENTS_RULE = "@secretlint/secretlint-rule-filter-comments";
const AWS_RULE = "@secretlint/secretlint-rule-aws";

/** Ids of the preset rules KXM runs, in the preset's order. */
export const SECRETLINT_RULE_IDS: readonly string[] = RULES.map((rule) => rule.meta.id).filter(
  (id) => id !== FILTER_COMMENTS_RULE,
);

// Reports land here while `secretlintRanges` runs; rules are synchronous for text, so one sink is enough.
let sink: Array<readonly [number, number]> | undefined;

const context: RuleContext = {
  createTranslator: (messages) => (id, props) => messages[id]?.en?.(props) ?? id,
  report: ({ range }) => {
    sink?.push([range[0], range[1]]);
  },
  ignore() {},
  registerRule() {},
};

// Created once at module load: a rule's `create` compiles its patterns.
const HANDLERS = RULES.filter((rule) => rule.meta.id !== FILTER_COMMENTS_RULE).map((rule) => {
  const options = rule.meta.id === AWS_RULE ? { enableIDScanRule: true } : {};
  const handler = rule.create(context, options).file;
  return { id: rule.meta.id, handler };
});

function isThenable(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Runs every preset rule (except filter-comments) over `text` as a `.txt` file and returns the ranges they
 * report. Throws when a rule answers asynchronously: its reports would arrive after redaction, so failing
 * closed is the only safe answer.
 */
export function secretlintRanges(text: string): Range[] {
  const found: Array<readonly [number, number]> = [];
  sink = found;
  try {
    for (const { id, handler } of HANDLERS) {
      const result = handler?.({ content: text, filePath: undefined, ext: ".txt", contentType: "text" });
      if (isThenable(result)) {
        // Keep the rejection from surfacing as an unhandled one; the throw below is the failure.
        (result as Promise<unknown>).catch(() => {});
        throw new KxmError(
          "internal_error",
          `secretlint rule ${id} answered asynchronously; redaction cannot wait`,
        );
      }
    }
  } finally {
    sink = undefined;
  }
  return found;
}
