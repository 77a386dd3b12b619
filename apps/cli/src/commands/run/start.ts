import type { RunProgress, RunStatus } from "@kxm/runtime-dispatch";
import { Args, Flags } from "@oclif/core";
import { EXIT, KxmCommand } from "../../base.js";
import { hubFlag, runHub } from "../../hub-client.js";
import { describeProgress, statusLines } from "../../run-output.js";

export default class RunStart extends KxmCommand {
  static override summary = "Start a run of a workflow and dispatch its steps to their agents, in order.";
  static override description =
    "Creates a run of .kxm/workflows/<workflow>.yaml (pinning the memory revision), then dispatches each step: " +
    "its prompt is built from committed, pinned memory and promoted skills, less what a configured hub withholds, " +
    "saved with its manifest under .kxm/runs/<run-id>/, and handed to the agent's adapter from .kxm/agents.yaml. " +
    "The run goes on while each step completes with its first allowed outcome. A failed or timed-out attempt is " +
    "retried while the step has attempts left; the run ends at a step that reports another outcome or runs out of " +
    "attempts, fails the same way twice (blocked), or trips the breaker of .kxm/learning.yaml. Every attempt " +
    "appends an episode to .kxm/runs/episodes.jsonl. When a hub is configured (--hub or KXM_HUB_URL), it is asked " +
    "before each step attempt which authored facts and skills it withholds (revoked, forgotten, expired, a failed " +
    "check), and the run, each attempt (as a journal entry) and the finish are reported to it, with KXM_AGENT_KEY, " +
    "else KXM_AUTH_TOKEN. A hub that is down never stops the run, but a step it cannot answer for gets no authored " +
    "memory (gap dispatch_context_withheld:hub_unreachable). Exits 0 when the run succeeded, 1 when it failed or " +
    "was cancelled (Ctrl-C).";
  static override examples = [
    '<%= config.bin %> <%= command.id %> fix-bug --prompt "Fix the flaky release test."',
    '<%= config.bin %> <%= command.id %> fix-bug --prompt "Fix the flaky release test." --project demo --hub http://127.0.0.1:7420',
    '<%= config.bin %> <%= command.id %> fix-bug --prompt "Fix it." --run-id run-42 --json',
  ];
  static override args = {
    workflow: Args.string({
      description: "The workflow's name: .kxm/workflows/<workflow>.yaml",
      required: true,
    }),
  };
  static override flags = {
    prompt: Flags.string({
      description: "The run prompt: the objective every step's prompt opens with",
      required: true,
    }),
    "run-id": Flags.string({ description: "The run's id (default: run_ and 12 random hex digits)" }),
    project: Flags.string({
      description: "The project id named in prompts and hub reports (default: the root folder's name)",
    }),
    hub: hubFlag,
  };

  async run(): Promise<RunStatus> {
    const { args, flags } = await this.parse(RunStart);
    const hub = runHub(flags.hub);
    const root = await this.projectRoot(flags.cwd);
    const dispatch = await import("@kxm/runtime-dispatch");
    const workflow = await dispatch.loadWorkflow(root, args.workflow);

    // The first SIGINT or SIGTERM cancels the run: the agent's process group gets SIGTERM, then SIGKILL after a
    // grace period, and the run is recorded as cancelled. A second one exits at once (130 or 143); the adapter
    // kills the agent's group on the way out, so no agent is left running without kxm.
    const controller = new AbortController();
    const cancel = (signal: NodeJS.Signals) => {
      if (controller.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
      controller.abort();
    };
    process.on("SIGINT", cancel);
    process.on("SIGTERM", cancel);
    try {
      const executed = await dispatch.executeRun({
        root,
        workflow,
        prompt: flags.prompt,
        signal: controller.signal,
        ...(flags["run-id"] === undefined ? {} : { runId: flags["run-id"] }),
        ...(flags.project === undefined ? {} : { project: flags.project }),
        // With a hub: reports to it, and leaves out of each step what it withholds of authored memory.
        ...(hub === undefined
          ? {}
          : { reporter: dispatch.hubReporter(hub), withheld: dispatch.hubWithheld(hub) }),
        onProgress: (progress: RunProgress) => {
          const line = describeProgress(progress);
          if (line !== undefined) this.say(line);
        },
      });
      const status = await dispatch.readRunStatus(root, executed.run.runId);
      if (executed.outcome.status === "succeeded") {
        this.say(`Run ${status.runId} succeeded. Details: kxm run status ${status.runId}`);
        return status;
      }
      if (this.jsonEnabled()) {
        this.logJson(status);
      } else {
        for (const line of statusLines(status).slice(1)) this.say(line);
        this.writeErrLine(`run start failed: run ${status.runId} ${status.status}: ${status.reason ?? "-"}`);
      }
      return this.exit(EXIT.failed);
    } finally {
      process.off("SIGINT", cancel);
      process.off("SIGTERM", cancel);
    }
  }
}
