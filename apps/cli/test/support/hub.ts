import { join } from "node:path";
import { readHubEnv, type ServingHub, serveHub } from "@kxm/hub";
import { tempDir } from "./cli.js";

// The real hub the CLI tests talk to: serveHub in this process, on a free loopback port, with a fresh SQLite file,
// no logs and no signal handlers (the test runner owns the process).

export interface TestHubOptions {
  /** Extra hub variables, such as KXM_RATE_LIMIT. */
  env?: Record<string, string>;
  /** The hub's clock. */
  now?: () => Date;
}

/** Starts a hub with `adminToken` as its admin token; close it in afterAll. */
export function startTestHub(adminToken: string, options: TestHubOptions = {}): Promise<ServingHub> {
  return serveHub({
    env: readHubEnv({
      KXM_AUTH_TOKEN: adminToken,
      KXM_DB_PATH: join(tempDir("kxm-cli-hubdb-"), "kxm.db"),
      KXM_HOST: "127.0.0.1",
      KXM_PORT: "0",
      KXM_LOG_LEVEL: "silent",
      ...options.env,
    }),
    ...(options.now === undefined ? {} : { now: options.now }),
    handleSignals: false,
  });
}

/** `kxm context propose` flags for an operator's policy on `deploy.window`, with one piece of evidence. */
export const POLICY_FLAGS = [
  "--key",
  "deploy.window",
  "--summary",
  "Deploys run Tuesday to Thursday",
  "--authority",
  "policy",
  "--confidence",
  "verified",
  "--evidence",
  "doc:release-policy",
];
