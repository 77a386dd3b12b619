// Writing files under a root, folders created as needed.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Writes `text` at `rel` (forward slashes) under `root`, creating folders; returns the file's path. */
export async function put(root: string, rel: string, text: string | Uint8Array): Promise<string> {
  const path = join(root, ...rel.split("/"));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** Writes `files` (relative path -> content) under `root`, creating folders, in the order given. */
export async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) await put(root, rel, text);
}
