import { readFile } from "node:fs/promises";
import type { AssembledPacket } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";
import { describePacket } from "../../packet-output.js";

export default class ContextReplay extends KxmCommand {
  static override summary = "Rebuild a stored packet from history: the same packet, or what is missing.";
  static override description =
    "An operator query (KXM_OPERATOR_TOKEN, else the admin token in KXM_AUTH_TOKEN). The hub rebuilds the packet " +
    "with the id its audit ended with, from the records as they stood when it was served, the memory commit it " +
    "served, the revocations and tombstones active then and its clock, and answers exactly what kxm context get " +
    "answered then. The hub never stores the task, so give it again, byte for byte: --task, or --task-file to " +
    "read it from a file as it is (newlines included). When the packet cannot be rebuilt, the command says which " +
    "input can no longer be had and exits 1: the task differs (replay_task_mismatch), retention purged its " +
    "history (replay_history_purged), a record it read was forgotten (replay_history_forgotten), its memory " +
    "commit is not in the checkout (replay_memory_unavailable), another ranker version (replay_ranker_changed), " +
    "or an input came back different (replay_mismatch). --json prints the hub's answer, {packet, audit}, " +
    "unchanged: what kxm context get --json printed for it.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7 --task "Which branch do we release from?"',
    "<%= config.bin %> <%= command.id %> demo pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7 --task-file task.txt --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "packet-id": Args.string({ description: "The packet's id, pkt_ and 32 hex digits", required: true }),
  };
  static override flags = {
    task: Flags.string({
      description: "The packet's task, exactly as it was asked",
      exactlyOne: ["task", "task-file"],
    }),
    "task-file": Flags.string({
      description: "A file holding the packet's task, read as it is (UTF-8)",
      exactlyOne: ["task", "task-file"],
    }),
    hub: hubFlag,
  };

  async run(): Promise<AssembledPacket> {
    const { args, flags } = await this.parse(ContextReplay);
    const task = flags.task ?? (await this.readTask(flags["task-file"]!));
    const { client } = connectHub(flags.hub);
    const answer = await client.replayPacket({
      params: { project: args.project, packetId: args["packet-id"] },
      body: { task },
    });
    if (!this.jsonEnabled()) {
      this.say(`Replayed ${answer.audit.packetId}: the packet as the hub served it.`);
      for (const line of describePacket(answer)) this.say(line);
    }
    return answer;
  }

  /** The task file's text as it is; a file that cannot be read is a one-line failure naming it. */
  private async readTask(path: string): Promise<string> {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return this.fail(
        `cannot read the task file ${path}${typeof code === "string" ? ` (${code})` : ""}`,
        "invalid_request",
      );
    }
  }
}
