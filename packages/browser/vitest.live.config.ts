import { defineConfig } from "vitest/config";

// The opt-in live suite: the Steel contract against the deployment STEEL_API_URL names. Not part of npm test.
export default defineConfig({
  resolve: { conditions: ["@kxm/source"] },
  ssr: { resolve: { conditions: ["@kxm/source"] } },
  test: { include: ["test/live/**/*.live.ts"], testTimeout: 120_000, pool: "forks" },
});
