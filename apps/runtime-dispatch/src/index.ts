// The public surface of @kxm/runtime-dispatch. Named exports only: adding a name here makes it public on purpose.
export { type AgentExit, type AgentInvocation, runAgent } from "./adapter.js";
export {
  type AdapterConfig,
  AdapterSchema,
  AGENTS_FILE,
  type AgentsConfig,
  AgentsConfigSchema,
  adapterFor,
  adaptersFor,
  DEFAULT_TIMEOUT_SECONDS,
  loadAgentsConfig,
  PROFILES,
  PROMPT_FILE_PLACEHOLDER,
  type ProfileName,
  type PromptInput,
  parseAgentsConfig,
  type ResolvedAdapter,
} from "./agents.js";
export {
  type PreparedStep,
  type PrepareStepOptions,
  prepareStep,
  type RenderedStep,
  renderStep,
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
export { openRunLog, type RunEventName, type RunLog } from "./events.js";
export {
  type ExecutedRun,
  type ExecuteRunOptions,
  executeRun,
  predecessorsFromRun,
  type RunProgress,
  WITHHELD_ENV,
} from "./execute.js";
export {
  DISPATCH_GAPS,
  memoryRejectedGap,
  renderDeferredGap,
  skillUnverifiedGap,
  TASK_INVIOLABLE_GAP,
} from "./gaps.js";
export {
  HUB_REPORT_TIMEOUT_MS,
  type HubReportTarget,
  hubReporter,
  type ReportResult,
  type RunOutcomeReport,
  type RunReporter,
  type StepReport,
} from "./hub-report.js";
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
  type AgentReport,
  type EvidenceLine,
  outputSnippet,
  readAgentReport,
  SNIPPET_CHARS,
} from "./report.js";
export {
  type BrokenRun,
  listRunStatuses,
  loadStepResult,
  RUN_OUTCOME_SCHEMA,
  type RunOutcome,
  RunOutcomeSchema,
  type RunStatus,
  type RunStatusName,
  readManifests,
  readRunStatus,
  STEP_RESULT_SCHEMA,
  type StepResult,
  StepResultSchema,
  type StepStatus,
  scanRuns,
  stepFile,
  stepFileRel,
} from "./results.js";
export {
  buildRun,
  type CreateRunOptions,
  createRun,
  loadRun,
  RUN_SCHEMA,
  type Run,
  RunFileSchema,
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
