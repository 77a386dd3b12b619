import { lstat, readdir, stat } from "node:fs/promises";
import { kxmDir } from "@kxm/memory-git/layout";

/**
 * Why a registered checkout cannot be read now, as the reason of a `memory_unavailable:<reason>` gap, or undefined
 * when it is a folder the hub can list. A checkout is checked when registered, but it can disappear, become a file
 * or a link to nothing later (or come from an older database that checked less): the project is then served
 * without memory and every packet says why, rather than failing.
 */
export async function checkoutUnavailable(root: string): Promise<string | undefined> {
  try {
    if (!(await stat(root)).isDirectory()) return "checkout_not_a_folder";
    await readdir(root);
    return undefined;
  } catch (error) {
    switch ((error as { code?: unknown }).code) {
      case "ENOENT":
        return "checkout_missing";
      case "ENOTDIR":
        return "checkout_not_a_folder";
      default:
        // ENAMETOOLONG, ELOOP, EACCES and the like: the path cannot be read at all.
        return "checkout_unreadable";
    }
  }
}

/**
 * The gap of a checkout whose `.kxm` is there but is not a folder (a file, or a link to nothing): its work tree
 * holds no memory, so what HEAD commits is named as withheld; undefined when `.kxm` is a folder or absent.
 */
export async function kxmFolderGap(root: string): Promise<string | undefined> {
  const path = kxmDir(root);
  try {
    await lstat(path);
  } catch (error) {
    return (error as { code?: unknown }).code === "ENOENT" ? undefined : "memory_kxm_unreadable";
  }
  try {
    return (await stat(path)).isDirectory() ? undefined : "memory_kxm_not_a_folder";
  } catch {
    return "memory_kxm_not_a_folder";
  }
}
