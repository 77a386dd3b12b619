/** Every limit of the guide and docs/reference/behaviour.md, in one place. Lengths are in UTF-16 code units. */
export const LIMITS = {
  /** Characters in an item summary, after trimming. */
  summaryChars: 4_000,
  /** Characters in a packet task. */
  taskChars: 2_000,
  /** Characters in a role name. */
  roleChars: 64,
  /** Characters in an item id. */
  idChars: 128,
  /** Characters in a project id. */
  projectChars: 128,
  /** Characters in a state key. */
  stateKeyChars: 200,
  /** Characters in a source reference. */
  sourceRefChars: 512,
  /** Smallest packet budget, in tokens. */
  minBudgetTokens: 512,
  /** Largest packet budget, in tokens. */
  maxBudgetTokens: 200_000,
  /** Kinds in `includeKinds`. */
  minIncludeKinds: 1,
  maxIncludeKinds: 5,
  /** References in each of `evidenceRefs`, `supersedes` and `provenance.derivedFrom`. */
  maxRefs: 64,
  /** Characters in one reference. */
  refChars: 512,
  /** Items selected into one packet. */
  maxPacketItems: 256,
  /** Ancestors in one derivation lineage. */
  maxLineage: 64,
  /** Characters in a recall query. */
  recallQueryChars: 500,
  /** Recall results: default and maximum. */
  recallDefaultLimit: 25,
  recallMaxLimit: 100,
  /** Evidence references on a state proposal or promotion. */
  minStateEvidenceRefs: 1,
  maxStateEvidenceRefs: 32,
  /** Characters in the reason of a revocation, a forget or a lift (decision 0017). */
  withholdReasonChars: 500,
  /** Characters in a token: the packet estimate is ceil(characters / 4). */
  charsPerToken: 4,
  /** Tokens are dropped when shorter or longer than these (never truncated). */
  minTokenChars: 2,
  maxTokenChars: 64,
  /** Near misses named in one packet's audit: the best candidates that did not win a slot. */
  maxNearMisses: 8,
  /** Gap codes in one step report's manifest (its items are at most `maxPacketItems`). */
  maxManifestGaps: 64,
} as const;
