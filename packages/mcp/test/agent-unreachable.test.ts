import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isKxmError } from "@kxm/contract";
import { expect, test } from "vitest";
import { resolveAgent } from "../src/index.js";

// `kxm mcp` asks the hub who its key is before anything else; a hub that is down must say why in words, with the
// system code, and keep the base URL's path, never Node's bare "fetch failed".
test("resolveAgent against a closed loopback port: connection refused (ECONNREFUSED), naming the base URL", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const failure = await resolveAgent({ baseUrl: `http://127.0.0.1:${port}/kxm/`, token: "kxm_x" }).catch(
    (error: unknown) => error,
  );
  expect(isKxmError(failure)).toBe(true);
  expect(failure).toMatchObject({
    code: "hub_unreachable",
    message: `cannot reach the hub at http://127.0.0.1:${port}/kxm: connection refused (ECONNREFUSED)`,
  });
});
