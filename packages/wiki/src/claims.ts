// One claim line of a page: a record's summary, its id linked to its home anchor, its details and a lint marker.
import { type ContextItem, compareCodeUnits, type ReviewedJournalEntry } from "@kxm/contract";
import type { ClaimStatus } from "./layout.js";
import { anchorOf, code, markerValue, text } from "./markdown.js";
import type { Prepared } from "./prepared.js";

/** A link to a record's home anchor, from `page`. */
export function recordLink(prepared: Prepared, id: string, page: string): string {
  const home = prepared.home.get(id);
  if (home === undefined) return code(id);
  const href = home === page ? `#${anchorOf(id)}` : `${home}#${anchorOf(id)}`;
  return `[${code(id)}](${href})`;
}

function claimMarker(id: string, status: ClaimStatus): string {
  return `<!-- kxm:claim id=${markerValue(id)} status=${status} -->`;
}

function refs(label: string, list: readonly string[] | undefined): string[] {
  if (list === undefined || list.length === 0) return [];
  return [`${label} ${[...list].sort(compareCodeUnits).map(code).join(", ")}`];
}

/** A repository-relative file path, optionally with a fragment: what a source link may point at. */
const FILE_REF = /^[A-Za-z0-9_][A-Za-z0-9_./-]*(#[A-Za-z0-9_-]+)?$/;

/**
 * Where a source reference can be opened from a page in `.kxm/knowledge/wiki/`, or undefined: a promoted skill's
 * SKILL.md (`skill:<id>@<sha256>`), or the file a git-origin memory fact cites, relative to the project root.
 */
function sourceHref(item: ContextItem): string | undefined {
  const ref = item.provenance.sourceRef;
  if (ref === undefined) return undefined;
  if (item.kind === "skill") {
    // A promoted skill sits at .kxm/skills/promoted/<id>/<name>/SKILL.md; its summary is `<name>: <description>`.
    const skill = /^skill:([A-Za-z0-9_.-]+)@[0-9a-f]{64}$/.exec(ref);
    const name = /^([a-z0-9]+(?:-[a-z0-9]+)*): /.exec(item.summary)?.[1];
    return skill === null || name === undefined
      ? undefined
      : `../../skills/promoted/${skill[1]}/${name}/SKILL.md`;
  }
  if (item.id.startsWith("mem_") && item.provenance.sourceType === "git" && FILE_REF.test(ref)) {
    if (ref.split(/[/#]/).some((segment) => segment === ".." || segment === ".")) return undefined;
    return `../../../${ref}`;
  }
  return undefined;
}

function sourceOf(item: ContextItem): string {
  const ref = item.provenance.sourceRef;
  const href = sourceHref(item);
  const shown = ref === undefined ? "(none)" : href === undefined ? code(ref) : `[${code(ref)}](${href})`;
  return `source ${shown} (${item.provenance.sourceType})`;
}

function windowOf(item: ContextItem): string {
  const from = item.validFrom ?? "(unknown)";
  return item.validUntil === undefined
    ? `valid from ${from} (open)`
    : `valid from ${from} until ${item.validUntil}`;
}

function trust(item: ContextItem): string {
  return `authority ${item.authority}, confidence ${item.confidence}`;
}

/** One claim: the summary, its record id linked to its home, then details, then a marker lint reads. */
export function claim(
  prepared: Prepared,
  page: string,
  id: string,
  summary: string,
  details: readonly string[],
  status: ClaimStatus,
): string {
  const isHome = prepared.home.get(id) === page;
  const anchor = isHome ? `<a id="${anchorOf(id)}"></a>` : "";
  return `- ${anchor}${text(summary)} — ${[recordLink(prepared, id, page), ...details].join(" · ")} ${claimMarker(id, status)}`;
}

/** A state value's details: key, window, what superseded it, source, trust, evidence. */
export function stateDetails(
  item: ContextItem,
  successors: readonly ContextItem[],
  prepared: Prepared,
  page: string,
) {
  return [
    `key ${code(item.stateKey ?? "")}`,
    windowOf(item),
    ...(successors.length === 0
      ? []
      : [`superseded by ${successors.map((next) => recordLink(prepared, next.id, page)).join(", ")}`]),
    sourceOf(item),
    trust(item),
    ...refs("evidence", item.evidenceRefs),
  ];
}

/** An authored memory fact's or a promoted skill's details: scope, source, trust, evidence. */
export function memoryDetails(item: ContextItem): string[] {
  return [
    ...(item.scope === undefined ? [] : [`scope ${item.scope}`]),
    sourceOf(item),
    trust(item),
    ...refs("evidence", item.evidenceRefs),
  ];
}

/** A reviewed journal entry's details: category, run, stage, when recorded, who reviewed it, evidence. */
export function journalDetails(row: ReviewedJournalEntry): string[] {
  const { entry, run, review } = row;
  return [
    `${entry.category}`,
    `source ${code(`journal:${entry.id}`)} (workflow)`,
    `run ${code(run.id)} (${text(run.workflow)}, ${run.status})`,
    ...(entry.stage === undefined ? [] : [`stage ${code(entry.stage)}`]),
    `recorded ${entry.createdAt}`,
    `reviewed by ${code(review.reviewedBy)} at ${review.reviewedAt}`,
    ...refs("evidence", entry.evidenceRefs),
    ...refs("review evidence", review.evidenceRefs),
  ];
}

/** Items of the same key whose window starts where this one's ends: what superseded it. */
export function successorsOf(item: ContextItem, state: readonly ContextItem[]): ContextItem[] {
  if (item.validUntil === undefined) return [];
  return state.filter(
    (other) =>
      other.stateKey === item.stateKey && other.id !== item.id && other.validFrom === item.validUntil,
  );
}
