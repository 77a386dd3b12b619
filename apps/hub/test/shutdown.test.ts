import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { readHubEnv, SHUTDOWN_MARGIN_MS, serveHub } from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-shutdown-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("serveHub closes within its grace period", () => {
  test("close() cuts a connection whose body never ends, and says so", async () => {
    const env = readHubEnv({ KXM_PORT: "0", KXM_SHUTDOWN_GRACE_MS: "300" }, dir);
    const served = await serveHub({ env, logger: false, handleSignals: false });
    const url = new URL(served.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on("error", () => {});
    await new Promise((done) => socket.once("connect", done));
    socket.write("POST /v1/projects HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\n");
    socket.write("Content-Length: 1000\r\n\r\n{");
    await new Promise((done) => setTimeout(done, 100));
    const started = performance.now();
    expect(await served.stop()).toEqual({ forced: true, connectionsCut: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test("close() with nothing in flight is not forced", async () => {
    const env = readHubEnv({ KXM_PORT: "0" }, dir);
    const served = await serveHub({ env, logger: false, handleSignals: false });
    await fetch(`${served.url}/v1/health`);
    expect(await served.stop()).toEqual({ forced: false, connectionsCut: 0 });
  });

  test("KXM_SHUTDOWN_GRACE_MS is validated", () => {
    expect(readHubEnv({}, dir).shutdownGraceMs).toBe(10_000);
    expect(() => readHubEnv({ KXM_SHUTDOWN_GRACE_MS: "soon" }, dir)).toThrow(
      "environment variable KXM_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to 600000",
    );
  });
});

describe("a built hub process whose close never finishes", () => {
  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

  test("exits 1 on SIGTERM after the grace period and the margin, logging hub_stop_forced", async () => {
    expect(existsSync(dist), "build first: pnpm --filter @kxm/hub... run build").toBe(true);
    // Node's server.close never calling back stands for any close that hangs (a stuck handle, a plugin).
    const script = [
      `import { readHubEnv, serveHub } from ${JSON.stringify(dist)};`,
      "const served = await serveHub({ env: readHubEnv() });",
      "served.app.server.close = () => served.app.server;",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dir,
      env: { ...process.env, KXM_PORT: "0", KXM_LOG_LEVEL: "info", KXM_SHUTDOWN_GRACE_MS: "500" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const events: { event?: string; reason?: string }[] = [];
    const exited = new Promise<[number | null, number]>((resolve) =>
      child.on("exit", (code) => resolve([code, performance.now()])),
    );
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const event = JSON.parse(line) as { event?: string };
        events.push(event);
        if (event.event === "hub_listening") resolve();
      });
      child.on("exit", () => reject(new Error("the hub exited before listening")));
    });
    const sent = performance.now();
    child.kill("SIGTERM");
    const [code, at] = await exited;
    expect(code).toBe(1);
    expect(at - sent).toBeGreaterThanOrEqual(500 + SHUTDOWN_MARGIN_MS - 100);
    expect(at - sent).toBeLessThan(500 + SHUTDOWN_MARGIN_MS + 3_000);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "hub_stop_forced", reason: "close_hung" }),
    );
  }, 60_000);
});
