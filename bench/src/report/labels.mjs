// @ts-check
// The name the report gives each system.
import { ADAPTERS } from "../peers/adapters.mjs";

/** @param {string} system */
export const labelOf = (system) =>
  system === "kxm"
    ? "KXM"
    : system === "kxm-recall"
      ? "KXM recall"
      : system === "kxm-english"
        ? "KXM (english analysis)"
        : (ADAPTERS.find((adapter) => adapter.name === system)?.label ?? system);
