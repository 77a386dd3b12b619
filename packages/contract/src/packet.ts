import { z } from "zod";
import { ContextItemSchema } from "./item.js";
import { ContextRequestSchema } from "./request.js";
import {
  AuthoritySchema,
  ConfidenceSchema,
  ItemKindSchema,
  ItemStatusSchema,
  OriginSchema,
} from "./vocabulary.js";

/** JSON-compatible values, for the caller's working state that a packet carries through unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/** A token-budgeted context packet. Every selected item is in exactly one section. */
export const ContextPacketSchema = z.object({
  project: z.string(),
  role: z.string(),
  currentState: z.array(ContextItemSchema),
  knowledge: z.array(ContextItemSchema),
  evidence: z.array(ContextItemSchema),
  episodes: z.array(ContextItemSchema),
  skills: z.array(ContextItemSchema),
  contradictions: z.array(ContextItemSchema),
  workingState: z.record(z.string(), JsonValueSchema),
  /** Selected items counted by `provenance.sourceType`, keys in first-seen order. */
  provenanceSummary: z.partialRecord(OriginSchema, z.int()),
  budgetTokens: z.int(),
  estimatedTokens: z.int(),
  unresolvedGaps: z.array(z.string()),
});
export type ContextPacket = z.infer<typeof ContextPacketSchema>;

/** The packet sections, in the order they are filled and rendered. */
export const PACKET_SECTIONS = [
  "contradictions",
  "currentState",
  "knowledge",
  "evidence",
  "episodes",
  "skills",
] as const satisfies readonly (keyof ContextPacket)[];
export type PacketSection = (typeof PACKET_SECTIONS)[number];

/** Each section's heading as people read it, wherever a packet is shown (the CLI, the hub's inspector). */
export const PACKET_SECTION_HEADINGS: Readonly<Record<PacketSection, string>> = {
  contradictions: "Contradictions",
  currentState: "Current state",
  knowledge: "Knowledge",
  evidence: "Evidence",
  episodes: "Episodes",
  skills: "Skills",
};

/**
 * Why a memory or promoted-skill file of a checkout was not served: its work-tree or index content differs from
 * the commit HEAD names (`modified`, `staged`, `deleted`, `untracked`, `ignored`, `conflicted`), or git is told
 * not to look at it (`assume-unchanged`, `skip-worktree`).
 */
export const WITHHELD_STATES = [
  "modified",
  "staged",
  "deleted",
  "untracked",
  "ignored",
  "conflicted",
  "assume-unchanged",
  "skip-worktree",
] as const;

/**
 * The authored memory a hub packet carries, for a project with a registered checkout: the commit whose files were
 * served (`null` when there is none: no commit yet, or git could not be read), the memory revision of those files,
 * and every uncommitted file left out, sorted by path. Keys in this order.
 */
export const PacketMemorySchema = z.object({
  commit: z.string().nullable(),
  revision: z.string().nullable(),
  withheld: z.array(z.object({ path: z.string(), state: z.enum(WITHHELD_STATES) })),
});
export type PacketMemory = z.infer<typeof PacketMemorySchema>;

/**
 * Why the hub withholds an item below the arbiter (decisions 0017 and 0018), in precedence order: an item with
 * several reasons is counted, explained and missed under the first.
 */
export const WITHHELD_REASONS = ["revoked", "forgotten", "expired", "check_failed"] as const;
export type WithheldReason = (typeof WITHHELD_REASONS)[number];

/**
 * Why a candidate that shares a task token with the task is not in the packet: eligible but over the budget
 * (offered and not taken, or deferred once nothing left could fit), eligible but after the item limit, a kind the
 * request did not ask for, inert (state that is not current, a proposed skill), superseded or rejected, or withheld
 * by a rule below the arbiter (revoked, forgotten, expired, a failing check), in that order of the docs.
 */
export const NEAR_MISS_REASONS = [
  "over_budget",
  "item_limit",
  "kind_not_requested",
  "inert",
  "superseded",
  ...WITHHELD_REASONS,
] as const;
export type NearMissReason = (typeof NEAR_MISS_REASONS)[number];

/**
 * A candidate that did not win a slot: its id and kind, why, its BM25 score (rounded like `relevance.selected`; for
 * an item outside the eligible set, the score it would have had as one more eligible document) and what it would
 * have cost, in tokens (ceil(cost / 4) of the item alone). Keys in this order.
 */
export const NearMissSchema = z.object({
  id: z.string(),
  kind: ItemKindSchema,
  reason: z.enum(NEAR_MISS_REASONS),
  score: z.number(),
  tokens: z.int(),
});
export type NearMiss = z.infer<typeof NearMissSchema>;

/**
 * How the packet was assembled. `relevance` holds numbers only; `nearMisses` follows it. `memory` comes next, only
 * in a hub packet of a project with a registered checkout, and `packetId` last, only in a hub packet.
 */
export const PacketAuditSchema = z.object({
  request: ContextRequestSchema,
  selectedIds: z.array(z.string()),
  candidateCount: z.int(),
  excludedSuperseded: z.int(),
  budgetTokens: z.int(),
  estimatedTokens: z.int(),
  unresolvedGaps: z.array(z.string()),
  relevance: z.object({
    /** Distinct task tokens. */
    taskTokens: z.int(),
    /** Eligible items sharing at least one task token. */
    matchedCandidates: z.int(),
    /** The rounded BM25 score of each selected item, in `selectedIds` order. */
    selected: z.array(z.number()),
  }),
  /**
   * The best candidates left out, at most `LIMITS.maxNearMisses`, by score descending then id (docs/guides/arbiter.md,
   * "Near misses"). Always present, possibly empty.
   */
  nearMisses: z.array(NearMissSchema),
  memory: PacketMemorySchema.optional(),
  /**
   * The hub's packet id (`pkt_` + 32 hex): a content hash of every input of the assembly, the same for the same
   * inputs. Last, and only in a hub packet: the pure arbiter never sets it.
   */
  packetId: z.string().optional(),
});
export type PacketAudit = z.infer<typeof PacketAuditSchema>;

export const AssembledPacketSchema = z.object({ packet: ContextPacketSchema, audit: PacketAuditSchema });
export type AssembledPacket = z.infer<typeof AssembledPacketSchema>;

/** One recall hit: metadata only, never the summary. */
export const RecallItemSchema = z.object({
  id: z.string(),
  kind: ItemKindSchema,
  authority: AuthoritySchema,
  confidence: ConfidenceSchema,
  status: ItemStatusSchema.optional(),
  sourceType: OriginSchema,
  sourceRef: z.string().optional(),
  derived: z.boolean(),
  lineageDepth: z.int(),
  relevance: z.number(),
});
export type RecallItem = z.infer<typeof RecallItemSchema>;

export const RecallResultSchema = z.object({
  items: z.array(RecallItemSchema),
  unresolvedGaps: z.array(z.string()),
});
export type RecallResult = z.infer<typeof RecallResultSchema>;

/** A packet id as the hub makes it: `pkt_` and 32 lowercase hex digits. */
export const PacketIdSchema = z
  .string()
  .regex(/^pkt_[0-9a-f]{32}$/, "must be pkt_ followed by 32 lowercase hex digits");

/** A stored packet's request: the audit's echo with the task replaced by its length in characters. */
const StoredPacketRequestSchema = ContextRequestSchema.omit({ task: true }).extend({ taskChars: z.int() });

/**
 * A stored packet's audit: the packet's audit without the task text (`request.taskChars` instead) and without
 * `packetId` (the stored packet's own key). Every other key of the audit is kept as the hub served it.
 */
const StoredPacketAuditSchema = z.object({
  request: StoredPacketRequestSchema,
  ...PacketAuditSchema.omit({ request: true, packetId: true }).shape,
});

/**
 * The inputs of a hub assembly besides the request and the records (decision 0016), kept with the stored packet
 * so a replay can rebuild it and name the input that differs.
 */
const PacketInputsSchema = z.object({
  /** The digest of the items the arbiter assembled from. */
  pool: z.string(),
  /** The open contradiction ids the arbiter was given, in the order given. */
  contradictions: z.array(z.string()),
  /** Items withheld by a rule below the arbiter, as [id, reason], in id order. */
  withheld: z.array(z.tuple([z.string(), z.enum(WITHHELD_REASONS)])),
  /** The hub's gaps after the arbiter's: authored memory, withheld items, review due. */
  hubGaps: z.array(z.string()),
  /** The authored-memory part of `hubGaps` (its first entries): git cannot give back a work tree, so it is kept. */
  authoredGaps: z.array(z.string()),
});
export type PacketInputs = z.infer<typeof PacketInputsSchema>;

/**
 * What the hub keeps of each packet it served, one per packet id and project: never the task text or an item's
 * body. `requestSha256` is the SHA-256 of the request's JSON (task included) as the audit echoed it, so a replay
 * given the task can check it is the same request; `changeSeq` is the change seq the serving pool's records were
 * exact for when the packet was first assembled, at `firstServedAt` (decision 0016).
 */
export const StoredPacketSchema = z.object({
  packetId: z.string(),
  project: z.string(),
  /** The request's `runId`, or null. */
  runId: z.string().nullable(),
  rankerVersion: z.string(),
  requestSha256: z.string(),
  changeSeq: z.int(),
  firstServedAt: z.string(),
  lastServedAt: z.string(),
  timesServed: z.int(),
  /** The ids each packet section held, in `PACKET_SECTIONS` order. */
  sections: z.object({
    contradictions: z.array(z.string()),
    currentState: z.array(z.string()),
    knowledge: z.array(z.string()),
    evidence: z.array(z.string()),
    episodes: z.array(z.string()),
    skills: z.array(z.string()),
  }),
  audit: StoredPacketAuditSchema,
  /** The assembly's other inputs; null for a packet stored before replay existed. */
  inputs: PacketInputsSchema.nullable(),
});
export type StoredPacket = z.infer<typeof StoredPacketSchema>;
