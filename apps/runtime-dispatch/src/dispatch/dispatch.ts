import { KxmError } from "@kxm/contract";
import type { WithheldLookup } from "../hub/hub-withheld.js";
import { loadEpisodesDigest } from "../learning/digest.js";
import { type LearningSettings, loadLearningSettings } from "../learning/settings.js";
import { buildManifest, type DispatchManifest, writeManifest } from "../runs/manifest.js";
import type { Run } from "../runs/runs.js";
import { assembleDispatchContext, type DispatchContext, dispatchTask } from "./dispatch-context.js";
import { type PredecessorOutput, type RenderedPrompt, renderDispatchPrompt } from "./prompt.js";

export interface PrepareStepOptions {
  root: string;
  run: Run;
  stepId: string;
  /** 1-based attempt number. */
  attempt: number;
  predecessors?: PredecessorOutput[];
  /** The learning settings (the episodes digest's budget); default: `.kxm/learning.yaml` read now. */
  learning?: LearningSettings;
  gitTimeoutMs?: number;
  gitBinary?: string;
  /** The time expiry and review dates of memory facts are judged at; default the clock when called. */
  now?: Date;
  /** Asks the run's hub what it withholds of authored memory and skills (`hubWithheld`); default: no hub. */
  withheld?: WithheldLookup;
}

export interface RenderedStep {
  context: DispatchContext;
  rendered: RenderedPrompt;
  manifest: DispatchManifest;
}

export interface PreparedStep extends RenderedStep {
  manifestPath: string;
}

/**
 * Prepares one step attempt for an agent: assembles dispatch context and the episodes digest, renders and prunes
 * the prompt, and writes the manifest. Handing the prompt to an agent is the caller's job. An unknown step, a bad
 * attempt or an invalid `.kxm/learning.yaml` is `invalid_request`.
 */
export async function prepareStep(options: PrepareStepOptions): Promise<PreparedStep> {
  const step = await renderStep(options);
  return { ...step, manifestPath: await writeManifest(options.root, step.manifest) };
}

/**
 * What {@link prepareStep} does, without writing the manifest: assembles dispatch context and the episodes digest
 * and renders the prompt (`kxm run prompt` previews with it, so a preview shows the digest the run would). An
 * unknown step, a bad attempt or an invalid `.kxm/learning.yaml` is `invalid_request`.
 */
export async function renderStep(options: PrepareStepOptions): Promise<RenderedStep> {
  const { root, run, stepId, attempt } = options;
  const stepIndex = run.workflow.steps.findIndex((step) => step.id === stepId);
  const step = run.workflow.steps[stepIndex];
  if (step === undefined)
    throw new KxmError("invalid_request", `step: run ${run.runId} has no step ${stepId}`);
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new KxmError("invalid_request", "attempt: must be a positive integer");
  }
  const learning = options.learning ?? (await loadLearningSettings(root));
  const context = await assembleDispatchContext({
    root,
    run,
    step,
    ...(options.gitTimeoutMs === undefined ? {} : { gitTimeoutMs: options.gitTimeoutMs }),
    ...(options.gitBinary === undefined ? {} : { gitBinary: options.gitBinary }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.withheld === undefined ? {} : { withheld: options.withheld }),
  });
  const digest = await loadEpisodesDigest(root, {
    project: run.project,
    role: context.role,
    task: dispatchTask(step.instructions, run.prompt),
    runId: run.runId,
    stepId: step.id,
    attempt,
    settings: learning.episodes,
  });
  context.episodes = digest.entries;
  context.gaps.push(...digest.gaps);
  const rendered = renderDispatchPrompt({
    run,
    step,
    stepIndex,
    attempt,
    context,
    ...(options.predecessors === undefined ? {} : { predecessors: options.predecessors }),
  });
  const manifest = buildManifest(run, step.id, attempt, step.agent, context.role, rendered);
  return { context, rendered, manifest };
}
