import { type BigIntStats, type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compareIds, PoolIndex } from "@kxm/arbiter";
import {
  type ContextItem,
  DEFAULT_ROLE_POLICY,
  isKxmError,
  JOURNAL_CATEGORIES,
  type JournalCategory,
  type JournalEntry,
  NAMED_ROLES,
  type PacketMemory,
  ROLE_POLICIES,
  rolePolicy,
} from "@kxm/contract";
import {
  type CommittedMemory,
  formatMemoryProblem,
  gitDirectories,
  readCommittedMemory,
} from "@kxm/memory-git";
import { journalEntryToItem } from "@kxm/provenance";
import { findContradictions, type KxmStore, type Project, type StoreChange } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import { checkoutUnavailable, kxmFolderGap } from "./checkout.js";
import { describeError } from "./logging.js";

/** The key of a set of journal categories: the categories in catalogue order, comma-separated. */
function categoryKey(categories: Iterable<JournalCategory>): string {
  const set = new Set(categories);
  return JOURNAL_CATEGORIES.filter((category) => set.has(category)).join(",");
}

/** The index every category goes into: recall and explain read the whole pool. */
const ALL = categoryKey(JOURNAL_CATEGORIES);

/** One index per distinct journal-category set of the role policies (the five roles and the default), plus ALL. */
const INDEX_KEYS: readonly string[] = [
  ...new Set([
    ...NAMED_ROLES.map((role) => categoryKey(ROLE_POLICIES[role].journalCategories)),
    categoryKey(DEFAULT_ROLE_POLICY.journalCategories),
    ALL,
  ]),
];

interface JournalRecord {
  readonly entry: JournalEntry;
  readonly item: ContextItem;
}

interface IndexSlot {
  readonly categories: ReadonlySet<string>;
  readonly index: PoolIndex;
}

/** A change to a project's records as the store holds them now, applied to every index it affects. */
export type PoolChange =
  | { readonly kind: "items"; readonly items: readonly ContextItem[] }
  | { readonly kind: "journal"; readonly entry: JournalEntry };

/** Authored memory and promoted skills of one checkout, as committed at its HEAD. */
export interface Authored {
  /** What was read (commit, revision, withheld files, problems): equal keys give equal items, gaps and audit. */
  readonly key: string | undefined;
  readonly items: readonly ContextItem[];
  /** The gaps every packet and recall of the project reports, in a fixed order. */
  readonly gaps: readonly string[];
  /** The audit's `memory`; undefined for a project without a checkout. */
  readonly memory: PacketMemory | undefined;
}

const NO_CHECKOUT: Authored = { key: undefined, items: [], gaps: [], memory: undefined };

/**
 * One project's pool, kept in memory and up to date: its stored items (superseded and rejected ones too, until
 * retention purges them), its retained journal entries as items,
 * and the authored memory and verified promoted skills of its own checkout. Each index holds the base items (store
 * and authored) plus the journal items of its categories, so a packet is assembled from an index that is never
 * rebuilt per request.
 */
export class ProjectPool {
  private readonly storeItems = new Map<string, ContextItem>();
  private readonly journal = new Map<string, JournalRecord>();
  private authored: Authored = NO_CHECKOUT;
  private readonly slots = new Map<string, IndexSlot>();
  private refreshing: Promise<void> | undefined;
  /** The stat signature of the memory folders and the git files when `authored` was last confirmed. */
  private authoredSignature: string | undefined;
  /** The checkout's git folders, found at the last reload (undefined: not in a repository). */
  private gitDirs: { gitDir: string; commonDir: string } | undefined;
  /** Bumped by every item change: the open contradictions computed from the items are for one generation. */
  private itemGeneration = 0;
  private stateContradictions: { readonly generation: number; readonly ids: readonly string[] } | undefined;
  /** The journal's contradiction ids in entry order, until the next journal write. */
  private journalContradictions: string[] | undefined;

  constructor(
    readonly project: Project,
    storeItems: readonly ContextItem[],
    journal: readonly JournalRecord[],
    authored: Authored,
    private readonly log: FastifyBaseLogger,
  ) {
    for (const item of storeItems) this.storeItems.set(item.id, item);
    for (const record of journal) this.journal.set(record.item.id, record);
    this.authored = authored;
    for (const key of INDEX_KEYS) {
      const categories = new Set(key.split(","));
      const items = new Map<string, ContextItem>();
      for (const item of this.baseItems()) items.set(item.id, item);
      for (const { entry, item } of this.journal.values()) {
        if (categories.has(entry.category)) items.set(item.id, item);
      }
      this.slots.set(key, { categories, index: new PoolIndex(items.values()) });
    }
  }

  /** The gaps of the checkout's authored memory (withheld, malformed, unverified), for every packet and recall. */
  authoredGaps(): readonly string[] {
    return this.authored.gaps;
  }

  /** The audit's `memory` field: the commit and revision served and what was withheld; none without a checkout. */
  authoredMemory(): PacketMemory | undefined {
    return this.authored.memory;
  }

  /** Store items and authored memory and skills: the part of the pool every role reads. */
  baseItems(): ContextItem[] {
    const byId = new Map<string, ContextItem>();
    for (const item of this.authored.items) byId.set(item.id, item);
    for (const item of this.storeItems.values()) byId.set(item.id, item);
    return [...byId.values()];
  }

  /**
   * Journal records in entry order (creation time, then id), whatever order they arrived in: another process's
   * entries come through the change feed in commit order.
   */
  journalRecords(): JournalRecord[] {
    return [...this.journal.values()].sort(
      (a, b) => compareIds(a.entry.createdAt, b.entry.createdAt) || compareIds(a.entry.id, b.entry.id),
    );
  }

  /** The journal items of the categories a role reads, optionally only those of one run and one stage. */
  journalItems(categories: readonly JournalCategory[], filter: { runId?: string; stage?: string } = {}) {
    const wanted = new Set<string>(categories);
    return this.journalRecords()
      .filter(({ entry }) => wanted.has(entry.category))
      .filter(({ entry }) => filter.runId === undefined || entry.runId === filter.runId)
      .filter(({ entry }) => filter.stage === undefined || entry.stage === filter.stage)
      .map(({ item }) => item);
  }

  /** Ids of the journal items of category `contradiction`, in entry order. */
  contradictionJournalIds(): string[] {
    this.journalContradictions ??= this.journalRecords()
      .filter(({ entry }) => entry.category === "contradiction")
      .map(({ item }) => item.id);
    return [...this.journalContradictions];
  }

  /**
   * The ids of every open contradiction: the competing state items (more than one current value, or more than one
   * pending proposal, of a key), then the journal's contradiction entries. Computed from the pool's own state items
   * with the store's rule (`findContradictions`), once per item change: the pool holds every state item the store
   * does, so the answer equals the store's without a read, which every process would otherwise repeat after every
   * write on the database.
   */
  openContradictionIds(): string[] {
    if (this.stateContradictions?.generation !== this.itemGeneration) {
      const state = [...this.storeItems.values()].filter(
        (item) => item.kind === "state" && (item.status === "current" || item.status === "proposed"),
      );
      const ids = findContradictions(state).flatMap((contradiction) => contradiction.itemIds);
      this.stateContradictions = { generation: this.itemGeneration, ids };
    }
    return [...this.stateContradictions.ids, ...this.contradictionJournalIds()];
  }

  /** The index serving a role's packets. */
  indexForRole(role: string): PoolIndex {
    return this.slots.get(categoryKey(rolePolicy(role).journalCategories))!.index;
  }

  /** The index holding the whole pool: every journal category, authored memory and skills. */
  wholeIndex(): PoolIndex {
    return this.slots.get(ALL)!.index;
  }

  /**
   * Brings the records a feed change names to what the store holds now: `items` and `entries` are the store's
   * current rows for `itemIds` and `entryIds`; an id the store no longer holds leaves the pool.
   */
  applyStored(
    itemIds: readonly string[],
    items: readonly ContextItem[],
    entryIds: readonly string[],
    entries: readonly JournalEntry[],
  ): void {
    const foundItems = new Set(items.map((item) => item.id));
    const gone = itemIds.filter((id) => !foundItems.has(id) && this.storeItems.has(id));
    if (items.length > 0 || gone.length > 0) this.apply({ kind: "items", items });
    for (const id of gone) {
      this.storeItems.delete(id);
      for (const slot of this.slots.values()) slot.index.remove(id);
    }
    for (const entry of entries) this.apply({ kind: "journal", entry });
    const foundEntries = new Set(entries.map((entry) => entry.id));
    for (const id of entryIds) {
      if (foundEntries.has(id)) continue;
      for (const [itemId, record] of this.journal) {
        if (record.entry.id !== id) continue;
        this.journal.delete(itemId);
        this.journalContradictions = undefined;
        for (const slot of this.slots.values()) slot.index.remove(itemId);
      }
    }
  }

  /** Applies a write the store holds to every index it affects. */
  apply(change: PoolChange): void {
    if (change.kind === "items") {
      this.itemGeneration += 1;
      for (const item of change.items) {
        if (item.project !== this.project.id) continue;
        // Superseded and rejected items stay until retention purges them: the index counts them as
        // `excludedSuperseded`, exactly as the plain assembly over the store's items does.
        this.storeItems.set(item.id, item);
        for (const slot of this.slots.values()) slot.index.upsert(item);
      }
      return;
    }
    const record = toJournalRecord(change.entry, this.log);
    if (record === undefined || record.entry.project !== this.project.id) return;
    this.journal.set(record.item.id, record);
    this.journalContradictions = undefined;
    for (const slot of this.slots.values()) {
      if (slot.categories.has(record.entry.category)) slot.index.upsert(record.item);
    }
  }

  /**
   * Reloads authored memory and skills when what the checkout commits, or what it holds uncommitted, may have
   * changed. Every packet, recall and explain request asks; git is asked again only when a stat of the memory
   * folders or of the git files that move with a commit, a checkout, an amend or a staging differs from the last
   * confirmed one, or is too recent to trust (see {@link authoredSignature}). Concurrent callers share one reload.
   */
  async refreshAuthored(): Promise<void> {
    const root = this.project.checkoutRoot;
    if (root === null) return;
    if (this.refreshing === undefined && this.authoredSignature !== undefined) {
      const signature = authoredSignature(root, this.gitDirs);
      if (signature !== undefined && signature === this.authoredSignature) return;
    }
    this.refreshing ??= (async () => {
      try {
        this.gitDirs = await gitDirectories(root);
        // Taken before git is read: a change made while reading shows in the next signature.
        const signature = authoredSignature(root, this.gitDirs);
        const next = await readAuthored(this.project, this.log);
        // A read that failed is tried again by the next request.
        this.authoredSignature = next.key === undefined ? undefined : signature;
        if (next.key !== undefined && next.key === this.authored.key) return;
        const old = this.authored.items;
        this.authored = next;
        const kept = new Set(next.items.map((item) => item.id));
        for (const slot of this.slots.values()) {
          for (const item of old) {
            // A store item never shares an authored id (`mem_`, `skill_`), so removal cannot drop one.
            if (!kept.has(item.id)) slot.index.remove(item.id);
          }
          for (const item of next.items) slot.index.upsert(item);
        }
      } finally {
        this.refreshing = undefined;
      }
    })();
    await this.refreshing;
  }
}

/** A file changed less than this long ago may change again within its timestamp's resolution. */
const RACY_MS = 3_000;

/**
 * A stat signature of everything under the checkout's `.kxm/memory` and `.kxm/skills/promoted` (a superset of
 * what the memory revision hashes): each entry's path, inode, size, and modification and change times, links not
 * followed. Equal signatures mean the revision cannot have changed, so the hash is skipped. Undefined, meaning
 * "hash to be sure", when an entry was modified within the last {@link RACY_MS} (a write in the same timestamp
 * tick as the signature would not show) or a folder cannot be read. Synchronous on purpose: a few stats cost less
 * than the thread-pool round trips of asynchronous ones.
 */
export function memorySignature(root: string, nowMs = Date.now()): string | undefined {
  const parts: string[] = [];
  const racyBefore = BigInt(Math.floor(nowMs) - RACY_MS) * 1_000_000n;
  const entry = (path: string): BigIntStats | undefined => {
    const stats = lstatOrUndefined(path);
    if (stats === undefined) parts.push(`${path}\0-`);
    else parts.push(`${path}\0${stats.ino}\0${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}`);
    return stats;
  };
  const walk = (dir: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const name of entries.map((dirent) => dirent.name).sort()) {
      const path = join(dir, name);
      const stats = entry(path);
      if (stats === undefined) continue;
      if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return false;
      if (stats.isDirectory() && !walk(path)) return false;
    }
    return true;
  };
  for (const dir of [join(root, ".kxm", "memory"), join(root, ".kxm", "skills", "promoted")]) {
    const stats = entry(dir);
    if (stats === undefined) continue;
    if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return undefined;
    if (stats.isDirectory() && !walk(dir)) return undefined;
  }
  return parts.join("\n");
}

/**
 * A path's stats, links not followed, or undefined when there is nothing to stat: missing, or below something that
 * is no longer a folder (ENOTDIR: a checkout that became a file since it was registered holds no memory).
 */
function lstatOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** One file's stat as a signature part; undefined when it changed too recently to trust. */
function statPart(path: string, racyBefore: bigint): string | undefined {
  const stats = lstatOrUndefined(path);
  if (stats === undefined) return `${path}\0-`;
  if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return undefined;
  return `${path}\0${stats.ino}\0${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}`;
}

/**
 * The stat signature of what a checkout's served memory depends on: {@link memorySignature} (the work tree, for
 * what is withheld), and the git files a commit, a checkout, an amend, a reset or a staging rewrites: `HEAD` and
 * its text, the branch file it names, `packed-refs` and the index. Without a repository, the checkout's `.git`
 * entry stands in, so a `git init` there is noticed. Undefined when any part is undefined.
 */
export function authoredSignature(
  root: string,
  dirs: { gitDir: string; commonDir: string } | undefined,
  nowMs = Date.now(),
): string | undefined {
  const memory = memorySignature(root, nowMs);
  if (memory === undefined) return undefined;
  const racyBefore = BigInt(Math.floor(nowMs) - RACY_MS) * 1_000_000n;
  // The `.kxm` entry itself, so that one replaced by a file or a dangling link is noticed even without memory.
  const paths: string[] = [join(root, ".kxm")];
  let head = "";
  if (dirs === undefined) paths.push(join(root, ".git"));
  else {
    try {
      head = readFileSync(join(dirs.gitDir, "HEAD"), "utf8");
    } catch {
      return undefined;
    }
    paths.push(join(dirs.gitDir, "HEAD"), join(dirs.gitDir, "index"), join(dirs.commonDir, "packed-refs"));
    const ref = /^ref: (refs\/\S+)\s*$/.exec(head)?.[1];
    if (ref !== undefined) paths.push(join(dirs.commonDir, ref), join(dirs.gitDir, ref));
  }
  const parts = [memory, head];
  for (const path of paths) {
    const part = statPart(path, racyBefore);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return parts.join("\n");
}

function toJournalRecord(entry: JournalEntry, log: FastifyBaseLogger): JournalRecord | undefined {
  try {
    return { entry, item: journalEntryToItem(entry) };
  } catch (error) {
    if (!isKxmError(error)) throw error;
    log.warn({ event: "journal_entry_skipped", project: entry.project, entryId: entry.id, code: error.code });
    return undefined;
  }
}

/** A path as a gap may name it: control characters escaped, so one gap stays one line wherever it is printed. */
function gapPath(path: string): string {
  return path.replace(/\p{Cc}/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The gaps of a checkout's authored memory, in this order: `memory_unavailable:<reason>` (git cannot vouch for
 * any of it, so none is served), `memory_invalid:<file>: <field>: <rule>` per committed file left out (the
 * message `kxm memory validate` prints; never the file's content), `memory_skill_unverified:<id>`,
 * `memory_skills_unreadable`, then `memory_withheld:<state>:<path>` per uncommitted file.
 */
function authoredGaps(memory: CommittedMemory): string[] {
  const gaps: string[] = [];
  if (memory.unavailable !== undefined) gaps.push(`memory_unavailable:${memory.unavailable}`);
  for (const problem of memory.problems) gaps.push(`memory_invalid:${gapPath(formatMemoryProblem(problem))}`);
  for (const id of memory.unverifiedSkills) gaps.push(`memory_skill_unverified:${gapPath(id)}`);
  if (memory.skillsUnreadable) gaps.push("memory_skills_unreadable");
  for (const file of memory.withheld) gaps.push(`memory_withheld:${file.state}:${gapPath(file.path)}`);
  return gaps;
}

/**
 * The active memory facts and verified promoted skills of the project's own checkout as its HEAD commits them,
 * as items of that project (operator-scope facts as `_shared` defaults), with the gaps and the audit's `memory`.
 * A project without a checkout has none. Uncommitted content is never served; a malformed committed file leaves
 * out that file only. Problems are logged by file name and count, never content.
 */
async function readAuthored(project: Project, log: FastifyBaseLogger): Promise<Authored> {
  const root = project.checkoutRoot;
  if (root === null) return NO_CHECKOUT;
  const unavailable = await checkoutUnavailable(root);
  if (unavailable !== undefined) {
    log.warn({ event: "memory_unavailable", project: project.id, reason: unavailable });
    const audit: PacketMemory = { commit: null, revision: null, withheld: [] };
    const gaps = [`memory_unavailable:${unavailable}`];
    return { key: JSON.stringify([audit, gaps]), items: [], gaps, memory: audit };
  }
  let memory: CommittedMemory;
  try {
    memory = await readCommittedMemory(root, project.id);
  } catch (error) {
    log.warn({ event: "memory_unreadable", project: project.id, error: describeError(error) });
    return {
      key: undefined,
      items: [],
      gaps: ["memory_unavailable:failed"],
      memory: { commit: null, revision: null, withheld: [] },
    };
  }
  if (memory.unavailable !== undefined) {
    log.warn({ event: "memory_unavailable", project: project.id, reason: memory.unavailable });
  }
  if (memory.problems.length > 0) {
    log.warn({ event: "memory_invalid", project: project.id, files: memory.problems.map((p) => p.file) });
  }
  if (memory.unverifiedSkills.length > 0) {
    log.warn({ event: "skills_unverified", project: project.id, skillIds: memory.unverifiedSkills });
  }
  const audit: PacketMemory = {
    commit: memory.commit ?? null,
    revision: memory.revision ?? null,
    withheld: memory.withheld.map(({ path, state }) => ({ path, state })),
  };
  const gaps = authoredGaps(memory);
  const kxm = await kxmFolderGap(root);
  if (kxm !== undefined) {
    log.warn({ event: "memory_kxm_problem", project: project.id, gap: kxm });
    gaps.splice(memory.unavailable === undefined ? 0 : 1, 0, kxm);
  }
  return { key: JSON.stringify([audit, gaps]), items: memory.items, gaps, memory: audit };
}

interface CacheEntry {
  pool: ProjectPool | undefined;
  readonly ready: Promise<ProjectPool>;
}

/** Which records a run of changes to one project names, and whether the project must be rebuilt instead. */
function plan(changes: readonly StoreChange[]) {
  const items = new Set<string>();
  const entries = new Set<string>();
  let rebuild = false;
  for (const change of changes) {
    if (change.kind === "project" || change.kind === "purge") rebuild = true;
    else if (change.kind === "items") for (const id of change.ids) items.add(id);
    else if (change.kind === "journal") for (const id of change.ids) entries.add(id);
    // `run` and `review` changes touch nothing a pool holds: the wiki reads reviews from the store.
  }
  return { rebuild, items: [...items], entries: [...entries] };
}

/**
 * Every project's pool, loaded on first use and then kept equal to the store through the store's change feed
 * (decision 0006), whichever process wrote: this hub's writes and those of any other process on the same
 * database reach the pools the same way, once each. Every read first calls {@link sync}, which applies the changes
 * after this hub's cursor: a change to items or journal entries re-reads those records from the store (so a
 * change applied twice, or after a newer one, still ends at the store's current row), and a project, purge or
 * reset change drops the pool, which reloads on its next use.
 */
export class PoolCache {
  private entries = new Map<string, CacheEntry>();
  private readonly loadedProjects = new Map<string, Project>();
  /** The feed's `seq` up to which every change has reached the pools; undefined until the first sync. */
  private cursor: number | undefined;
  /** The last catch-up, running or done: rounds run one at a time. */
  private tail: Promise<unknown> = Promise.resolve();
  /** A round waiting for the running one: it starts later than any caller that joins it. */
  private queued: Promise<string[]> | undefined;

  constructor(
    private readonly store: KxmStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Brings every loaded pool up to date with the changes committed before this call, by any process. Concurrent
   * callers share a round that has not started yet, so each waits for one that began after it asked. Resolves
   * to the projects whose pools were dropped (they reload on next use).
   */
  sync(): Promise<string[]> {
    if (this.queued !== undefined) return this.queued;
    const round = this.tail.then(() => {
      this.queued = undefined;
      return this.catchUp();
    });
    this.queued = round;
    this.tail = round.catch(() => undefined);
    return round;
  }

  /** The project's pool, up to date with the store, loading it first if needed. */
  async get(project: Project): Promise<ProjectPool> {
    await this.sync();
    const existing = this.entries.get(project.id);
    if (existing !== undefined) return existing.pool ?? existing.ready;
    const entry: CacheEntry = {
      pool: undefined,
      ready: this.load(project).then((pool) => {
        entry.pool = pool;
        return pool;
      }),
    };
    this.entries.set(project.id, entry);
    entry.ready.catch(() => {
      if (this.entries.get(project.id) === entry) this.forget(project.id);
    });
    return entry.ready;
  }

  /**
   * Forgets a project whose checkout changed or that was removed: its pool and its cached record go, so the next
   * request reads the project from the store again (and a removed one answers 404).
   */
  forget(id: string): void {
    this.entries.delete(id);
    this.loadedProjects.delete(id);
  }

  /** A project whose pool was loaded and not forgotten since, without touching the store. */
  knownProject(id: string): Project | undefined {
    return this.loadedProjects.get(id);
  }

  /** Drops every pool; each reloads on its next use. Returns the ids that were loaded. */
  invalidateAll(): string[] {
    const ids = [...this.entries.keys()];
    this.entries = new Map();
    this.loadedProjects.clear();
    return ids;
  }

  /**
   * One round: the changes after the cursor, applied project by project. A pool still loading when a change to its
   * project arrives is dropped, since its snapshot may predate the change; the requests already waiting for it
   * asked before the change was seen. The cursor moves only once every change is applied, so a round that fails
   * is repeated by the next one (re-reading a record is harmless).
   */
  private async catchUp(): Promise<string[]> {
    if (this.cursor === undefined) {
      // The first round: nothing is loaded yet, and every pool loaded from now holds what precedes the head.
      this.cursor = await this.store.changeHead();
      return [];
    }
    const started = performance.now();
    const batch = await this.store.changesSince(this.cursor);
    if (batch.reset) {
      const dropped = this.invalidateAll();
      this.log.info({ event: "pools_reset", head: batch.head, dropped: dropped.length });
      this.cursor = batch.head;
      return dropped;
    }
    const byProject = new Map<string, StoreChange[]>();
    for (const change of batch.changes) {
      const list = byProject.get(change.project);
      if (list === undefined) byProject.set(change.project, [change]);
      else list.push(change);
    }
    const dropped: string[] = [];
    for (const [project, changes] of byProject) {
      const entry = this.entries.get(project);
      if (entry === undefined) continue;
      const work = plan(changes);
      if (work.rebuild || entry.pool === undefined) {
        this.forget(project);
        dropped.push(project);
        continue;
      }
      if (work.items.length === 0 && work.entries.length === 0) continue;
      const [items, entries] = await Promise.all([
        this.store.getItems(project, work.items),
        this.store.getJournalEntries(project, work.entries),
      ]);
      entry.pool.applyStored(work.items, items, work.entries, entries);
    }
    if (batch.changes.length > 0) {
      this.log.debug({
        event: "pools_caught_up",
        changes: batch.changes.length,
        head: batch.head,
        dropped: dropped.length,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
    }
    this.cursor = batch.head;
    return dropped;
  }

  private async load(project: Project): Promise<ProjectPool> {
    this.loadedProjects.set(project.id, project);
    const authored = await readAuthored(project, this.log);
    const items = await this.store.liveItems(project.id);
    const journal: JournalRecord[] = [];
    for (const entry of await this.store.listJournal(project.id)) {
      const record = toJournalRecord(entry, this.log);
      if (record !== undefined) journal.push(record);
    }
    return new ProjectPool(project, items, journal, authored, this.log);
  }
}
