import { KxmError } from "@kxm/contract";
import type { FactVerification } from "@kxm/memory-git";
import { Flags } from "@oclif/core";
import { EXIT, KxmCommand } from "../../base.js";

interface VerifyResult {
  ok: boolean;
  file: string;
  commit: string | null;
  facts: FactVerification[];
}

/** How one check ended, in words. */
function outcome(verification: FactVerification): string {
  const { record } = verification;
  const took = `${record.durationMs} ms`;
  switch (record.result) {
    case "passed":
      return `passed (${took})`;
    case "failed":
      return record.exitCode === null
        ? `failed: ended by a signal (${took})`
        : `failed: exit ${record.exitCode} (${took})`;
    case "timed_out":
      return `timed out after ${took}; killed with its process group`;
    default:
      return "could not start its program";
  }
}

export default class MemoryVerify extends KxmCommand {
  static override summary = "Run each memory fact's check and record when it last held.";
  static override description =
    "Runs the check of every active fact in .kxm/memory/ that names one (its command, in the project root, without " +
    "a shell, with its time limit; the process group is killed on timeout; KXM_* and STEEL_* variables are not " +
    "passed), one at a time in id order, and writes each result to .kxm/memory-checks.json: when it ran, at which " +
    "commit, the command and how it ended. Commit that file: the hub reads it at HEAD and withholds a failing fact " +
    "whose check says onFailure: withhold. Exits 1 when any check did not pass.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --fact release-branch",
    "<%= config.bin %> <%= command.id %> --json",
  ];
  static override flags = {
    fact: Flags.string({ description: "Only this fact's check (repeatable)", multiple: true }),
  };

  async run(): Promise<VerifyResult> {
    const { flags } = await this.parse(MemoryVerify);
    const root = await this.projectRoot(flags.cwd);
    const { verifyFacts } = await import("@kxm/memory-git");
    const { file, commit, verifications } = await verifyFacts(root, {
      now: () => new Date(),
      // biome-ignore lint/style/noProcessEnv: passed to each check less every KXM_* and STEEL_* variable, not read.
      env: process.env,
      ...(flags.fact === undefined ? {} : { ids: flags.fact }),
    });
    const failing = verifications.filter((verification) => verification.record.result !== "passed");
    const result = { ok: failing.length === 0, file, commit, facts: verifications };
    if (verifications.length === 0) {
      this.say("No active memory fact names a check.");
      return result;
    }
    if (this.jsonEnabled()) {
      if (result.ok) return result;
      this.logJson(result);
      return this.exit(EXIT.failed);
    }
    for (const verification of verifications) {
      const policy = verification.record.result !== "passed" && verification.onFailure === "withhold";
      this.say(`${verification.id}: ${outcome(verification)}${policy ? " (withheld once committed)" : ""}`);
    }
    this.say(`Recorded in ${file}; commit it so the hub sees the results.`);
    if (result.ok) return result;
    throw new KxmError(
      "memory_check_failed",
      `${failing.length} of ${verifications.length} checks did not pass`,
    );
  }
}
