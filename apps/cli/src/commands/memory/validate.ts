import type { MemoryProblem } from "@kxm/memory-git";
import { EXIT, KxmCommand } from "../../base.js";

interface ValidateResult {
  ok: boolean;
  files: string[];
  problems: MemoryProblem[];
}

export default class MemoryValidate extends KxmCommand {
  static override summary = "Check every memory file before you commit.";
  static override description =
    "Checks every file in .kxm/memory/ against the kxm.memory.v1 rules, in order, and that each active fact can " +
    "become a context item (origin ceilings, control-plane fields). Unlike a load, it does not stop at the first " +
    "problem: it names each one as <file>: <field>: <rule> and exits 1.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<ValidateResult> {
    const { flags } = await this.parse(MemoryValidate);
    const root = await this.projectRoot(flags.cwd);
    const { formatMemoryProblem, validateMemory } = await import("@kxm/memory-git");
    const { files, problems } = await validateMemory(root);
    const result = { ok: problems.length === 0, files, problems };
    if (result.ok) {
      this.say(`Checked ${plural(files.length, "memory file")}: no problems.`);
      return result;
    }
    if (this.jsonEnabled()) this.logJson(result);
    else {
      for (const problem of problems) this.writeErrLine(formatMemoryProblem(problem));
      this.writeErrLine(
        `memory validate failed: ${plural(problems.length, "problem")} in ${plural(files.length, "file")}`,
      );
    }
    return this.exit(EXIT.failed);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
