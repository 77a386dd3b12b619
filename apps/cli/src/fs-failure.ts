import { relative } from "node:path";

// A write the file system refused (a file where a folder should be, a full or read-only disk) is the operator's
// to fix, not a bug: it gets its own code and a line that names the path and says why, instead of "unexpected
// error" and Node's wording.

const WRITES = new Set([
  "mkdir",
  "open",
  "write",
  "rename",
  "unlink",
  "rmdir",
  "rm",
  "copyfile",
  "link",
  "symlink",
]);

const REASONS: Record<string, string> = {
  EEXIST: "a file is in the way",
  ENOTDIR: "a file is in the way of a folder on its path",
  EISDIR: "it is a folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links on its path",
  EMFILE: "too many open files",
  EBUSY: "it is busy",
};

/** The line for a refused write (`cannot write .kxm/runs: a file is in the way (EEXIST)`), or undefined. */
export function fileFailureLine(error: unknown, cwd: string = process.cwd()): string | undefined {
  const { code, syscall, path } = error as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== "string" || typeof syscall !== "string" || typeof path !== "string") return undefined;
  const reason = REASONS[code];
  if (reason === undefined || !WRITES.has(syscall)) return undefined;
  const rel = relative(cwd, path);
  const shown = rel === "" || rel.startsWith("..") ? path : rel;
  return `cannot write ${shown}: ${reason} (${code})`;
}
