import {
  type JournalEntry,
  JournalEntrySchema,
  KxmError,
  LIMITS,
  parseOrThrow,
  type StepManifest,
} from "@kxm/contract";
import { journalEntryToItem, redactRef, redactRefs, redactSecrets } from "@kxm/provenance";
import { randomId } from "../ids.js";
import { isoTime } from "../time.js";
import type { AppendJournalInput } from "../types.js";

/**
 * A new journal entry (docs/reference/behaviour.md section 6): id `j_<24 hex>`, `createdAt` = now, summary trimmed and redacted, stage redacted,
 * evidence references redacted (equal ones merged), keys in the schema's order, no empty `evidenceRefs`. Refuses a malformed entry (`invalid_request` or
 * `context_limits_exceeded`; a step manifest is checked with it), and a lesson or skill-candidate without evidence (400 `journal_evidence_required`,
 * through `journalEntryToItem`, so the entry is sure to become a valid item).
 */
export function buildJournalEntry(input: AppendJournalInput, now: Date): JournalEntry {
  const raw: Record<string, unknown> = { id: randomId("j_"), project: input.project, runId: input.runId };
  if (input.stage !== undefined) raw.stage = input.stage;
  raw.category = input.category;
  raw.summary = input.summary;
  if (input.evidenceRefs !== undefined && input.evidenceRefs.length > 0)
    raw.evidenceRefs = input.evidenceRefs;
  raw.createdAt = isoTime(now, "now");
  if (input.manifest !== undefined) raw.manifest = input.manifest;
  const parsed = parseOrThrow(JournalEntrySchema, raw, "invalid_request", "journal entry");
  const summary = redactSecrets(parsed.summary);
  if (summary.length > LIMITS.summaryChars) {
    throw new KxmError(
      "context_limits_exceeded",
      `journal entry summary: over ${LIMITS.summaryChars} characters after redaction`,
    );
  }
  const entry: JournalEntry = { ...parsed, summary };
  // A stage is a name, but nothing stops a caller from putting a token in it: it is stored redacted like the rest.
  if (parsed.stage !== undefined) entry.stage = redactSecrets(parsed.stage);
  // The stored entry is what packets and the wiki read, so its references are redacted too (merged when equal).
  if (parsed.evidenceRefs !== undefined) entry.evidenceRefs = redactRefs(parsed.evidenceRefs);
  if (parsed.manifest !== undefined) entry.manifest = redactManifest(parsed.manifest);
  journalEntryToItem(entry);
  return entry;
}

/**
 * A manifest's names redacted as a stage is: it holds ids and gap codes only, but nothing stops a caller from
 * putting a token in one. The counts and scores are numbers, so stay.
 */
function redactManifest(manifest: StepManifest): StepManifest {
  return {
    ...manifest,
    agent: redactSecrets(manifest.agent),
    role: redactSecrets(manifest.role),
    memoryRevision: manifest.memoryRevision === null ? null : redactSecrets(manifest.memoryRevision),
    items: manifest.items.map((item) => ({ ...item, id: redactSecrets(item.id) })),
    gaps: manifest.gaps.map(redactRef),
  };
}
