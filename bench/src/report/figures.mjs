// @ts-check
// One system's figures at one pool size, in the one shape the pool and growth tables read.

/**
 * A system's figures at one size, in the shape the pool and growth tables read. For KXM, "long" and "short" are whole packets
 * (score, nine-key sort, budget fill); for a peer, its plain top-100 query.
 * @param {any} r
 */
export function figures(r) {
  if (r.system === "kxm") {
    return {
      system: "kxm",
      buildMs: r.buildMs,
      updateUs: r.update.p50Us,
      long: r.assemble,
      short: r.assembleShort,
      recall: r.recall,
      bytes: r.indexBytesPerItem,
    };
  }
  return {
    system: r.system,
    buildMs: r.buildMs,
    updateUs: r.update?.p50Us ?? Number.NaN,
    long: r.long,
    short: r.short,
    recall: r.recall,
    bytes: r.bytesPerItem,
    skipped: r.skipped,
  };
}
