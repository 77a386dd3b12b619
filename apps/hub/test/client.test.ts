import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isKxmError, type KxmError } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { afterEach, describe, expect, test } from "vitest";
import { ADMIN_TOKEN, createTestHub, type TestHub } from "./helpers.js";

// The contract's typed client against real servers on loopback: a hub behind a path prefix, a hub's own 429, a
// server that answers 429 without Retry-After, and a port nobody listens on.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function hubOnLoopback(
  options: Parameters<typeof createTestHub>[0] = {},
): Promise<TestHub & { url: string }> {
  const hub = await createTestHub(options);
  cleanups.push(() => hub.dispose());
  const url = await hub.app.listen({ host: "127.0.0.1", port: 0 });
  return Object.assign(hub, { url });
}

async function rejection(promise: Promise<unknown>): Promise<KxmError> {
  try {
    await promise;
  } catch (error) {
    if (isKxmError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("createHubClient against real servers", () => {
  test("keeps the path of the hub's URL as a prefix (a proxy serving the hub under /kxm)", async () => {
    const hub = await hubOnLoopback();
    const target = new URL(hub.url);
    const seen: string[] = [];
    // A reverse proxy that serves the hub under /kxm only: anything else is its own 404.
    const proxy = createServer((incoming, outgoing) => {
      seen.push(incoming.url ?? "");
      if (!incoming.url?.startsWith("/kxm/")) {
        outgoing.writeHead(404, { "content-type": "text/plain" }).end("not behind /kxm");
        return;
      }
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url.slice("/kxm".length),
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forwarded);
    });
    const base = await listen(proxy);
    for (const baseUrl of [`${base}/kxm`, `${base}/kxm/`]) {
      const client = createHubClient({ baseUrl, token: ADMIN_TOKEN });
      expect((await client.health({})).status).toBe("ok");
      await client.listProjects({});
    }
    await createHubClient({ baseUrl: `${base}/kxm`, token: ADMIN_TOKEN }).createProject({
      body: { id: "demo" },
    });
    expect(seen).toEqual([
      "/kxm/v1/health",
      "/kxm/v1/projects",
      "/kxm/v1/health",
      "/kxm/v1/projects",
      "/kxm/v1/projects",
    ]);
    expect((await hub.store.listProjects()).map((project) => project.id)).toEqual(["demo"]);
  });

  test("a 429 is retried once, after its Retry-After, and then succeeds", async () => {
    const hub = await hubOnLoopback({ rateLimit: { max: 1, timeWindowMs: 1_000 } });
    const client = createHubClient({ baseUrl: hub.url });
    expect((await client.health({})).status).toBe("ok");
    // The same credential (none: by address) again within the window: the hub answers 429 with Retry-After: 1.
    const raw = await fetch(`${hub.url}/v1/health`);
    expect([raw.status, raw.headers.get("retry-after")]).toEqual([429, "1"]);
    const started = Date.now();
    expect((await client.health({})).status).toBe("ok");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  test("a Retry-After longer than maxRetryAfterMs is the hub's rate_limited at once, without a second request", async () => {
    const hub = await hubOnLoopback({ rateLimit: { max: 1, timeWindowMs: 60_000 } });
    const client = createHubClient({ baseUrl: hub.url, maxRetryAfterMs: 5_000 });
    await client.health({});
    const started = Date.now();
    const error = await rejection(client.health({}));
    expect([error.code, error.status]).toEqual(["rate_limited", 429]);
    expect(Date.now() - started).toBeLessThan(1_000);
    const requests = hub.logs.filter((line) => line.event === "request" && line.route === "/v1/health");
    expect(requests.map((line) => line.status)).toEqual([200, 429]);
  });

  test("a 429 without Retry-After is not retried", async () => {
    let requests = 0;
    const server = createServer((_incoming, outgoing) => {
      requests += 1;
      outgoing
        .writeHead(429, { "content-type": "application/problem+json" })
        .end(JSON.stringify({ code: "rate_limited", status: 429, detail: "slow down" }));
    });
    const error = await rejection(createHubClient({ baseUrl: await listen(server) }).health({}));
    expect([error.code, error.message]).toEqual(["rate_limited", "slow down"]);
    expect(requests).toBe(1);
  });

  test("a closed port is hub_unreachable: connection refused (ECONNREFUSED), naming the URL as given", async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    cleanups.pop();
    const error = await rejection(createHubClient({ baseUrl: `${url}/kxm/` }).health({}));
    expect([error.code, error.status]).toEqual(["hub_unreachable", 503]);
    expect(error.message).toBe(`cannot reach the hub at ${url}/kxm: connection refused (ECONNREFUSED)`);
  });
});
