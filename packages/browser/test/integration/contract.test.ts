// The Steel contract (contract.ts) on the Steel test server, cloud flavour: a real Chromium per session. The same
// suite runs against a real deployment in ../live/steel.live.ts, opt-in (pnpm --filter @kxm/browser test:live).
import { startSteelTestServer } from "@kxm/steel-test-server";
import { steelContract } from "./contract.js";
import { startMfaSite } from "./mfa-site.js";

const KEY = "steel-contract-key-8d0e51c47b2a";

steelContract({
  name: "the Steel test server",
  async start() {
    const [steel, site] = await Promise.all([startSteelTestServer({ apiKey: KEY }), startMfaSite()]);
    return {
      config: { apiUrl: steel.url, key: KEY, requestTimeoutMs: 10_000 },
      pageUrl: `${site.url}/login`,
      close: async () => {
        await Promise.all([steel.close(), site.close()]);
      },
    };
  },
});
