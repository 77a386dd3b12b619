import { KxmError } from "@kxm/contract";
import { DAY_MS, isoTime } from "../time.js";

const EARLIEST = "0000-01-01T00:00:00.000Z";
const EARLIEST_MS = Date.parse(EARLIEST);

/**
 * The earliest time retention still keeps, `retentionDays` before `now` (never before year 0): anything that ended
 * strictly before it goes. A negative or non-finite period, or an invalid `now`, is `invalid_request`.
 */
export function purgeHorizon(now: Date, retentionDays: number): string {
  if (typeof retentionDays !== "number" || !Number.isFinite(retentionDays) || retentionDays < 0) {
    throw new KxmError("invalid_request", "retentionDays: must be a number of days, 0 or more");
  }
  const horizon = Date.parse(isoTime(now, "now")) - retentionDays * DAY_MS;
  return horizon < EARLIEST_MS ? EARLIEST : new Date(horizon).toISOString();
}
