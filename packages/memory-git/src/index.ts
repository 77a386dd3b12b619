// The public surface of @kxm/memory-git. Named exports only: adding a name here makes it public on purpose.
export { renderBrief } from "./brief.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { AcceptedCandidate, AcceptOptions, RejectedCandidate } from "./candidate-review.js";
export {
  acceptMemoryCandidate,
  listMemoryCandidates,
  type MemoryCandidate,
  rejectMemoryCandidate,
} from "./candidate-review.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { NoteOptions } from "./candidates.js";
export { noteCandidate } from "./candidates.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { VerifyOptions } from "./check-runner.js";
export { type FactVerification, verifyFacts } from "./check-runner.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { WithheldFile } from "./committed.js";
export { type CommittedMemory, readCommittedMemory } from "./committed.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { CheckRecord, CheckRecords, CheckResult, FactWithheldReason } from "./fact-checks.js";
export { factWithheldReason, readCheckRecords } from "./fact-checks.js";
export { factToContextItem } from "./fact-item.js";
export { writeFileWhole } from "./files.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { CommittedFile, CommittedFiles, CommittedReadOptions, GitFileState } from "./git.js";
export { checkTrackedClean, type GitCheck, gitDirectories } from "./git.js";
export { authoredMemoryDirs, KXM_PATHS, kxmDir } from "./layout.js";
export {
  activeFacts,
  deliverableFacts,
  type FactNotice,
  factNotices,
  validateMemory,
  type WithheldCounts,
  withoutWithheld,
} from "./load.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { FactCheck, MemoryFact } from "./memory-file.js";
export { formatMemoryProblem, type MemoryProblem, type MemoryScope } from "./memory-file.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { RevisionFile } from "./revision.js";
export { computeMemoryRevision } from "./revision.js";
export { defaultProjectId, findProjectRoot } from "./root.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { PromotedSkillDocument } from "./skills/documents.js";
export { promotedSkillDocuments } from "./skills/documents.js";
export { loadPromotedSkillItems } from "./skills/items.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { SkillFrontMatter } from "./skills/skill-file.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { SkillStatus } from "./skills/store.js";
export {
  listSkills,
  promoteSkill,
  proposeSkill,
  rejectSkill,
  type SkillMetadata,
  verifyPromotedSkills,
  verifySkill,
} from "./skills/store.js";
export { type SyncAction, syncInstructionFiles } from "./sync.js";
