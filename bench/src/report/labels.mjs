// @ts-check
// The name the report gives each system.
import { ADAPTERS } from "../peers/adapters.mjs";

/** @type {Readonly<Record<string, string>>} */
const KXM_LABELS = { kxm: "KXM", "kxm-recall": "KXM recall", "kxm-english": "KXM (english analysis)" };

/** @param {string} system */
export const labelOf = (system) =>
  KXM_LABELS[system] ?? ADAPTERS.find((adapter) => adapter.name === system)?.label ?? system;
