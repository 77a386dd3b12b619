// The public surface of @kxm/memory-git. Named exports only: adding a name here makes it public on purpose.
export { renderBrief } from "./brief.js";
export { type NoteOptions, noteCandidate } from "./candidates.js";
export {
  COMMITTED_MEMORY_PATHS,
  type CommittedMemory,
  readCommittedMemory,
  type WithheldFile,
} from "./committed.js";
export { admitFact, factToContextItem } from "./fact-item.js";
export { projectPath, writeFileWhole } from "./files.js";
export {
  type CommittedFile,
  type CommittedFiles,
  checkTrackedClean,
  type GitCheck,
  type GitFileState,
  gitDirectories,
  gitHeadCommit,
  readCommittedFiles,
} from "./git.js";
export {
  AUTHORED_MEMORY_PATHS,
  authoredMemoryDirs,
  CANDIDATES_FOLDER,
  isMemoryCandidate,
  KXM_DIR,
  KXM_PATHS,
  kxmDir,
  memoryCandidatesDir,
  memoryDir,
  promotedSkillsDir,
  skillsDir,
} from "./layout.js";
export { activeFacts, deliverableFacts, loadMemory, validateMemory } from "./load.js";
export {
  checkMemoryFile,
  formatMemoryProblem,
  MEMORY_SCHEMA,
  MEMORY_SCOPES,
  type MemoryFact,
  type MemoryProblem,
  type MemoryScope,
  parseMemoryFile,
} from "./memory-file.js";
export { computeMemoryRevision, type RevisionFile, revisionOf } from "./revision.js";
export { findProjectRoot } from "./root.js";
export { type PromotedSkillDocument, promotedSkillDocuments } from "./skills/documents.js";
export { loadPromotedSkillItems, skillToContextItem } from "./skills/items.js";
export {
  normalizeSkillMarkdown,
  parseSkillMarkdown,
  type SkillFrontMatter,
  skillContentSha256,
  skillId,
} from "./skills/skill-file.js";
export {
  listSkills,
  promoteSkill,
  proposeSkill,
  rejectSkill,
  type SkillMetadata,
  type SkillStatus,
  verifyPromotedSkills,
  verifySkill,
} from "./skills/store.js";
export {
  INSTRUCTION_FILES,
  MEMORY_END,
  MEMORY_START,
  planSync,
  renderMemoryBlock,
  type SyncAction,
  syncInstructionFiles,
} from "./sync.js";
