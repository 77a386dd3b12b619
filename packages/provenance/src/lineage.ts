import {
  type Authority,
  type Confidence,
  type ContextItem,
  compareCodeUnits,
  type ItemKind,
  type Origin,
} from "@kxm/contract";

/**
 * The `derivedFrom` of an item derived from `ancestors`: each ancestor's id and each ancestor's own
 * `derivedFrom`, de-duplicated and sorted by code unit. The 64 limit is checked by the caller.
 */
export function lineageOf(ancestors: readonly ContextItem[]): string[] {
  const ids = new Set<string>();
  for (const ancestor of ancestors) {
    ids.add(ancestor.id);
    for (const id of ancestor.provenance.derivedFrom ?? []) ids.add(id);
  }
  return [...ids].sort(compareCodeUnits);
}

/**
 * How many ancestors an item's lineage holds: the length of its `derivedFrom`, which is already the transitive
 * union, so recall and explain agree without walking the pool. 0 for an item that is not derived.
 */
export function lineageDepth(item: ContextItem): number {
  return item.provenance.derivedFrom?.length ?? 0;
}

/** One ancestor in an explanation; `sourceType` and `sourceRef` only when the ancestor is in the pool. */
export interface LineageAncestor {
  id: string;
  exists: boolean;
  sourceType?: Origin;
  sourceRef?: string;
}

/** Metadata of the explained item: no summary. */
export interface ExplainedItem {
  id: string;
  kind: ItemKind;
  authority: Authority;
  confidence: Confidence;
  sourceType: Origin;
  sourceRef?: string;
}

/** What `kxm context explain` answers for one item id. */
export interface LineageExplanation {
  id: string;
  exists: boolean;
  item?: ExplainedItem;
  /** The item's `derivedFrom`, in its order, each with its source when the ancestor is in the pool. */
  lineage: LineageAncestor[];
  lineageDepth: number;
  evidenceRefs: string[];
}

/**
 * Explains item `id` against `pool`: whether it exists, its derivation lineage with the source of each
 * ancestor, and its evidence references. An unknown id gives `exists: false` and empty lists; a missing
 * ancestor is reported with `exists: false`, never thrown. When the pool repeats an id, the first one counts.
 */
export function explainLineage(id: string, pool: Iterable<ContextItem>): LineageExplanation {
  const byId = new Map<string, ContextItem>();
  for (const candidate of pool) if (!byId.has(candidate.id)) byId.set(candidate.id, candidate);

  const item = byId.get(id);
  if (item === undefined) return { id, exists: false, lineage: [], lineageDepth: 0, evidenceRefs: [] };

  const explained: ExplainedItem = {
    id: item.id,
    kind: item.kind,
    authority: item.authority,
    confidence: item.confidence,
    sourceType: item.provenance.sourceType,
  };
  if (item.provenance.sourceRef !== undefined) explained.sourceRef = item.provenance.sourceRef;

  const lineage = (item.provenance.derivedFrom ?? []).map((ancestorId): LineageAncestor => {
    const ancestor = byId.get(ancestorId);
    if (ancestor === undefined) return { id: ancestorId, exists: false };
    const entry: LineageAncestor = {
      id: ancestorId,
      exists: true,
      sourceType: ancestor.provenance.sourceType,
    };
    if (ancestor.provenance.sourceRef !== undefined) entry.sourceRef = ancestor.provenance.sourceRef;
    return entry;
  });

  return {
    id,
    exists: true,
    item: explained,
    lineage,
    lineageDepth: lineageDepth(item),
    evidenceRefs: [...(item.evidenceRefs ?? [])],
  };
}
