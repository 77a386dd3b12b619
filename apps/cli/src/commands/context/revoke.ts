import type { Revocation, RevocationTarget } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

/** Each target flag and the revocation target it names. */
const TARGET_FLAGS = {
  evidence: "evidence",
  source: "source",
  "source-prefix": "source_prefix",
  item: "item",
  agent: "agent",
} as const satisfies Record<string, RevocationTarget>;

export default class ContextRevoke extends KxmCommand {
  static override summary = "Revoke a source: what depends on it is withheld from every packet and recall.";
  static override description =
    "Revokes exactly one target (decision 0017): an evidence reference (--evidence, exact), a source reference " +
    "(--source, exact; --source-prefix, a prefix), an item (--item: a memory fact mem_…, a promoted skill, any " +
    "stored item) or an agent (--agent: its state proposals and the values promoted from them). Every item it " +
    "names, and every item derived from a withheld one, is left out of every packet and recall, counted in an " +
    "items_withheld:revoked:<n> gap. Needs an operator's token (KXM_OPERATOR_TOKEN) or the admin token; an agent " +
    "key cannot revoke. --json prints the hub's answer, {revocation}.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo --source-prefix docs/old/ --reason "The old docs were withdrawn"',
    '<%= config.bin %> <%= command.id %> demo --agent agent-planner --reason "Its key leaked" --json',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    evidence: Flags.string({ description: "Revoke an evidence reference (exact), such as pr:12" }),
    source: Flags.string({ description: "Revoke a source reference (exact), such as docs/testing.md" }),
    "source-prefix": Flags.string({ description: "Revoke every source reference with this prefix" }),
    item: Flags.string({ description: "Revoke an item by id: mem_…, skill_…, state_…, journal_j_…" }),
    agent: Flags.string({ description: "Revoke everything an agent's key contributed, by agent id" }),
    reason: Flags.string({ description: "Why, recorded with the revocation", required: true }),
    hub: hubFlag,
  };

  async run(): Promise<{ revocation: Revocation }> {
    const { args, flags } = await this.parse(ContextRevoke);
    const given = (Object.keys(TARGET_FLAGS) as (keyof typeof TARGET_FLAGS)[]).filter(
      (flag) => flags[flag] !== undefined,
    );
    if (given.length !== 1) {
      throw new UsageError("give exactly one of --evidence, --source, --source-prefix, --item or --agent");
    }
    const flag = given[0]!;
    const { client } = connectHub(flags.hub);
    const answer = await client.revoke({
      params: { project: args.project },
      body: { target: TARGET_FLAGS[flag], value: flags[flag]!, reason: flags.reason },
    });
    const { revocation } = answer;
    this.say(
      `Revoked ${revocation.target} ${revocation.value} as ${revocation.id} (${revocation.revokedBy} at ${revocation.revokedAt})`,
    );
    return answer;
  }
}
