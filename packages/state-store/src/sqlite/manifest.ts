// The checksum manifest `kxm hub backup` writes beside a copy: SQLite keeps no page checksums, and integrity_check
// reads the b-tree structure, not the bytes inside a text value, so damage there passes it. A SHA-256 of the whole
// verified copy, taken before it is renamed into place, catches any changed byte afterwards.
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { ChecksumCheck } from "../maintenance.js";
import { STATE_FILE_MODE } from "../open.js";
import { statOrNone } from "./files.js";

/** Where the manifest of the copy `file` lives: `sha256sum -c <file>.sha256` verifies it too. */
export const manifestPath = (file: string) => `${file}.sha256`;

/** What a manifest records beside the checksum, as `# key: value` lines (`sha256sum -c` skips `#` lines). */
export interface ManifestFacts {
  readonly source: string;
  readonly startedAt: string | undefined;
  readonly bytes: number;
  readonly migrationsApplied: number;
}

/** The SHA-256 of a whole file, read in 1 MiB pieces so that a large copy is never held in memory. */
export function sha256OfFile(file: string): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(file, "r");
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/**
 * Writes the manifest of the copy that will be named `copyName` to the new file `path` (0600, flushed): comment
 * lines with the facts, then one `sha256sum` line. The caller renames it into place.
 */
export function writeManifest(path: string, copyName: string, sha256: string, facts: ManifestFacts): void {
  const lines = [
    "# kxm hub backup manifest 1",
    `# source: ${facts.source}`,
    ...(facts.startedAt === undefined ? [] : [`# startedAt: ${facts.startedAt}`]),
    `# bytes: ${facts.bytes}`,
    `# migrations: ${facts.migrationsApplied}`,
    `${sha256}  ${basename(copyName)}`,
  ];
  const fd = openSync(path, "w", STATE_FILE_MODE);
  try {
    writeSync(fd, `${lines.join("\n")}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const CHECKSUM_LINE = /^([0-9a-f]{64}) [ *](.+)$/;

/**
 * Verifies `file` against the manifest beside it. `missing`: there is none (a live database never has one, a copy
 * made some other way neither); `mismatch`: the file's bytes are not those the manifest recorded, or the manifest
 * holds no checksum line; `verified`: they match. The name on the checksum line is not compared: a copy renamed
 * together with its manifest is still the same bytes.
 */
export function verifyManifest(file: string): ChecksumCheck {
  const manifest = manifestPath(file);
  if (!statOrNone(manifest)?.isFile()) return { state: "missing", manifest };
  const text = readFileSync(manifest, "utf8");
  const line = text.split("\n").find((entry) => CHECKSUM_LINE.test(entry.trimEnd()));
  const expected = line === undefined ? undefined : CHECKSUM_LINE.exec(line.trimEnd())?.[1];
  const startedAt = /^# startedAt: (.+)$/m.exec(text)?.[1];
  const actual = sha256OfFile(file);
  return {
    state: expected === actual ? "verified" : "mismatch",
    manifest,
    expected,
    actual,
    startedAt,
  };
}
