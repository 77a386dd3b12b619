// The public surface of @kxm/runtime-dispatch. Named exports only: adding a name here makes it public on purpose.
export {
  type PreparedStep,
  type PrepareStepOptions,
  prepareStep,
} from "./dispatch.js";
export {
  assembleDispatchContext,
  COMMITTED_PATHS,
  type ContextEntry,
  committedContentGap,
  DISPATCH_BUDGET_TOKENS,
  type DispatchContext,
  type DispatchContextOptions,
  dispatchKinds,
  dispatchTask,
  EMPTY_REVISION,
  MAX_PROJECT_ITEMS,
  MAX_TASK_CHARS,
} from "./dispatch-context.js";
export {
  DISPATCH_GAPS,
  memoryRejectedGap,
  renderDeferredGap,
  skillUnverifiedGap,
  TASK_INVIOLABLE_GAP,
} from "./gaps.js";
export {
  buildManifest,
  type DispatchManifest,
  MANIFEST_SCHEMA,
  manifestPath,
  writeManifest,
} from "./manifest.js";
export {
  type DeliveredItem,
  estimatePromptTokens,
  MEMORY_INTRO,
  PROMPT_BUDGET_TOKENS,
  type PredecessorOutput,
  type PromptSection,
  packetIdFor,
  type RenderedPrompt,
  type RenderPromptOptions,
  renderDispatchPrompt,
} from "./prompt.js";
export {
  type CreateRunOptions,
  createRun,
  loadRun,
  RUN_SCHEMA,
  type Run,
  RunSchema,
  runDir,
} from "./runs.js";
export {
  loadWorkflow,
  parseWorkflow,
  type Workflow,
  WorkflowSchema,
  type WorkflowStep,
  WorkflowStepSchema,
  workflowFile,
} from "./workflow.js";
