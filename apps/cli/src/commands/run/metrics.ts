import type { Ledger } from "@kxm/runtime-dispatch";
import { Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { metricsLines } from "../../metrics-output.js";

export default class RunMetrics extends KxmCommand {
  static override summary =
    "Show the outcome ledger: every step attempt, and what carried skills and facts did.";
  static override description =
    "Reads .kxm/runs/ledger.json, rolled up after each run from the runs' own files (rebuilt from every run " +
    "folder when it is missing or corrupt). Prints each run (status, attempts, verified, failed, the blocked " +
    "step or the breaker's cause), each attempt (step, attempt, agent, verified, unverified, failed or blocked, " +
    "duration, failure), then skill and memory-item efficacy: for each id a prompt carried, the verified rate of " +
    "the attempts that carried it against the attempts of the same workflow steps that did not, with counts and " +
    "a 95% Wilson score interval. Efficacy is diagnostic only. --run or --workflow keeps one run's or one " +
    "workflow's attempts and recomputes efficacy over them. --json prints the ledger object.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --workflow fix-bug",
    "<%= config.bin %> <%= command.id %> --run run_3f2a9c1d7e44 --json",
  ];
  static override flags = {
    run: Flags.string({ description: "Only this run's attempts" }),
    workflow: Flags.string({ description: "Only the runs of this workflow" }),
  };

  async run(): Promise<Ledger> {
    const { flags } = await this.parse(RunMetrics);
    const root = await this.projectRoot(flags.cwd);
    const { loadLedger } = await import("@kxm/runtime-dispatch");
    const ledger = await loadLedger(root, {
      ...(flags.run === undefined ? {} : { runId: flags.run }),
      ...(flags.workflow === undefined ? {} : { workflow: flags.workflow }),
    });
    for (const line of metricsLines(ledger)) this.say(line);
    return ledger;
  }
}
