import type { DispatchManifest } from "@kxm/runtime-dispatch";
import { Args, Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../../base.js";
import { hubFlag, runHub } from "../../hub-client.js";

/** What `kxm run prompt --json` prints: the manifest a dispatch would write (less its schema), and the prompt. */
type PromptPreview = Omit<DispatchManifest, "schema"> & { prompt: string };

export default class RunPrompt extends KxmCommand {
  static override summary = "Print exactly the prompt a step's agent would receive, without dispatching.";
  static override description =
    "Builds the step's prompt as kxm run start would, from committed memory and promoted skills at the current " +
    "memory revision, less what a configured hub (--hub or KXM_HUB_URL) withholds, and the episodes digest of " +
    "earlier step attempts, and prints it unchanged (less terminal escape and control characters; --json keeps them, escaped). Without --run the preview is a run named preview, attempt 1, with " +
    "no predecessor outputs, and the objective is --prompt. With --run it is that run's next dispatch of the step: " +
    "its prompt, its pinned revision (a drifted tree withholds memory, as it would then), and the outputs of the " +
    "steps before it. --agent shows what another agent id (and so another role) would receive. Nothing is " +
    "written. --json adds the packet id, role, delivered items, gaps and token estimates.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> fix-bug --step implement --prompt "Fix the flaky release test."',
    "<%= config.bin %> <%= command.id %> fix-bug --step review --agent critic-arch",
    "<%= config.bin %> <%= command.id %> fix-bug --step implement --run run_3f2a9c1d7e44 --json",
  ];
  static override args = {
    workflow: Args.string({
      description: "The workflow's name: .kxm/workflows/<workflow>.yaml",
      required: true,
    }),
  };
  static override flags = {
    step: Flags.string({ description: "The step's id", required: true }),
    agent: Flags.string({ description: "Preview for this agent id instead of the step's own" }),
    prompt: Flags.string({ description: "The run prompt for the objective (without --run; default: empty)" }),
    run: Flags.string({ description: "Preview the step's dispatch in this existing run" }),
    project: Flags.string({ description: "The project id named in the prompt (without --run)" }),
    hub: hubFlag,
  };

  async run(): Promise<PromptPreview> {
    const { args, flags } = await this.parse(RunPrompt);
    if (flags.run !== undefined && (flags.prompt !== undefined || flags.project !== undefined)) {
      throw new UsageError("--prompt and --project come from the run when --run is given");
    }
    const hub = runHub(flags.hub);
    const root = await this.projectRoot(flags.cwd);
    const dispatch = await import("@kxm/runtime-dispatch");
    let run: Awaited<ReturnType<typeof dispatch.loadRun>>;
    let attempt = 1;
    let predecessors: Awaited<ReturnType<typeof dispatch.predecessorsFromRun>> = [];
    if (flags.run === undefined) {
      const workflow = await dispatch.loadWorkflow(root, args.workflow);
      run = await dispatch.buildRun(root, {
        workflow,
        prompt: flags.prompt ?? "",
        now: new Date(),
        runId: "preview",
        ...(flags.project === undefined ? {} : { project: flags.project }),
      });
    } else {
      run = await dispatch.loadRun(root, flags.run);
      if (run.workflow.name !== args.workflow) {
        throw new UsageError(`run ${run.runId} is a run of ${run.workflow.name}, not ${args.workflow}`);
      }
      const status = await dispatch.readRunStatus(root, run.runId);
      attempt = (status.steps.find((step) => step.stepId === flags.step)?.attempt ?? 0) + 1;
      predecessors = await dispatch.predecessorsFromRun(root, run, flags.step);
    }
    if (flags.agent !== undefined) {
      const agent = dispatch.WorkflowStepSchema.shape.agent.safeParse(flags.agent);
      if (!agent.success)
        throw new UsageError("--agent: must be letters, digits, '.', '_' or '-' (at most 64)");
      run = {
        ...run,
        workflow: {
          ...run.workflow,
          steps: run.workflow.steps.map((step) =>
            step.id === flags.step ? { ...step, agent: agent.data } : step,
          ),
        },
      };
    }
    const { rendered, manifest } = await dispatch.renderStep({
      root,
      run,
      stepId: flags.step,
      attempt,
      predecessors,
      ...(hub === undefined ? {} : { withheld: dispatch.hubWithheld(hub) }),
    });
    if (!this.jsonEnabled()) this.writeOut(rendered.prompt);
    const { schema: _schema, ...fields } = manifest;
    return { ...fields, prompt: rendered.prompt };
  }
}
