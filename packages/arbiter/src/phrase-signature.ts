// Each live slot's phrase signature: two bits per run of three adjacent characters (a trigram) of its lowercased
// text, hashed into 2,048 bits (a Bloom filter), so that recall searches for its phrase only in the slots whose
// signature holds every bit of the phrase's trigrams. Trigrams rather than pairs: a pool's text holds most pairs of
// common letters, so a pair signature let 20 to 50% of a 100k pool through for a word of six letters.

/** Words of the per-slot signature: 2,048 bits, so 1 KB of text (about 700 trigrams) sets about half of them. */
export const SIGNATURE_WORDS = 64;

/** A 32-bit hash of three adjacent UTF-16 code units; its top 11 bits and the 11 below them are the two bits set. */
function trigramHash(first: number, second: number, third: number): number {
  return Math.imul(Math.imul(first ^ (second << 11), 0x9e3779b1) ^ (third << 5) ^ (first >>> 3), 0x85ebca6b);
}

/** Sets the two bits of every trigram of `text` in a slot's signature. */
export function addTrigrams(signature: Uint32Array, text: string): void {
  for (let i = 2; i < text.length; i += 1) {
    const hash = trigramHash(text.charCodeAt(i - 2), text.charCodeAt(i - 1), text.charCodeAt(i));
    const first = hash >>> 21;
    const second = (hash >>> 10) & 2047;
    signature[first >>> 5]! |= 1 << (first & 31);
    signature[second >>> 5]! |= 1 << (second & 31);
  }
}

/** The signature bits a text containing `phrase` must have, as (word, mask) pairs; none under three characters. */
export function phraseBits(phrase: string): { words: number[]; bits: number[] } {
  const masks = new Uint32Array(SIGNATURE_WORDS);
  addTrigrams(masks, phrase);
  const words: number[] = [];
  const bits: number[] = [];
  masks.forEach((mask, word) => {
    if (mask === 0) return;
    words.push(word);
    bits.push(mask | 0);
  });
  return { words, bits };
}

/**
 * Whether the signature of `slot` holds every trigram of a phrase's bits, in signatures laid out word by word
 * (word w of slot s at w * capacity + s).
 */
export function mayContain(
  signatures: Uint32Array,
  capacity: number,
  slot: number,
  phrase: { words: number[]; bits: number[] },
) {
  const { words, bits } = phrase;
  for (let i = 0; i < words.length; i += 1) {
    if ((signatures[words[i]! * capacity + slot]! & bits[i]!) !== bits[i]) return false;
  }
  return true;
}
