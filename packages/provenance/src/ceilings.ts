import { AUTHORITIES, type Authority, KxmError, ORIGIN_CEILINGS, type Origin } from "@kxm/contract";

/**
 * The rank of an authority: 3 for `policy` down to 0 for `hypothesis`, so a larger rank is stronger.
 * Throws `invalid_context_item` for a value that is not an authority, so an unchecked string never ranks.
 */
export function authorityRank(authority: Authority): number {
  const index = AUTHORITIES.indexOf(authority);
  if (index < 0) throw new KxmError("invalid_context_item", "unknown authority");
  return AUTHORITIES.length - 1 - index;
}

/** True when authority `a` is strictly stronger than `b` (policy > instruction > evidence > hypothesis). */
export function isAuthorityAbove(a: Authority, b: Authority): boolean {
  return authorityRank(a) > authorityRank(b);
}

/** The weaker of two authorities. */
export function weakerAuthority(a: Authority, b: Authority): Authority {
  return isAuthorityAbove(a, b) ? b : a;
}

/** The strongest authority among `authorities`, or undefined for none. */
export function strongestAuthority(authorities: Iterable<Authority>): Authority | undefined {
  let strongest: Authority | undefined;
  for (const authority of authorities) {
    if (strongest === undefined || isAuthorityAbove(authority, strongest)) strongest = authority;
  }
  return strongest;
}

/**
 * The highest authority content of `origin` may claim (docs/reference/behaviour.md section 4). Throws `invalid_context_item`
 * for a value that is not an origin.
 */
export function ceilingFor(origin: Origin): Authority {
  if (!Object.hasOwn(ORIGIN_CEILINGS, origin)) throw new KxmError("invalid_context_item", "unknown origin");
  return ORIGIN_CEILINGS[origin];
}

/** Throws 403 `context_authority_violation` when `authority` is above the ceiling of `origin`. */
export function assertWithinCeiling(origin: Origin, authority: Authority): void {
  if (isAuthorityAbove(authority, ceilingFor(origin))) {
    throw new KxmError(
      "context_authority_violation",
      `content of origin ${origin} cannot claim ${authority} authority`,
    );
  }
}
