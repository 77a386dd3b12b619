import { Args } from "@oclif/core";
import { EXIT, KxmCommand } from "../../base.js";

interface VerifyResult {
  ok: boolean;
  skills: Array<{ id: string; ok: boolean; problems: string[] }>;
}

export default class SkillsVerify extends KxmCommand {
  static override summary = "Check promoted skills against their recorded hashes.";
  static override description =
    "Recomputes each promoted skill's content hash and file hashes and checks its front matter. A skill that fails " +
    "is never delivered to an agent. Exits 1 when any skill fails.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> release-checklist.0123456789ab --json",
  ];
  static override args = { id: Args.string({ description: "One promoted skill; all of them when omitted" }) };

  async run(): Promise<VerifyResult> {
    const { args, flags } = await this.parse(SkillsVerify);
    const root = await this.projectRoot(flags.cwd);
    const { verifyPromotedSkills, verifySkill } = await import("@kxm/memory-git");
    const skills =
      args.id === undefined ? await verifyPromotedSkills(root) : [await verifySkill(root, args.id)];
    const result = { ok: skills.every((skill) => skill.ok), skills };
    if (skills.length === 0) this.say("No promoted skills.");
    for (const skill of skills) {
      this.say(`${skill.ok ? "verified" : "FAILED  "}  ${skill.id}`);
      for (const problem of skill.problems) this.say(`  ${problem}`);
    }
    if (result.ok) return result;
    // With --json, stdout holds the result and stderr stays empty, as for every other failure.
    if (this.jsonEnabled()) {
      this.logJson(result);
      return this.exit(EXIT.failed);
    }
    const failed = skills.filter((skill) => !skill.ok).length;
    this.writeErrLine(`skills verify failed: ${failed} of ${skills.length} promoted skills do not verify`);
    return this.exit(EXIT.failed);
  }
}
