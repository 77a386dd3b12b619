import { isKxmError, ROUTES } from "@kxm/contract";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildHub, readHubEnv } from "../src/index.js";
import { call, createTestHub, type TestHub } from "./helpers.js";

describe("readHubEnv", () => {
  test("defaults: loopback, port 7420, the database under .kxm/state of the working folder", () => {
    expect(readHubEnv({}, "/srv/repo")).toEqual({
      authToken: undefined,
      dbPath: "/srv/repo/.kxm/state/kxm.db",
      host: "127.0.0.1",
      port: 7420,
      retentionDays: 90,
      logLevel: "info",
      rateLimit: 600,
      mcpAllowedOrigins: [],
      shutdownGraceMs: 10_000,
      inspectorSecureCookie: false,
      workers: 1,
    });
  });

  test("reads every variable; an empty one counts as unset; an absolute path is kept", () => {
    expect(
      readHubEnv(
        {
          KXM_AUTH_TOKEN: "a-long-enough-admin-token",
          KXM_DB_PATH: "/var/lib/kxm/kxm.db",
          KXM_HOST: "0.0.0.0",
          KXM_PORT: "0",
          KXM_RETENTION_DAYS: "30",
          KXM_LOG_LEVEL: "warn",
          KXM_RATE_LIMIT: "120",
          KXM_MCP_ALLOWED_ORIGINS: "https://app.example.com, http://10.0.0.5:8080",
          KXM_SHUTDOWN_GRACE_MS: "2500",
          KXM_INSPECTOR_SECURE_COOKIE: "true",
          KXM_WORKERS: "3",
        },
        "/srv/repo",
      ),
    ).toEqual({
      authToken: "a-long-enough-admin-token",
      dbPath: "/var/lib/kxm/kxm.db",
      host: "0.0.0.0",
      port: 0,
      retentionDays: 30,
      logLevel: "warn",
      rateLimit: 120,
      mcpAllowedOrigins: ["https://app.example.com", "http://10.0.0.5:8080"],
      shutdownGraceMs: 2_500,
      inspectorSecureCookie: true,
      workers: 3,
    });
    expect(readHubEnv({ KXM_AUTH_TOKEN: "", KXM_PORT: "" }, "/r")).toMatchObject({
      authToken: undefined,
      port: 7420,
    });
    expect(readHubEnv({ KXM_DB_PATH: "data/hub.db" }, "/r").dbPath).toBe("/r/data/hub.db");
  });

  test.each([
    ["KXM_PORT", "http"],
    ["KXM_PORT", "65536"],
    ["KXM_PORT", "-1"],
    ["KXM_RETENTION_DAYS", "0"],
    ["KXM_RETENTION_DAYS", "1.5"],
    ["KXM_LOG_LEVEL", "loud"],
    ["KXM_RATE_LIMIT", "0"],
    ["KXM_AUTH_TOKEN", "short-secret"],
    ["KXM_INSPECTOR_SECURE_COOKIE", "yes"],
    ["KXM_WORKERS", "0"],
    ["KXM_WORKERS", "257"],
  ])("an invalid %s (%s) is refused, naming the variable but not the value", (name, value) => {
    let thrown: unknown;
    try {
      readHubEnv({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(isKxmError(thrown)).toBe(true);
    const error = thrown as Error & { code: string };
    expect(error.code).toBe("invalid_usage");
    expect(error.message).toContain(`environment variable ${name} `);
    // (Short numbers may appear in the rule itself, such as "from 1 to 36500".)
    if (value.length > 3) expect(error.message).not.toContain(value);
  });
});

describe("the app", () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await createTestHub({ version: "9.9.9-test" });
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("GET /v1/health needs no credential and reports the version", async () => {
    const response = await call(hub.app, "GET", "/v1/health");
    expect(response.json()).toEqual({ status: "ok", version: "9.9.9-test" });
  });

  test("GET /openapi.json documents every route of the table, its auth and its error statuses, not itself", async () => {
    const response = await call(hub.app, "GET", "/openapi.json");
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.info).toMatchObject({ title: "KXM hub", version: "9.9.9-test" });
    expect(document.paths["/openapi.json"]).toBeUndefined();
    for (const [name, route] of Object.entries(ROUTES)) {
      const operation = document.paths[route.path.replace(/:(\w+)/g, "{$1}")]?.[route.method.toLowerCase()];
      expect(operation, name).toBeDefined();
      expect(operation.operationId).toBe(name);
      expect(operation.security).toEqual(route.auth === "none" ? [] : [{ bearer: [] }]);
      expect(Object.keys(operation.responses)).toContain(String(route.status));
      for (const code of route.errors) expect(JSON.stringify(operation.responses)).toContain(`\`${code}\``);
      if ("body" in route) expect(operation.requestBody).toBeDefined();
    }
  });

  test("an unexpected failure is a 500 internal_error with a generic detail, and a log line without its message", async () => {
    const secret = "SECRET-IN-AN-UNEXPECTED-MESSAGE";
    const failing = new Proxy(hub.store, {
      get(target, property, receiver) {
        if (property === "listProjects") return async () => Promise.reject(new TypeError(secret));
        return Reflect.get(target, property, receiver);
      },
    });
    const lines: string[] = [];
    const app = await buildHub({
      store: failing,
      adminToken: "an-admin-token-for-this-test",
      logger: pino({ level: "info" }, { write: (line: string) => void lines.push(line) }),
    });
    const response = await call(app, "GET", "/v1/projects", "an-admin-token-for-this-test");
    expect(response.statusCode).toBe(500);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: "internal_error", status: 500 });
    expect(response.body).not.toContain(secret);
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.event === "internal_error");
    expect(logged).toMatchObject({ level: 50, route: "/v1/projects", error: { type: "TypeError" } });
    expect(logged.error.stack.length).toBeGreaterThan(0);
    expect(lines.join("")).not.toContain(secret);
    await app.close();
  });

  test("buildHub refuses an empty admin token rather than run with one", async () => {
    await expect(buildHub({ store: hub.store, adminToken: "", logger: false })).rejects.toMatchObject({
      code: "invalid_usage",
    });
  });
});
