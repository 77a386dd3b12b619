// Each live slot's pair signature: one bit per pair of adjacent characters of its lowercased text, hashed to 1,024
// bits, so that recall searches for its phrase only in the slots whose signature holds every pair of the phrase's.

/** Words of the per-slot pair signature: 1,024 bits, so 1 KB of text sets about 40% of them. */
export const PAIR_WORDS = 32;

/** The bit of a pair of adjacent UTF-16 code units: a multiplicative hash to 10 bits. */
function pairBit(first: number, second: number): number {
  return Math.imul((first << 16) | second, 0x9e3779b1) >>> 22;
}

/** Sets the bit of every pair of adjacent code units of `text` in a slot's signature. */
export function addPairs(signature: Uint32Array, text: string): void {
  for (let i = 1; i < text.length; i += 1) {
    const bit = pairBit(text.charCodeAt(i - 1), text.charCodeAt(i));
    signature[bit >>> 5]! |= 1 << (bit & 31);
  }
}

/** The signature bits a text containing `phrase` must have, as (word, mask) pairs; none for a single character. */
export function phraseBits(phrase: string): { words: number[]; bits: number[] } {
  const masks = new Uint32Array(PAIR_WORDS);
  addPairs(masks, phrase);
  const words: number[] = [];
  const bits: number[] = [];
  masks.forEach((mask, word) => {
    if (mask === 0) return;
    words.push(word);
    bits.push(mask | 0);
  });
  return { words, bits };
}

/** Whether the signature of `slot` holds every pair of a phrase's bits. */
export function mayContain(
  signatures: Uint32Array,
  slot: number,
  phrase: { words: number[]; bits: number[] },
) {
  const base = slot * PAIR_WORDS;
  const { words, bits } = phrase;
  for (let i = 0; i < words.length; i += 1) {
    if ((signatures[base + words[i]!]! & bits[i]!) !== bits[i]) return false;
  }
  return true;
}
