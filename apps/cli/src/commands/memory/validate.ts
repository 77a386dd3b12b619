import type { FactNotice, MemoryProblem } from "@kxm/memory-git";
import { EXIT, KxmCommand } from "../../base.js";

interface ValidateResult {
  ok: boolean;
  files: string[];
  problems: MemoryProblem[];
  /** Expired, review-due and check-failing active facts: reported, not problems. */
  notices: FactNotice[];
}

const NOTICE_WORDS: Record<FactNotice["notice"], string> = {
  expired: "expired (expiresAt passed): withheld from agents",
  review_due: "due for review (reviewBy passed): still served",
  check_failed: "its check failed at the last kxm memory verify",
};

export default class MemoryValidate extends KxmCommand {
  static override summary = "Check every memory file before you commit.";
  static override description =
    "Checks every file in .kxm/memory/ against the kxm.memory.v1 rules, in order, and that each active fact can " +
    "become a context item (origin ceilings, control-plane fields). Unlike a load, it does not stop at the first " +
    "problem: it names each one as <file>: <field>: <rule> and exits 1. It also reports, without failing, active " +
    "facts that have expired, are due for review, or whose last recorded check failed.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<ValidateResult> {
    const { flags } = await this.parse(MemoryValidate);
    const root = await this.projectRoot(flags.cwd);
    const { factNotices, formatMemoryProblem, validateMemory } = await import("@kxm/memory-git");
    const validated = await validateMemory(root);
    const { notices, problems: recordProblems } = await factNotices(root, new Date());
    const { files } = validated;
    const problems = [...validated.problems, ...recordProblems];
    const result = { ok: problems.length === 0, files, problems, notices };
    for (const notice of notices) this.say(`${notice.file}: ${NOTICE_WORDS[notice.notice]}`);
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
