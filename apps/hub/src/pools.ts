// The hub's project pools, by the names the routes and services import: the cache (pool-cache.ts), one pool
// (project-pool.ts), authored memory (authored.ts) and the stat signatures (memory-signature.ts).
export { type Authored, authoredGaps, readAuthored } from "./authored.js";
export { authoredSignature, memorySignature } from "./memory-signature.js";
export { PoolCache } from "./pool-cache.js";
export { type PoolChange, ProjectPool } from "./project-pool.js";
