// One project's pool: its store items, journal and authored memory, in one index per journal-category set.
import type { PoolIndex } from "@kxm/arbiter";
import {
  type ContextItem,
  compareCodeUnits,
  DEFAULT_ROLE_POLICY,
  JOURNAL_CATEGORIES,
  type JournalCategory,
  type JournalEntry,
  NAMED_ROLES,
  type PacketMemory,
  type ProjectRecord,
  ROLE_POLICIES,
  rolePolicy,
} from "@kxm/contract";
import { gitDirectories } from "@kxm/memory-git";
import { findContradictions } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import { type Authored, NO_CHECKOUT, readAuthored } from "./authored.js";
import { type JournalRecord, toJournalRecord } from "./journal-records.js";
import { authoredSignature } from "./memory-signature.js";
import { DigestedIndex } from "./pool-digest.js";

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

interface IndexSlot {
  readonly categories: ReadonlySet<string>;
  /** Keeps the digest of its items for packet ids, updated with every change (pool-digest.ts). */
  readonly index: DigestedIndex;
}

/** A change to a project's records as the store holds them now, applied to every index it affects. */
export type PoolChange =
  | { readonly kind: "items"; readonly items: readonly ContextItem[] }
  | { readonly kind: "journal"; readonly entry: JournalEntry };

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
    readonly project: ProjectRecord,
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
      this.slots.set(key, { categories, index: new DigestedIndex(items.values()) });
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
      (a, b) =>
        compareCodeUnits(a.entry.createdAt, b.entry.createdAt) || compareCodeUnits(a.entry.id, b.entry.id),
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

  /** The digest of the items of the index serving a role's packets, kept up to date by the index itself. */
  digestForRole(role: string): string {
    return this.slots.get(categoryKey(rolePolicy(role).journalCategories))!.index.digest();
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
