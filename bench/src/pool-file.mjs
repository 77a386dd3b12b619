// @ts-check
// A pool as JSON, item by item: a million items (about 1.3 GB of JSON) is longer than the longest string V8 makes
// (2^29 - 24 characters), so neither the fingerprint nor the copy handed to the peers' processes may be one string.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

/** @typedef {import("@kxm/contract").ContextItem} ContextItem */

/** Lines written to the pool file per write call. */
const LINES_PER_WRITE = 1_000;

/**
 * The first 16 hex digits of the SHA-256 of the pool's JSON, `JSON.stringify(items)` byte for byte (an array's
 * JSON is its elements' joined by commas in brackets), hashed one item at a time.
 * @param {readonly ContextItem[]} items
 */
export function poolFingerprint(items) {
  const hash = createHash("sha256");
  hash.update("[");
  let separator = "";
  for (const item of items) {
    hash.update(separator + JSON.stringify(item));
    separator = ",";
  }
  hash.update("]");
  return hash.digest("hex").slice(0, 16);
}

/**
 * The pool as a caller holds it after loading it from JSON: every item parsed from its own JSON, so that no object
 * is shared with the generator's.
 * @param {readonly ContextItem[]} items
 * @returns {ContextItem[]}
 */
export function loadedCopy(items) {
  return items.map((item) => JSON.parse(JSON.stringify(item)));
}

/**
 * Writes the pool as JSON Lines, one item per line (JSON never holds a raw newline).
 * @param {string} file
 * @param {readonly ContextItem[]} items
 */
export function writePoolFile(file, items) {
  const fd = openSync(file, "w");
  try {
    for (let i = 0; i < items.length; i += LINES_PER_WRITE) {
      const lines = items.slice(i, i + LINES_PER_WRITE).map((item) => `${JSON.stringify(item)}\n`);
      writeSync(fd, lines.join(""));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a pool {@link writePoolFile} wrote: the file as bytes (a Buffer may be longer than a string), each line
 * parsed on its own.
 * @param {string} file
 * @returns {ContextItem[]}
 */
export function readPoolFile(file) {
  const bytes = readFileSync(file);
  /** @type {ContextItem[]} */
  const items = [];
  let start = 0;
  for (let end = bytes.indexOf(10, start); end !== -1; end = bytes.indexOf(10, start)) {
    items.push(JSON.parse(bytes.toString("utf8", start, end)));
    start = end + 1;
  }
  if (start !== bytes.length)
    throw new Error(`${file} does not end with a newline: it was not written whole`);
  return items;
}
