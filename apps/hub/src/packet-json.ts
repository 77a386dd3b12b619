import { type AssembledPacket, type ContextItem, PACKET_SECTIONS } from "@kxm/contract";

/** Each item's JSON, kept as long as the item object lives (a pool keeps its items until they change). */
const ITEM_JSON = new WeakMap<ContextItem, Buffer>();

/** The item's JSON as UTF-8 bytes, made once per item object. */
export function itemJson(item: ContextItem): Buffer {
  let json = ITEM_JSON.get(item);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(item), "utf8");
    ITEM_JSON.set(item, json);
  }
  return json;
}

const COMMA = Buffer.from(",");
const SECTIONS: ReadonlySet<string> = new Set(PACKET_SECTIONS);

/**
 * `JSON.stringify(assembled)` as UTF-8 bytes, byte for byte, without serializing the packet's items again: each
 * item's JSON is made once and reused by every packet that selects it. The rest of the answer (the audit, the
 * request's echo, the gaps) is serialized with its sections emptied, and the items are put back in place. A section
 * key is found as `"name":[]` after the previous one: the keys before the sections (project and role) are strings
 * whose quotes JSON escapes, so the text cannot occur inside them, and the sections come before `workingState`.
 */
export function assembledPacketJson(assembled: AssembledPacket): Buffer {
  const { packet } = assembled;
  const sections: [string, readonly ContextItem[]][] = [];
  const emptied: Record<string, unknown> = { ...packet };
  for (const [key, value] of Object.entries(packet)) {
    if (!SECTIONS.has(key)) continue;
    sections.push([key, value as ContextItem[]]);
    emptied[key] = [];
  }
  const skeleton = Buffer.from(JSON.stringify({ ...assembled, packet: emptied }), "utf8");
  const parts: Buffer[] = [];
  let from = 0;
  for (const [key, items] of sections) {
    const marker = `"${key}":[`;
    const found = skeleton.indexOf(marker, from, "utf8");
    // Unreachable for a packet the arbiter built; a plain serialization is still right if it ever happens.
    if (found === -1) return Buffer.from(JSON.stringify(assembled), "utf8");
    const at = found + Buffer.byteLength(marker);
    parts.push(skeleton.subarray(from, at));
    items.forEach((item, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(itemJson(item));
    });
    from = at;
  }
  parts.push(skeleton.subarray(from));
  return Buffer.concat(parts);
}
