// How a context packet reads on the terminal: `kxm context get` and `kxm context replay` print it alike.
import { type AssembledPacket, PACKET_SECTION_HEADINGS, PACKET_SECTIONS } from "@kxm/contract";
import { clip, count } from "./hub-client.js";

/** The packet as an operator reads it: a header, each section with its items, the gaps and the relevance. */
export function describePacket({ packet, audit }: AssembledPacket): string[] {
  const scores = new Map(audit.selectedIds.map((id, index) => [id, audit.relevance.selected[index]]));
  const selected = audit.selectedIds.length;
  const lines = [
    `Context packet for ${packet.project}, role ${packet.role}: ${count(selected, "item")} selected of ` +
      `${count(audit.candidateCount, "candidate")}, ${packet.estimatedTokens} of ${packet.budgetTokens} tokens`,
  ];
  for (const section of PACKET_SECTIONS) {
    const items = packet[section];
    if (items.length === 0) continue;
    lines.push(`${PACKET_SECTION_HEADINGS[section]} (${items.length})`);
    for (const item of items) {
      const score = scores.get(item.id);
      const key = item.stateKey === undefined ? "" : `[${item.stateKey}] `;
      lines.push(`  ${item.id}  ${score === undefined ? "" : `${score}  `}${key}${clip(item.summary)}`);
    }
  }
  if (selected === 0) lines.push("No items selected.");
  if (packet.unresolvedGaps.length === 0) lines.push("Gaps: none");
  else for (const gap of packet.unresolvedGaps) lines.push(`Gap: ${gap}`);
  const origins = Object.entries(packet.provenanceSummary).map(([origin, n]) => `${origin} ${n}`);
  if (origins.length > 0) lines.push(`Origins: ${origins.join(", ")}`);
  const { taskTokens, matchedCandidates } = audit.relevance;
  lines.push(
    `Relevance: ${count(taskTokens, "task token")}, ${count(matchedCandidates, "matched candidate")}` +
      (audit.excludedSuperseded > 0 ? `; ${audit.excludedSuperseded} superseded or rejected excluded` : ""),
  );
  return lines;
}
