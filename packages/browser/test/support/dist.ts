// The multi-process tests run the BUILT package (dist/) in plain Node processes, which cannot load TypeScript.
// They refuse to run on a dist/ older than src/ (`pnpm --filter @kxm/browser run build`).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));

export function assertFreshDist(): void {
  const stale = readdirSync(join(PACKAGE, "src"))
    .filter((name) => name.endsWith(".ts"))
    .filter((name) => {
      try {
        const built = join(PACKAGE, "dist", name.replace(/\.ts$/, ".js"));
        return statSync(built).mtimeMs < statSync(join(PACKAGE, "src", name)).mtimeMs;
      } catch {
        return true;
      }
    });
  if (stale.length > 0) {
    throw new Error(
      `dist/ is older than src/ (${stale.join(", ")}): run \`pnpm --filter @kxm/browser run build\` first`,
    );
  }
}

/** The environment for a plain Node child: without vitest's NODE_OPTIONS (its source condition). */
export function plainNodeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}
