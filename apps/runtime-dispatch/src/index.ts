// The public surface of @kxm/runtime-dispatch: what the `kxm run` commands and the Runtime guide use, and the types
// their signatures name. Named exports only: adding a name here makes it public on purpose. Tests reach the
// internals by relative path.

/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { WorkflowStep } from "./definitions/workflow.js";
export { loadWorkflow, type Workflow, WorkflowStepSchema } from "./definitions/workflow.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { PreparedStep, PrepareStepOptions, RenderedStep } from "./dispatch/dispatch.js";
export { prepareStep, renderStep } from "./dispatch/dispatch.js";
export type { PredecessorOutput } from "./dispatch/prompt.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { ExecutedRun, ExecuteRunOptions, RunProgress } from "./execution/options.js";
export { predecessorsFromRun } from "./execution/predecessors.js";
export { executeRun } from "./execution/run-loop.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { HubReportTarget, RunOutcomeReport } from "./hub/hub-report.js";
export { hubReporter, type ReportResult, type RunReporter, type StepReport } from "./hub/hub-report.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { WithheldAuthored, WithheldLookup } from "./hub/hub-withheld.js";
export { hubWithheld } from "./hub/hub-withheld.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { Efficacy, EfficacySide, Interval } from "./learning/efficacy.js";
export { type Ledger, loadLedger } from "./learning/ledger.js";
export type { DispatchManifest } from "./runs/manifest.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { RunOutcome, StepResult } from "./runs/results.js";
export {
  type BrokenRun,
  listRunStatuses,
  type RunStatus,
  readManifests,
  readRunStatus,
  scanRuns,
} from "./runs/results.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { CreateRunOptions } from "./runs/runs.js";
export { buildRun, createRun, loadRun, type Run } from "./runs/runs.js";
