import type { ContextItem, ReviewedJournalEntry, WikiRecords } from "@kxm/contract";
import {
  type ClaimStatus,
  GENERATED_MARKER,
  JOURNAL_SECTIONS,
  journalItemId,
  memorySection,
  PAGES,
  SECTIONS,
  type Section,
  stateSection,
} from "./layout.js";
import { anchorOf, code, compareText, markerValue, text } from "./markdown.js";

// The compiler: the project's reviewed records in, a map of page file name -> Markdown out. Pure and
// deterministic: every list is sorted by code unit here, whatever order the records came in, and the only value
// not derived from the records' content is `generatedAt`, printed once, on one line of index.md.

/** One compiled page per file name of {@link PAGES}, in file-name order. */
export type WikiPages = ReadonlyMap<string, string>;

/** What compiling found, for the command's summary line. */
export interface WikiCounts {
  currentState: number;
  supersededState: number;
  stateKeys: number;
  memory: number;
  skills: number;
  journal: number;
  contradictions: number;
}

/** Records in the order the pages list them, with each record's home page (where its anchor is). */
interface Prepared {
  project: string;
  generatedAt: string;
  state: ContextItem[];
  memory: ContextItem[];
  skills: ContextItem[];
  journal: ReviewedJournalEntry[];
  contradictions: WikiRecords["contradictions"];
  home: Map<string, string>;
}

const SECTION_TITLES: Readonly<Record<Section, string>> = {
  architecture: "Architecture",
  decisions: "Decisions",
  incidents: "Incidents",
  patterns: "Patterns",
};

const SECTION_HOLDS: Readonly<Record<Section, string>> = {
  architecture:
    "Current state and authored memory tagged architecture (a key or fact id starting with architecture, arch or design), and reviewed plans",
  decisions: "Other current state values, and reviewed decisions and state changes",
  incidents: "Reviewed errors, contradictions and observations",
  patterns:
    "Other authored memory, promoted skills, and reviewed lessons, experiments, hypotheses and skill candidates",
};

function byId(a: { id: string }, b: { id: string }): number {
  return compareText(a.id, b.id);
}

function byStateOrder(a: ContextItem, b: ContextItem): number {
  return (
    compareText(a.stateKey ?? "", b.stateKey ?? "") ||
    compareText(a.validFrom ?? "", b.validFrom ?? "") ||
    compareText(a.id, b.id)
  );
}

function prepare(records: WikiRecords): Prepared {
  const state = records.state
    .filter((item) => item.kind === "state" && (item.status === "current" || item.status === "superseded"))
    .sort(byStateOrder);
  const memory = [...records.memory].sort(byId);
  const skills = [...records.skills].sort(byId);
  const journal = [...records.journal].sort(
    (a, b) => compareText(a.entry.createdAt, b.entry.createdAt) || compareText(a.entry.id, b.entry.id),
  );
  const home = new Map<string, string>();
  for (const item of state) home.set(item.id, PAGES.temporalState);
  for (const item of memory) home.set(item.id, PAGES[memorySection(item.id)]);
  for (const item of skills) home.set(item.id, PAGES.patterns);
  for (const row of journal)
    home.set(journalItemId(row.entry.id), PAGES[JOURNAL_SECTIONS[row.entry.category]]);
  const contradictions = {
    state: [...records.contradictions.state]
      .map((entry) => ({ stateKey: entry.stateKey, itemIds: [...entry.itemIds].sort(compareText) }))
      .sort((a, b) => compareText(a.stateKey, b.stateKey)),
    journal: [...records.contradictions.journal].sort(compareText),
  };
  return {
    project: records.project,
    generatedAt: records.generatedAt,
    state,
    memory,
    skills,
    journal,
    contradictions,
    home,
  };
}

/** A link to a record's home anchor, from `page`. */
function recordLink(prepared: Prepared, id: string, page: string): string {
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
  return [`${label} ${[...list].sort(compareText).map(code).join(", ")}`];
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

/** One claim: the summary, its record id linked to its home, then details, then a marker lint reads. */
function claim(
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

function stateDetails(
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

function trust(item: ContextItem): string {
  return `authority ${item.authority}, confidence ${item.confidence}`;
}

function memoryDetails(item: ContextItem): string[] {
  return [
    ...(item.scope === undefined ? [] : [`scope ${item.scope}`]),
    sourceOf(item),
    trust(item),
    ...refs("evidence", item.evidenceRefs),
  ];
}

function journalDetails(row: ReviewedJournalEntry): string[] {
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
function successorsOf(item: ContextItem, state: readonly ContextItem[]): ContextItem[] {
  if (item.validUntil === undefined) return [];
  return state.filter(
    (other) =>
      other.stateKey === item.stateKey && other.id !== item.id && other.validFrom === item.validUntil,
  );
}

function header(prepared: Prepared, title: string, intro: string): string[] {
  return [
    GENERATED_MARKER,
    "",
    `# ${title}`,
    "",
    `[Index](${PAGES.index}) · project ${code(prepared.project)} · compiled from reviewed records only: current and ` +
      "superseded state, authored memory, promoted skills and reviewed journal entries of finished runs. Pending " +
      "proposals and unreviewed journal entries are never compiled.",
    "",
    intro,
    "",
  ];
}

function list(lines: readonly string[], empty: string): string[] {
  return lines.length === 0 ? [`_${empty}_`, ""] : [...lines, ""];
}

function sectionPage(prepared: Prepared, section: Section): string {
  const page = PAGES[section];
  const out = header(prepared, SECTION_TITLES[section], `This page holds: ${SECTION_HOLDS[section]}.`);
  const current = prepared.state.filter(
    (item) => item.status === "current" && stateSection(item.stateKey ?? "") === section,
  );
  const memory = prepared.memory.filter((item) => prepared.home.get(item.id) === page);
  const skills = prepared.skills.filter((item) => prepared.home.get(item.id) === page);
  const journal = prepared.journal.filter((row) => JOURNAL_SECTIONS[row.entry.category] === section);
  let any = false;
  if (current.length > 0) {
    any = true;
    out.push(
      "## Current state",
      "",
      `Each value's history and validity window are on [Temporal state](${PAGES.temporalState}).`,
      "",
      ...list(
        current.map((item) =>
          claim(prepared, page, item.id, item.summary, stateDetails(item, [], prepared, page), "current"),
        ),
        "",
      ),
    );
  }
  if (memory.length > 0) {
    any = true;
    out.push(
      "## Authored memory",
      "",
      ...list(
        memory.map((item) => claim(prepared, page, item.id, item.summary, memoryDetails(item), "active")),
        "",
      ),
    );
  }
  if (skills.length > 0) {
    any = true;
    out.push(
      "## Promoted skills",
      "",
      ...list(
        skills.map((item) => claim(prepared, page, item.id, item.summary, memoryDetails(item), "promoted")),
        "",
      ),
    );
  }
  if (journal.length > 0) {
    any = true;
    out.push(
      "## Reviewed journal entries",
      "",
      ...list(
        journal.map((row) =>
          claim(
            prepared,
            page,
            journalItemId(row.entry.id),
            row.entry.summary,
            journalDetails(row),
            "reviewed",
          ),
        ),
        "",
      ),
    );
  }
  if (!any) out.push("_No reviewed records in this section._", "");
  return finish(out);
}

function temporalStatePage(prepared: Prepared): string {
  const page = PAGES.temporalState;
  const out = header(
    prepared,
    "Temporal state",
    "Every retained value of each state key, with its validity window: from `validFrom` up to, not including, " +
      "`validUntil`. Superseded values stay visible here until retention purges them.",
  );
  const keys = [...new Set(prepared.state.map((item) => item.stateKey ?? ""))].sort(compareText);
  if (keys.length === 0) out.push("_No state value has been promoted yet._", "");
  const contested = new Set(prepared.contradictions.state.map((entry) => entry.stateKey));
  for (const key of keys) {
    const values = prepared.state.filter((item) => item.stateKey === key);
    const current = values.filter((item) => item.status === "current");
    const superseded = values
      .filter((item) => item.status === "superseded")
      .sort((a, b) => compareText(b.validUntil ?? "", a.validUntil ?? "") || compareText(a.id, b.id));
    out.push(`## Key ${code(key)}`, "");
    if (contested.has(key)) {
      out.push(
        `> [!WARNING]`,
        `> This key has an open contradiction; see [Contradictions](${PAGES.contradictions}). It is not resolved here.`,
        "",
      );
    }
    out.push(
      "### Current",
      "",
      ...list(
        current.map((item) =>
          claim(prepared, page, item.id, item.summary, stateDetails(item, [], prepared, page), "current"),
        ),
        "No current value.",
      ),
    );
    if (superseded.length > 0) {
      out.push(
        "### Superseded",
        "",
        ...list(
          superseded.map((item) =>
            claim(
              prepared,
              page,
              item.id,
              item.summary,
              stateDetails(item, successorsOf(item, values), prepared, page),
              "superseded",
            ),
          ),
          "",
        ),
      );
    }
  }
  return finish(out);
}

function supersededHistoryPage(prepared: Prepared): string {
  const page = PAGES.supersededHistory;
  const out = header(
    prepared,
    "Superseded history",
    "Every retained superseded value, oldest supersession first: when it stopped being current, what it said and " +
      `what replaced it. The full history of each key is on [Temporal state](${PAGES.temporalState}).`,
  );
  const superseded = prepared.state
    .filter((item) => item.status === "superseded")
    .sort((a, b) => compareText(a.validUntil ?? "", b.validUntil ?? "") || compareText(a.id, b.id));
  out.push(
    ...list(
      superseded.map((item) => {
        const successors = successorsOf(
          item,
          prepared.state.filter((other) => other.stateKey === item.stateKey),
        );
        return claim(
          prepared,
          page,
          item.id,
          item.summary,
          [`ended ${item.validUntil ?? "(unknown)"}`, ...stateDetails(item, successors, prepared, page)],
          "superseded",
        );
      }),
      "No value has been superseded (or retention purged every superseded value).",
    ),
  );
  return finish(out);
}

function contradictionMarker(id: string, key: string | undefined): string {
  const keyPart = key === undefined ? "" : ` key=${markerValue(key)}`;
  return `<!-- kxm:contradiction id=${markerValue(id)}${keyPart} -->`;
}

function contradictionsPage(prepared: Prepared): string {
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

/** Counts of what the pages hold. */
export function countRecords(records: WikiRecords): WikiCounts {
  const prepared = prepare(records);
  return {
    currentState: prepared.state.filter((item) => item.status === "current").length,
    supersededState: prepared.state.filter((item) => item.status === "superseded").length,
    stateKeys: new Set(prepared.state.map((item) => item.stateKey)).size,
    memory: prepared.memory.length,
    skills: prepared.skills.length,
    journal: prepared.journal.length,
    contradictions: prepared.contradictions.state.length + prepared.contradictions.journal.length,
  };
}

/** The line of index.md that holds the compile time: the one line that differs between two compiles. */
export const TIMESTAMP_PREFIX = "Compiled at: ";

function indexPage(prepared: Prepared, counts: WikiCounts): string {
  const sectionCount = (section: Section) =>
    prepared.state.filter(
      (item) => item.status === "current" && stateSection(item.stateKey ?? "") === section,
    ).length +
    [...prepared.memory, ...prepared.skills].filter((item) => prepared.home.get(item.id) === PAGES[section])
      .length +
    prepared.journal.filter((row) => JOURNAL_SECTIONS[row.entry.category] === section).length;
  const out = [
    GENERATED_MARKER,
    "",
    `# Knowledge wiki: ${text(prepared.project)}`,
    "",
    `${TIMESTAMP_PREFIX}${prepared.generatedAt}`,
    "",
    `A reviewable Markdown view of what project ${code(prepared.project)} has accepted. It is never the ` +
      "authoritative store: the hub holds state and the journal, Git holds authored memory and skills. Change " +
      "those, then compile again. Only reviewed records are compiled: current and superseded state, authored " +
      "memory, promoted skills, and journal entries of finished runs that an operator reviewed " +
      "(`kxm context review`). Every claim links its record id and names its source.",
    "",
    "## Pages",
    "",
    "| Page | Holds | Records |",
    "|---|---|---:|",
    ...SECTIONS.map(
      (section) =>
        `| [${SECTION_TITLES[section]}](${PAGES[section]}) | ${SECTION_HOLDS[section]} | ${sectionCount(section)} |`,
    ),
    `| [Temporal state](${PAGES.temporalState}) | Every retained value of each state key, with its validity window | ${counts.currentState + counts.supersededState} |`,
    `| [Contradictions](${PAGES.contradictions}) | Open contradictions, listed and never resolved | ${counts.contradictions} |`,
    `| [Superseded history](${PAGES.supersededHistory}) | Superseded values, when they ended and what replaced them | ${counts.supersededState} |`,
    "",
    "## Records",
    "",
    `- ${counts.currentState} current and ${plural(counts.supersededState, "superseded state value")} over ${plural(counts.stateKeys, "key")}`,
    `- ${plural(counts.memory, "authored memory fact")} and ${plural(counts.skills, "promoted skill")}`,
    `- ${plural(counts.journal, "reviewed journal entry", "reviewed journal entries")} of finished runs`,
    `- ${plural(counts.contradictions, "open contradiction")}`,
    "",
  ];
  return finish(out);
}

function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** Joins lines, with exactly one newline at the end. */
function finish(lines: readonly string[]): string {
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/**
 * Compiles a project's reviewed records into the wiki's pages: file name -> Markdown, in file-name order. Records
 * that are not reviewed never reach a page even when passed in (a `proposed` or `rejected` state item is dropped);
 * contradictions are listed, never resolved. Byte-deterministic for the same records in any order, except the
 * `Compiled at:` line of index.md.
 */
export function compileWiki(records: WikiRecords): WikiPages {
  const prepared = prepare(records);
  const counts = countRecords(records);
  const pages = new Map<string, string>([
    [PAGES.index, indexPage(prepared, counts)],
    [PAGES.temporalState, temporalStatePage(prepared)],
    [PAGES.contradictions, contradictionsPage(prepared)],
    [PAGES.supersededHistory, supersededHistoryPage(prepared)],
    ...SECTIONS.map((section) => [PAGES[section], sectionPage(prepared, section)] as [string, string]),
  ]);
  return new Map([...pages.entries()].sort(([a], [b]) => compareText(a, b)));
}
