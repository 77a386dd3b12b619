// @ts-check
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The built CLI (`pnpm reliability` builds the workspace first). */
export const CLI = join(ROOT, "apps", "cli", "bin", "run.js");
