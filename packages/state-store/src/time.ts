import { KxmError } from "@kxm/contract";

/** Milliseconds in a day, for retention. */
export const DAY_MS = 86_400_000;

/**
 * The canonical text form of a time: `YYYY-MM-DDTHH:mm:ss.sssZ`. Every stored time has this one shape, so text
 * comparison in SQL orders times correctly. Refuses invalid dates and years outside 0000..9999 (whose ISO form is
 * longer and would not sort).
 */
export function isoTime(value: Date, field: string): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new KxmError("invalid_request", `${field}: must be a valid date`);
  }
  const text = value.toISOString();
  if (text.length !== 24) throw new KxmError("invalid_request", `${field}: year must be within 0000..9999`);
  return text;
}

/** `iso` moved by `ms` milliseconds, in the same form. */
export function shiftIso(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}
