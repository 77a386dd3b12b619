import type { BrokenRun, RunStatus } from "@kxm/runtime-dispatch";
import { Args } from "@oclif/core";
import { EXIT, KxmCommand } from "../../base.js";
import { statusLines } from "../../run-output.js";

export default class RunStatusCommand extends KxmCommand {
  static override summary = "Show one run's steps and outcome, or list every run, newest first.";
  static override description =
    "Reads .kxm/runs/. With a run id: the run's status (succeeded, failed, cancelled, running, interrupted when " +
    "its process is gone, or pending), the step it blocked (the same failure twice) or the breaker's cause, and " +
    "each step's latest attempt, status (blocked included), outcome, duration, reason and missing evidence. " +
    "Without: one line per run, newest first, and one line on stderr per broken run (a run.json, outcome.json or " +
    "step result that is not JSON or does not match its schema) naming the run and the file; any broken run makes " +
    "the exit code 1. --json prints the status object, or {runs: [...], broken: [{runId, code, problem}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> run_3f2a9c1d7e44",
    "<%= config.bin %> <%= command.id %> run_3f2a9c1d7e44 --json",
  ];
  static override args = {
    "run-id": Args.string({ description: "The run's id; omit it to list every run" }),
  };

  async run(): Promise<RunStatus | { runs: RunStatus[]; broken: BrokenRun[] }> {
    const { args, flags } = await this.parse(RunStatusCommand);
    const root = await this.projectRoot(flags.cwd);
    const dispatch = await import("@kxm/runtime-dispatch");
    if (args["run-id"] !== undefined) {
      const status = await dispatch.readRunStatus(root, args["run-id"]);
      for (const line of statusLines(status)) this.say(line);
      return status;
    }
    const { runs, broken } = await dispatch.scanRuns(root);
    if (runs.length === 0 && broken.length === 0) this.say("No runs.");
    for (const run of runs) {
      const done = run.steps.filter((step) => step.status === "completed").length;
      this.say(
        `${run.runId}  ${run.workflow}  ${run.status}  ${run.createdAt}  ${done}/${run.steps.length} steps`,
      );
    }
    if (broken.length === 0) return { runs, broken };
    // The good runs are listed all the same; each broken one is named on stderr (with --json, in `broken` on
    // stdout, stderr empty), and the command fails.
    if (this.jsonEnabled()) this.logJson({ runs, broken });
    else
      for (const run of broken) this.writeErrLine(`run status: run ${run.runId} is broken: ${run.problem}`);
    return this.exit(EXIT.failed);
  }
}
