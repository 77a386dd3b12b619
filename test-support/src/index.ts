// The fixture writers the workspace's tests share. Private and source-only (the `@kxm/source` condition): only
// tests import it, never a package's src, so it is never built or published.
export { expectKxmError, expectKxmRejection } from "./errors.js";
export { put, writeFiles } from "./files.js";
export { commitAll, git, gitCheckout } from "./git.js";
export { factFields, factText, TEST_RUNNER_MD } from "./memory.js";
export { freePort } from "./net.mjs";
export { createDatabase, type PostgresCluster, postgresBinDir, startPostgres } from "./postgres.mjs";
export { tempPostgresDatabase } from "./postgres-databases.js";
export { tempDir } from "./temp.js";
