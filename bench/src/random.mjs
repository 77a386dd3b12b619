// @ts-check
// Seeded random streams over pure-rand's xoroshiro128+: the same seed gives the same choices on every machine.
// Only integer draws are used, so no floating-point rounding can make two machines disagree.
import { unsafeSkipN, unsafeUniformIntDistribution, xoroshiro128plus } from "pure-rand";

export class Random {
  /** @param {import("pure-rand").RandomGenerator} rng */
  constructor(rng) {
    this.rng = rng;
  }

  /**
   * A stream from a 32-bit seed. xoroshiro128+'s first outputs from a small seed are weak, so a few are skipped.
   * @param {number} seed
   */
  static seeded(seed) {
    const rng = xoroshiro128plus(seed);
    unsafeSkipN(rng, 32);
    return new Random(rng);
  }

  /**
   * Independent streams from one seed, one per name: the k-th starts k * 2^64 steps along the sequence, so no two
   * overlap however many draws each makes.
   * @template {string} K
   * @param {number} seed
   * @param {readonly K[]} names
   * @returns {Record<K, Random>}
   */
  static streams(seed, names) {
    const rng = xoroshiro128plus(seed);
    unsafeSkipN(rng, 32);
    const streams = /** @type {Record<K, Random>} */ ({});
    for (const name of names) {
      rng.unsafeJump?.();
      streams[name] = new Random(rng.clone());
    }
    return streams;
  }

  /**
   * An integer in [min, max], uniform.
   * @param {number} min
   * @param {number} max
   */
  int(min, max) {
    return unsafeUniformIntDistribution(min, max, this.rng);
  }

  /**
   * True with probability `permille` / 1000.
   * @param {number} permille
   */
  chance(permille) {
    return this.int(0, 999) < permille;
  }

  /**
   * One element, uniform.
   * @template T
   * @param {readonly T[]} array
   * @returns {T}
   */
  pick(array) {
    return /** @type {T} */ (array[this.int(0, array.length - 1)]);
  }

  /**
   * One value by integer weights: `[[value, weight], ...]`.
   * @template T
   * @param {readonly (readonly [T, number])[]} table
   * @returns {T}
   */
  weighted(table) {
    let total = 0;
    for (const [, weight] of table) total += weight;
    let draw = this.int(0, total - 1);
    for (const [value, weight] of table) {
      if (draw < weight) return value;
      draw -= weight;
    }
    throw new Error("unreachable: weights exhausted");
  }

  /**
   * Shuffles in place (Fisher-Yates) and returns the array.
   * @template T
   * @param {T[]} array
   * @returns {T[]}
   */
  shuffle(array) {
    for (let i = array.length - 1; i > 0; i -= 1) {
      const j = this.int(0, i);
      const swap = /** @type {T} */ (array[i]);
      array[i] = /** @type {T} */ (array[j]);
      array[j] = swap;
    }
    return array;
  }
}
