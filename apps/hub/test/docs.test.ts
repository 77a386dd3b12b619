import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { EXAMPLES, ROUTES_END, ROUTES_START, renderRouteReference } from "./http-api-doc.js";

const HTTP_API = new URL("../../../docs/reference/http-api.md", import.meta.url);
const SELF_HOSTING = new URL("../../../docs/guides/self-hosting.md", import.meta.url);
const CONFIG = new URL("../../../docs/reference/config.md", import.meta.url);
const ENV_MODULE = new URL("../src/env.ts", import.meta.url);

describe("docs/reference/http-api.md", () => {
  const page = readFileSync(HTTP_API, "utf8");

  test("its route reference is exactly what the route table renders to", () => {
    const start = page.indexOf(ROUTES_START);
    const end = page.indexOf(ROUTES_END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const documented = page.slice(start + ROUTES_START.length, end).trim();
    const rendered = renderRouteReference();
    if (documented !== rendered) {
      const out = join(tmpdir(), "http-api-routes.md");
      writeFileSync(out, rendered);
      expect.fail(`the route reference is out of date: paste ${out} between the routes markers`);
    }
  });

  test.each(Object.keys(ROUTES) as RouteName[])("the %s example is a valid request", (name) => {
    const route: RouteDefinition = ROUTES[name];
    const example = EXAMPLES[name];
    const params = Object.fromEntries(
      Object.entries(example.params ?? {}).map(([key, value]) => [key, value.replace(/^\$/, "")]),
    );
    if (route.params) expect(route.params.safeParse(params).success).toBe(true);
    if (route.query) expect(route.query.safeParse(example.query ?? {}).success).toBe(true);
    if (route.body) expect(route.body.safeParse(example.body).success).toBe(true);
    else expect(example.body).toBeUndefined();
  });
});

describe("the hub's configuration is documented", () => {
  const variables = [...readFileSync(ENV_MODULE, "utf8").matchAll(/^\s+(KXM_[A-Z_]+):/gm)].map(
    (match) => match[1]!,
  );

  test("env.ts reads the twelve variables", () => {
    expect([...new Set(variables)].sort()).toEqual(
      [
        "KXM_AUTH_TOKEN",
        "KXM_DATABASE_URL",
        "KXM_DB_PATH",
        "KXM_HOST",
        "KXM_INSPECTOR_SECURE_COOKIE",
        "KXM_LOG_LEVEL",
        "KXM_MCP_ALLOWED_ORIGINS",
        "KXM_PORT",
        "KXM_RATE_LIMIT",
        "KXM_RETENTION_DAYS",
        "KXM_SHUTDOWN_GRACE_MS",
        "KXM_WORKERS",
      ].sort(),
    );
  });

  test.each([
    ["docs/reference/config.md", CONFIG, /^### (KXM_[A-Z_]+)/gm],
    ["docs/guides/self-hosting.md", SELF_HOSTING, /`(KXM_[A-Z_]+)`/g],
  ] as const)("%s names every variable", (_, url, pattern) => {
    const documented = new Set([...readFileSync(url, "utf8").matchAll(pattern)].map((match) => match[1]));
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });
});
