import { readFileSync } from "node:fs";
import { MCP_PATHS } from "@kxm/contract";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_TOKEN, createTestHub, projectWithAgent, type TestHub } from "./helpers.js";

// docs/reference/http-api.md's MCP endpoint section, checked against a real hub on a loopback port: each path it
// documents is served, and its examples answer what the page says.

const page = readFileSync(new URL("../../../docs/reference/http-api.md", import.meta.url), "utf8");
const section = page.slice(page.indexOf("## The MCP endpoint"), page.indexOf("## Routes"));

let hub: TestHub;
let url: string;
let key: string;
beforeAll(async () => {
  hub = await createTestHub();
  key = await projectWithAgent(hub.app, "demo", "agent-planner");
  url = await hub.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await hub.dispose();
});

describe("docs/reference/http-api.md documents the MCP endpoint", () => {
  test("every MCP path has its heading, and the hub serves each documented method", () => {
    expect(section.length).toBeGreaterThan(0);
    const headings = [...section.matchAll(/^### (.+)$/gm)].flatMap((match) =>
      [...(match[1] ?? "").matchAll(/`(GET|POST|DELETE) (\/\S+)`/g)].map((m) => ({
        method: m[1],
        path: m[2],
      })),
    );
    expect(headings.map((h) => h.path).sort()).toEqual(
      [MCP_PATHS.endpoint, MCP_PATHS.endpoint, MCP_PATHS.endpoint, MCP_PATHS.whoami].sort(),
    );
    for (const { method, path } of headings) {
      expect(hub.app.hasRoute({ method: method as "GET", url: path as string }), `${method} ${path}`).toBe(
        true,
      );
    }
  });

  test("the tools/list example, with the headers it shows, answers the four tools", async () => {
    const response = await fetch(`${url}${MCP_PATHS.endpoint}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const names = ((await response.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
      (tool) => tool.name,
    );
    expect(names.sort()).toEqual(["kxm_context", "kxm_episode", "kxm_promote", "kxm_recall"]);
    expect(section).toContain('"method":"tools/list"');
  });

  test("the admin token and no credential are 401 invalid_auth; GET and DELETE are 405 with Allow: POST", async () => {
    const credentials: Record<string, string>[] = [{ authorization: `Bearer ${ADMIN_TOKEN}` }, {}];
    for (const headers of credentials) {
      const response = await fetch(`${url}${MCP_PATHS.endpoint}`, {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([
        401,
        "invalid_auth",
      ]);
    }
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${url}${MCP_PATHS.endpoint}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
      });
      expect([response.status, response.headers.get("allow")]).toEqual([405, "POST"]);
    }
  });

  test("whoami answers what the page shows for the example's agent key", async () => {
    const shown = /^# (\{"kind":"agent".*\})$/m.exec(section)?.[1];
    expect(shown).toBeDefined();
    const response = await fetch(`${url}${MCP_PATHS.whoami}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await response.json()).toEqual(JSON.parse(shown as string));
    const admin = await fetch(`${url}${MCP_PATHS.whoami}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await admin.json()).toEqual({ kind: "admin" });
    const none = await fetch(`${url}${MCP_PATHS.whoami}`);
    expect(none.status).toBe(401);
  });
});
