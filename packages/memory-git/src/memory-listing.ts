import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { projectPath } from "./files.js";
import {
  checkMemoryFile,
  formatMemoryProblem,
  type MemoryFact,
  type MemoryProblem,
  parseMemoryFile,
} from "./memory-file.js";

/** One `*.md` entry directly in `.kxm/memory/`, with its project-relative path. */
export interface MemoryEntry {
  file: string;
  path: string;
  symlink: boolean;
}

function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * The `*.md` files and symlinks directly in `dir`, sorted by name (code units). Folders, `candidates/` among
 * them, are never entered. A missing folder holds nothing.
 */
export async function listMemoryEntries(root: string, dir: string): Promise<MemoryEntry[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    if (errorCode(error) === "ENOTDIR") {
      throw new KxmError("memory_invalid", `${projectPath(root, dir)}: (folder): must be a folder`);
    }
    throw error;
  }
  return entries
    .filter((entry) => entry.name.endsWith(".md") && (entry.isFile() || entry.isSymbolicLink()))
    .sort((a, b) => compareCodeUnits(a.name, b.name))
    .map((entry) => {
      const path = join(dir, entry.name);
      return { file: projectPath(root, path), path, symlink: entry.isSymbolicLink() };
    });
}

// A symlink is refused rather than followed: the memory revision hashes the link, not what it points to, so
// following it would let a fact change without the revision noticing.
function symlinkProblem(entry: MemoryEntry): MemoryProblem {
  return { file: entry.file, field: "(file)", rule: "is a symlink; memory files must be regular files" };
}

/** Reads and checks one entry, reporting a problem instead of throwing (for validate). */
export async function checkMemoryEntry(
  entry: MemoryEntry,
): Promise<{ fact: MemoryFact } | { problem: MemoryProblem }> {
  if (entry.symlink) return { problem: symlinkProblem(entry) };
  return checkMemoryFile(entry.file, await readFile(entry.path, "utf8"));
}

/** Reads and parses one entry, throwing as {@link parseMemoryFile} does. */
export async function parseMemoryEntry(entry: MemoryEntry): Promise<MemoryFact> {
  if (entry.symlink) throw new KxmError("memory_invalid", formatMemoryProblem(symlinkProblem(entry)));
  return parseMemoryFile(entry.file, await readFile(entry.path, "utf8"));
}

/** The problem for the second of two facts that share an id, or undefined. */
export function duplicateIdProblem(fact: MemoryFact, seen: Map<string, string>): MemoryProblem | undefined {
  const other = seen.get(fact.id);
  if (other !== undefined) return { file: fact.file, field: "id", rule: `duplicates ${other}` };
  seen.set(fact.id, fact.file);
  return undefined;
}
