/**
 * The determinism primitive: compares two strings by UTF-16 code unit, the order JavaScript's `<` gives, never
 * by locale. Every sort whose result reaches a packet, a recall, a wiki page, a file or an answer ends at this
 * comparison, so the same inputs give the same bytes on every machine and every locale.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
