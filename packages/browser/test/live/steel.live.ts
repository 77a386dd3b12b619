// The opt-in live suite: the Steel contract (../integration/contract.ts) against a real deployment. It runs only
// through `pnpm --filter @kxm/browser test:live` (vitest.live.config.ts), never in `npm test`, and needs
// STEEL_API_URL and STEEL_API_KEY (or a pass-cli item) set; STEEL_CONTRACT_PAGE_URL names a page the deployment
// can reach (default https://example.com).
import { readBrowserEnv, resolveConfig } from "../../src/index.js";
import { steelContract } from "../integration/contract.js";

steelContract({
  name: "the live deployment at STEEL_API_URL",
  async start() {
    const env = readBrowserEnv();
    const config = await resolveConfig(env);
    return {
      config: {
        apiUrl: config.apiUrl,
        key: config.key,
        requestTimeoutMs: config.requestTimeoutMs,
        ...(config.uiUrl === undefined ? {} : { uiUrl: config.uiUrl }),
      },
      pageUrl: process.env.STEEL_CONTRACT_PAGE_URL ?? "https://example.com",
      close: async () => {},
    };
  },
});
