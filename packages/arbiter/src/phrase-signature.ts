// Each live slot's phrase signature: one bit per run of three adjacent characters (a trigram) of its lowercased
// text, hashed to 1,024 bits, so that recall searches for its phrase only in the slots whose signature holds every
// trigram of the phrase's. Trigrams rather than pairs: a pool's text holds most pairs of common letters, so a pair
// signature let 20 to 50% of a 100k pool through for a word of six letters; trigrams are far fewer per text.

/** Words of the per-slot signature: 1,024 bits, so 1 KB of text sets about half of them. */
export const SIGNATURE_WORDS = 32;

/** The bit of three adjacent UTF-16 code units: a multiplicative hash to 10 bits. */
function trigramBit(first: number, second: number, third: number): number {
  return (
    Math.imul(Math.imul(first ^ (second << 11), 0x9e3779b1) ^ (third << 5) ^ (first >>> 3), 0x85ebca6b) >>> 22
  );
}

/** Sets the bit of every trigram of `text` in a slot's signature. */
export function addTrigrams(signature: Uint32Array, text: string): void {
  for (let i = 2; i < text.length; i += 1) {
    const bit = trigramBit(text.charCodeAt(i - 2), text.charCodeAt(i - 1), text.charCodeAt(i));
    signature[bit >>> 5]! |= 1 << (bit & 31);
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

/** Whether the signature of `slot` holds every trigram of a phrase's bits. */
export function mayContain(
  signatures: Uint32Array,
  slot: number,
  phrase: { words: number[]; bits: number[] },
) {
  const base = slot * SIGNATURE_WORDS;
  const { words, bits } = phrase;
  for (let i = 0; i < words.length; i += 1) {
    if ((signatures[base + words[i]!]! & bits[i]!) !== bits[i]) return false;
  }
  return true;
}
