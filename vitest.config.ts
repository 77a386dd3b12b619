import { defineConfig } from "vitest/config";

/**
 * The store's contract suites: they run twice, once on SQLite (in "kxm") and once on a throwaway PostgreSQL
 * cluster ("postgres"), unchanged: `packages/state-store/test/support/temp-store.ts` opens the engine the run names.
 */
const STORE_CONTRACT_SUITES = [
  "change-feed",
  "inspector-sessions",
  "operators-projects",
  "packets",
  "projects-credentials",
  "record-versions",
  "retention",
  "reviews",
  "runs-journal",
  "state-property",
  "state",
  "text",
  "withhold",
].map((name) => `packages/state-store/test/${name}.test.ts`);

/** Suites that need the PostgreSQL cluster whatever the engine: they run in "postgres" only. */
const POSTGRES_ONLY_SUITES = [
  "packages/state-store/test/copy.test.ts",
  "reliability/test/postgres-hubs.test.ts",
];

// Tests import workspace packages from their TypeScript source through the "@kxm/source" export condition,
// so a test run never depends on a stale dist. Apps and the CLI's own tests run built binaries on purpose.
export default defineConfig({
  resolve: { conditions: ["@kxm/source"] },
  ssr: { resolve: { conditions: ["@kxm/source"] } },
  test: {
    pool: "forks",
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "kxm",
          include: [
            "packages/*/test/**/*.test.ts",
            "apps/*/test/**/*.test.ts",
            "docs/**/*.test.ts",
            "scripts/**/*.test.ts",
            "bench/test/**/*.test.ts",
            "reliability/test/**/*.test.ts",
            "steel-test-server/test/**/*.test.ts",
          ],
          exclude: [...POSTGRES_ONLY_SUITES, "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [...STORE_CONTRACT_SUITES, ...POSTGRES_ONLY_SUITES],
          env: { KXM_TEST_STORE: "postgres" },
          globalSetup: ["packages/state-store/test/support/postgres-setup.ts"],
        },
      },
    ],
  },
});
