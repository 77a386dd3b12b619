import type { StoredPacket } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";

/** One stored packet on one line: id, last served, role, what it holds, how often it was served, its run. */
export function packetLine(packet: StoredPacket): string {
  const { audit } = packet;
  const run = packet.runId === null ? "" : `, run ${packet.runId}`;
  return (
    `  ${packet.packetId}  ${packet.lastServedAt}  ${audit.request.role}: ` +
    `${count(audit.selectedIds.length, "item")}, ${audit.estimatedTokens} of ${audit.budgetTokens} tokens, ` +
    `${count(audit.unresolvedGaps.length, "gap")}, served ${count(packet.timesServed, "time")}${run}`
  );
}

export default class ContextPackets extends KxmCommand {
  static override summary = "List the packets the hub served for a project, last served first.";
  static override description =
    "An operator query (KXM_OPERATOR_TOKEN, else the admin token in KXM_AUTH_TOKEN): the stored audit of each " +
    "packet the hub served for the project, last served first, --limit at a time (1 to 50, default 20), " +
    "optionally only the packets of one run (--run). A packet's id hashes every input of its assembly, so the " +
    "same request over the same records is one packet, served as often as it was asked for. The task text is " +
    "never stored, only its length. When more remain, the last line gives the command for the next page. --json " +
    "prints the hub's answer, {packets, nextCursor?}, unchanged.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --run run-42 --limit 5",
    "<%= config.bin %> <%= command.id %> demo --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    run: Flags.string({ description: "Only the packets requested for this workflow run" }),
    limit: Flags.integer({ description: "At most this many packets, 1 to 50 (default: 20)" }),
    cursor: Flags.string({ description: "The cursor a previous page ended with" }),
    hub: hubFlag,
  };

  async run(): Promise<{ packets: StoredPacket[]; nextCursor?: string }> {
    const { args, flags } = await this.parse(ContextPackets);
    const { client } = connectHub(flags.hub);
    const answer = await client.listPackets({
      params: { project: args.project },
      query: {
        ...(flags.run === undefined ? {} : { runId: flags.run }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
      },
    });
    if (!this.jsonEnabled()) {
      const run = flags.run === undefined ? "" : `, run ${flags.run}`;
      this.say(`${count(answer.packets.length, "packet")} in ${args.project}${run}, last served first`);
      for (const packet of answer.packets) this.say(packetLine(packet));
      if (answer.nextCursor !== undefined) {
        const limit = flags.limit === undefined ? "" : ` --limit ${flags.limit}`;
        const more = `kxm context packets ${args.project}${flags.run === undefined ? "" : ` --run ${flags.run}`}`;
        this.say(`More: ${more}${limit} --cursor ${answer.nextCursor}`);
      }
    }
    return answer;
  }
}
