// The public surface of @kxm/runtime-dispatch: what the `kxm run` commands and the Runtime guide use, and the types
// their signatures name. Named exports only: adding a name here makes it public on purpose. Tests reach the
// internals by relative path.
export {
  loadWorkflow,
  type Workflow,
  type WorkflowStep,
  WorkflowStepSchema,
} from "./definitions/workflow.js";
export {
  type PreparedStep,
  type PrepareStepOptions,
  prepareStep,
  type RenderedStep,
  renderStep,
} from "./dispatch/dispatch.js";
export type { PredecessorOutput } from "./dispatch/prompt.js";
export type { ExecutedRun, ExecuteRunOptions, RunProgress } from "./execution/options.js";
export { predecessorsFromRun } from "./execution/predecessors.js";
export { executeRun } from "./execution/run-loop.js";
export {
  type HubReportTarget,
  hubReporter,
  type ReportResult,
  type RunOutcomeReport,
  type RunReporter,
  type StepReport,
} from "./hub/hub-report.js";
export type { DispatchManifest } from "./runs/manifest.js";
export {
  type BrokenRun,
  listRunStatuses,
  type RunOutcome,
  type RunStatus,
  readManifests,
  readRunStatus,
  type StepResult,
  scanRuns,
} from "./runs/results.js";
export { buildRun, type CreateRunOptions, createRun, loadRun, type Run } from "./runs/runs.js";
