import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { compareCodeUnits } from "@kxm/contract";

/** What replacing the wiki folder did, by file name. */
export interface WikiWrite {
  written: string[];
  unchanged: string[];
  /** Pages an earlier compile wrote (they start with the generated marker) that this one does not. */
  removed: string[];
  /** Other entries of the folder, carried over untouched. */
  kept: string[];
}

/**
 * Replaces the wiki folder `dir` with `pages`, never leaving a half-written wiki: the new pages and the folder's
 * other entries are put together in a staging folder beside it, which then takes the folder's place by two
 * renames (the old folder is moved aside first, and moved back if the second rename fails). A page an earlier
 * compile wrote, recognised by `marker` on its first line, is dropped when this compile does not write it.
 */
export async function replaceWiki(
  dir: string,
  pages: ReadonlyMap<string, string>,
  marker: string,
): Promise<WikiWrite> {
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true });
  const existing = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const result: WikiWrite = { written: [], unchanged: [], removed: [], kept: [] };
  const stage = await mkdtemp(join(parent, `.${basename(dir)}-staging-`));
  try {
    for (const [file, body] of pages) {
      const before = await readFile(join(dir, file), "utf8").catch(() => undefined);
      (before === body ? result.unchanged : result.written).push(file);
      await writeFile(join(stage, file), body);
    }
    for (const entry of existing) {
      if (pages.has(entry.name)) continue;
      const path = join(dir, entry.name);
      const generated =
        entry.isFile() && (await readFile(path, "utf8").catch(() => "")).startsWith(`${marker}\n`);
      if (generated) {
        result.removed.push(entry.name);
        continue;
      }
      await cp(path, join(stage, entry.name), {
        recursive: true,
        preserveTimestamps: true,
        verbatimSymlinks: true,
      });
      result.kept.push(entry.name);
    }
    if (result.written.length === 0 && result.removed.length === 0) {
      await rm(stage, { recursive: true, force: true });
    } else if (existing.length === 0 && !(await exists(dir))) {
      await rename(stage, dir);
    } else {
      const aside = `${stage}-previous`;
      await rename(dir, aside);
      try {
        await rename(stage, dir);
      } catch (error) {
        await rename(aside, dir);
        throw error;
      }
      await rm(aside, { recursive: true, force: true });
    }
  } catch (error) {
    await rm(stage, { recursive: true, force: true });
    throw error;
  }
  for (const list of Object.values(result)) list.sort(compareCodeUnits);
  return result;
}

async function exists(path: string): Promise<boolean> {
  return readdir(path).then(
    () => true,
    () => false,
  );
}
