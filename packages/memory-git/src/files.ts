import { mkdir } from "node:fs/promises";
import { dirname, relative, sep } from "node:path";
import writeFileAtomic from "write-file-atomic";

/**
 * Writes a file whole or not at all: the data goes to a temporary file in the same folder, which is then renamed
 * over the target, so a crash never leaves a half-written file. Creates missing parent folders.
 */
export async function writeFileWhole(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, data);
}

/** A path relative to the project root with forward slashes, as KXM reports and hashes it. */
export function projectPath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}
