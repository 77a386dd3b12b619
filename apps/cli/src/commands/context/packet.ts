import { PACKET_SECTIONS, type StoredPacket } from "@kxm/contract";
import { Args } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";

/** A near miss as the audit may carry it (issue 20): read generically, so an audit without them prints none. */
interface NearMissLine {
  id: string;
  kind: string;
  reason: string;
  score: number;
  tokens: number;
}

/** The stored packet as an operator reads it: its request, when it was served, each selected id and why. */
function describeStored(packet: StoredPacket): string[] {
  const { audit } = packet;
  const { request } = audit;
  const scores = new Map(audit.selectedIds.map((id, index) => [id, audit.relevance.selected[index]]));
  const lines = [
    `${packet.packetId}: ${packet.project}, role ${request.role}, a task of ${count(request.taskChars, "character")}` +
      `${packet.runId === null ? "" : `, run ${packet.runId}`}${request.stage === undefined ? "" : `, stage ${request.stage}`}`,
    `Served ${count(packet.timesServed, "time")}: first ${packet.firstServedAt}, last ${packet.lastServedAt}`,
    `Assembled by ${packet.rankerVersion} at change ${packet.changeSeq}; request SHA-256 ${packet.requestSha256}`,
    `Selected ${audit.selectedIds.length} of ${count(audit.candidateCount, "candidate")}, ` +
      `${audit.estimatedTokens} of ${audit.budgetTokens} tokens` +
      (audit.excludedSuperseded > 0 ? `; ${audit.excludedSuperseded} superseded or rejected excluded` : ""),
  ];
  for (const section of PACKET_SECTIONS) {
    const ids = packet.sections[section];
    if (ids.length === 0) continue;
    lines.push(`${section} (${ids.length})`);
    for (const id of ids) lines.push(`  ${scores.get(id) ?? "-"}  ${id}`);
  }
  const nearMisses = (audit as { nearMisses?: NearMissLine[] }).nearMisses ?? [];
  if (nearMisses.length > 0) {
    lines.push(`Near misses (${nearMisses.length})`);
    for (const miss of nearMisses) {
      lines.push(`  ${miss.score}  ${miss.id}  ${miss.kind}, ${miss.reason}, ${count(miss.tokens, "token")}`);
    }
  }
  if (audit.unresolvedGaps.length === 0) lines.push("Gaps: none");
  else for (const gap of audit.unresolvedGaps) lines.push(`Gap: ${gap}`);
  if (audit.memory === undefined) lines.push("Memory: no checkout");
  else
    lines.push(
      `Memory: commit ${audit.memory.commit ?? "none"}, revision ${audit.memory.revision ?? "none"}`,
    );
  return lines;
}

export default class ContextPacket extends KxmCommand {
  static override summary = "Show why a stored packet held what it held.";
  static override description =
    "An operator query (KXM_OPERATOR_TOKEN, else the admin token in KXM_AUTH_TOKEN): the stored audit of one " +
    "packet the hub served, by the packet id its audit ends with (audit.packetId, or a line of kxm context " +
    "packets): the request without its task (only the task's length is kept), when and how often it was served, " +
    "the ranker version and change-feed position it was assembled at, each section's item ids with their " +
    "relevance scores, the near misses when the audit has them, the gaps and the memory commit and revision. A " +
    "packet of another project, or one retention purged, is not found. --json prints the hub's answer, {packet}, " +
    "unchanged.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7",
    "<%= config.bin %> <%= command.id %> demo pkt_4f1c2a9e0b7d3856c1e2f4a6b8d0e9f7 --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "packet-id": Args.string({ description: "The packet's id, pkt_ and 32 hex digits", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ packet: StoredPacket }> {
    const { args, flags } = await this.parse(ContextPacket);
    const { client } = connectHub(flags.hub);
    const answer = await client.getPacket({ params: { project: args.project, packetId: args["packet-id"] } });
    if (!this.jsonEnabled()) for (const line of describeStored(answer.packet)) this.say(line);
    return answer;
  }
}
