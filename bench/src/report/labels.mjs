// @ts-check
// The name the report gives each system.
import { ADAPTERS, FIELDED } from "../peers/adapters.mjs";

/** @type {Readonly<Record<string, string>>} */
const KXM_LABELS = { kxm: "KXM", "kxm-recall": "KXM recall", "kxm-english": "KXM (english analysis)" };

/** @param {string} system a system's name, or a peer's with FIELDED after it */
export function labelOf(system) {
  if (system.endsWith(FIELDED))
    return `${labelOf(system.slice(0, -FIELDED.length))}, title and abstract fields`;
  return KXM_LABELS[system] ?? ADAPTERS.find((adapter) => adapter.name === system)?.label ?? system;
}
