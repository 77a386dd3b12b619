// The hub's project pools, by the names the routes and services import: the cache (pool-cache.ts), one pool
// (project-pool.ts) and the stat signatures (memory-signature.ts).
export { authoredSignature, memorySignature } from "./memory-signature.js";
export { PoolCache } from "./pool-cache.js";
export { ProjectPool } from "./project-pool.js";
