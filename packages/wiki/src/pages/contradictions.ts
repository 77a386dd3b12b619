// The contradictions.md page: open contradictions exactly as the hub reports them, listed and never resolved.
import { recordLink } from "../claims.js";
import { journalItemId, PAGES } from "../layout.js";
import { code, markerValue, text } from "../markdown.js";
import { finish, header } from "../page-frame.js";
import type { Prepared } from "../prepared.js";

function contradictionMarker(id: string, key: string | undefined): string {
  const keyPart = key === undefined ? "" : ` key=${markerValue(key)}`;
  return `<!-- kxm:contradiction id=${markerValue(id)}${keyPart} -->`;
}

export function contradictionsPage(prepared: Prepared): string {
  const page = PAGES.contradictions;
  const out = header(
    prepared,
    "Contradictions",
    "Open contradictions, exactly as the hub reports them: state keys with more than one current value or more " +
      "than one pending proposal, and journal entries of category `contradiction`. Compiling never resolves a " +
      "contradiction and never picks a side; resolve one by promoting a value with evidence. A pending proposal " +
      "or an unreviewed journal entry is named by id only: its content is not compiled.",
  );
  const stateById = new Map(prepared.state.map((item) => [item.id, item]));
  const journalById = new Map(prepared.journal.map((row) => [journalItemId(row.entry.id), row]));
  const { state, journal } = prepared.contradictions;
  if (state.length === 0 && journal.length === 0) out.push("_No open contradictions._", "");
  if (state.length > 0) {
    out.push("## State keys", "");
    for (const entry of state) {
      out.push(`### Key ${code(entry.stateKey)}`, "");
      for (const id of entry.itemIds) {
        const item = stateById.get(id);
        const what =
          item === undefined
            ? `${code(id)} — a pending proposal, not compiled until it is promoted`
            : `${recordLink(prepared, id, page)} — ${item.status} value: ${text(item.summary)}`;
        out.push(`- ${what} ${contradictionMarker(id, entry.stateKey)}`);
      }
      out.push("");
    }
  }
  if (journal.length > 0) {
    out.push("## Journal entries", "");
    for (const id of journal) {
      const row = journalById.get(id);
      const what =
        row === undefined
          ? `${code(id)} — a journal entry not reviewed yet; its content is not compiled`
          : `${recordLink(prepared, id, page)} — reviewed: ${text(row.entry.summary)}`;
      out.push(`- ${what} ${contradictionMarker(id, undefined)}`);
    }
    out.push("");
  }
  return finish(out);
}
