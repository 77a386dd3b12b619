import { defineConfig } from "drizzle-kit";

// `pnpm --filter @kxm/state-store run generate` writes a new migration under drizzle/ when src/schema.ts changes.
// Commit the generated SQL and meta files: openStore applies them at start.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/schema.ts",
  out: "./drizzle",
});
