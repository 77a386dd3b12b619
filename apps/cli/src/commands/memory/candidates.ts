import type { MemoryCandidate, MemoryProblem } from "@kxm/memory-git";
import { KxmCommand } from "../../base.js";

export default class MemoryCandidates extends KxmCommand {
  static override summary = "List the memory candidates waiting for review.";
  static override description =
    "Lists .kxm/memory/candidates/*.md, noted by kxm memory note and by run retrospectives: id, scope, kind, " +
    "source and summary, sorted by id. Candidates are never loaded; accept one with kxm memory accept or reject " +
    "it with kxm memory reject. A file there that does not parse is named on stderr, never hiding the rest.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<{ count: number; candidates: MemoryCandidate[]; problems: MemoryProblem[] }> {
    const { flags } = await this.parse(MemoryCandidates);
    const root = await this.projectRoot(flags.cwd);
    const { formatMemoryProblem, listMemoryCandidates } = await import("@kxm/memory-git");
    const { candidates, problems } = await listMemoryCandidates(root);
    if (candidates.length === 0) this.say("No memory candidates wait for review.");
    for (const candidate of candidates) {
      this.say(
        `${candidate.id}  [${candidate.scope}] [${candidate.kind}]  source: ${candidate.source ?? "none"}`,
      );
      this.say(`  ${candidate.summary}`);
    }
    if (!this.jsonEnabled())
      for (const problem of problems) this.writeErrLine(`skipped ${formatMemoryProblem(problem)}`);
    return { count: candidates.length, candidates, problems };
  }
}
