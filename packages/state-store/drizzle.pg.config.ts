import { defineConfig } from "drizzle-kit";

// `pnpm --filter @kxm/state-store run generate:pg` writes a new PostgreSQL migration under drizzle-pg/ when
// src/postgres/schema.ts changes; keep it the twin of src/schema.ts and commit both engines' migrations together.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/postgres/schema.ts",
  out: "./drizzle-pg",
});
