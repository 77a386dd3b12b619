// The types of net.mjs.

/** A loopback port nothing listens on: taken from the OS, then released. */
export function freePort(): Promise<number>;
