import { defineConfig } from "vitest/config";

// Tests import workspace packages from their TypeScript source through the "@kxm/source" export condition,
// so a test run never depends on a stale dist. Apps and the CLI's own tests run built binaries on purpose.
export default defineConfig({
  resolve: { conditions: ["@kxm/source"] },
  ssr: { resolve: { conditions: ["@kxm/source"] } },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "docs/**/*.test.ts",
      "scripts/**/*.test.ts",
      "bench/test/**/*.test.ts",
      "reliability/test/**/*.test.ts",
      "steel-test-server/test/**/*.test.ts",
    ],
    pool: "forks",
    testTimeout: 30_000,
  },
});
