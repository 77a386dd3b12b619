import {
  type ContextItem,
  type ItemKind,
  type JournalCategory,
  type JournalEntry,
  JournalEntrySchema,
  KxmError,
  parseOrThrow,
} from "@kxm/contract";
import { parseContextItem } from "./parse-item.js";
import { withRedactedErrors } from "./safe-parse.js";

const KIND_BY_CATEGORY: Readonly<Record<JournalCategory, ItemKind>> = {
  plan: "knowledge",
  decision: "knowledge",
  lesson: "knowledge",
  "skill-candidate": "skill",
  contradiction: "evidence",
  error: "evidence",
  observation: "evidence",
  hypothesis: "evidence",
  experiment: "evidence",
  "state-change": "evidence",
};

// Categories that teach something: without evidence they would be unfounded claims (docs/reference/behaviour.md section 6).
const NEEDS_EVIDENCE: ReadonlySet<JournalCategory> = new Set(["lesson", "skill-candidate"]);

/**
 * The item kind a journal category becomes: plan, decision and lesson are `knowledge`, skill-candidate is
 * `skill`, every other category `evidence`. Throws `invalid_context_item` for an unknown category.
 */
export function journalKindFor(category: JournalCategory): ItemKind {
  if (!Object.hasOwn(KIND_BY_CATEGORY, category)) {
    throw new KxmError("invalid_context_item", "journal entry category: unknown category");
  }
  return KIND_BY_CATEGORY[category];
}

/**
 * Turns a journal entry into its context item (docs/reference/behaviour.md section 6): id `journal_<entryId>`, origin
 * `workflow`, source ref `journal:<entryId>`, authority `evidence`, confidence `probable`, `observedAt` = the
 * entry's `createdAt`, evidence refs carried; a skill-candidate becomes a `proposed` skill. A `lesson` or
 * `skill-candidate` without evidence refs is refused with 400 `journal_evidence_required`.
 */
export function journalEntryToItem(entry: JournalEntry): ContextItem {
  // A malformed entry is reported as `invalid_context_item`, not `invalid_request`: this function's output is a
  // context item, and the hub may convert entries read back from storage, outside any request.
  const parsed = withRedactedErrors(() =>
    parseOrThrow(JournalEntrySchema, entry, "invalid_context_item", "journal entry"),
  );
  if (NEEDS_EVIDENCE.has(parsed.category) && (parsed.evidenceRefs?.length ?? 0) === 0) {
    throw new KxmError(
      "journal_evidence_required",
      `journal entries of category ${parsed.category} need at least one evidence reference`,
    );
  }
  const raw: Record<string, unknown> = {
    id: `journal_${parsed.id}`,
    kind: journalKindFor(parsed.category),
    project: parsed.project,
    summary: parsed.summary,
    provenance: { sourceType: "workflow", sourceRef: `journal:${parsed.id}` },
    authority: "evidence",
    confidence: "probable",
    observedAt: parsed.createdAt,
  };
  if (parsed.category === "skill-candidate") raw.status = "proposed";
  if (parsed.evidenceRefs !== undefined) raw.evidenceRefs = parsed.evidenceRefs;
  return parseContextItem(raw);
}
