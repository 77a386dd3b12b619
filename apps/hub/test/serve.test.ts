import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isKxmError, type KxmError, ROUTES } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { openStore } from "@kxm/state-store";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { readHubEnv, type ServingHub, serveHub } from "../src/index.js";
import { ADMIN_TOKEN, GUIDE_PROPOSAL } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-serve-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<KxmError> {
  try {
    await promise;
  } catch (error) {
    if (isKxmError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("a real hub on a random loopback port, through createHubClient", () => {
  let served: ServingHub | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test("the guide's flow, the client's error mapping, and hub_unreachable after close", async () => {
    const env = readHubEnv({ KXM_AUTH_TOKEN: ADMIN_TOKEN, KXM_PORT: "0" }, dir);
    served = await serveHub({ env, logger: false, handleSignals: false });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(join(dir, ".kxm", "state", "kxm.db"))).toBe(true);

    const admin = createHubClient({ baseUrl: served.url, token: ADMIN_TOKEN });
    expect((await admin.health({})).status).toBe("ok");
    await admin.createProject({ body: { id: "demo" } });
    await admin.createProject({ body: { id: "other" } });
    const { key } = await admin.createAgentKey({
      params: { project: "demo" },
      body: { agentId: "agent-planner" },
    });
    const otherKey = (
      await admin.createAgentKey({ params: { project: "other" }, body: { agentId: "agent-x" } })
    ).key;
    const agent = createHubClient({ baseUrl: served.url, token: key });

    const { proposalId } = await agent.proposeState({
      params: { project: "demo" },
      body: { ...GUIDE_PROPOSAL, evidenceRefs: [...GUIDE_PROPOSAL.evidenceRefs] },
    });
    const { state } = await admin.promoteState({
      params: { project: "demo", proposalId },
      body: { evidenceRefs: ["review:pr-12"] },
    });
    expect(state.provenance.sourceType).toBe("peer");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { packet, audit } = await agent.getContext({
      params: { project: "demo" },
      body: { role: "planner", task: "Which branch do we release from?" },
    });
    expect(packet.currentState.map((item) => item.summary)).toEqual([
      "Releases are cut from the main branch",
    ]);
    expect(audit.relevance).toEqual({ taskTokens: 2, matchedCandidates: 1, selected: [0.791] });
    const recalled = await agent.recall({ params: { project: "demo" }, body: { query: "release branch" } });
    expect(recalled.items.map((item) => item.relevance)).toEqual([0.791]);
    expect((await agent.getState({ params: { project: "demo", key: "release.branch" } })).state.id).toBe(
      state.id,
    );

    // Errors come back as KxmErrors with the hub's code and status.
    const notAdmin = await rejection(agent.listProjects({}));
    expect([notAdmin.code, notAdmin.status]).toEqual(["invalid_auth", 401]);
    const missing = await rejection(agent.getState({ params: { project: "demo", key: "no.such.key" } }));
    expect([missing.code, missing.status]).toEqual(["not_found", 404]);
    const foreign = await rejection(
      createHubClient({ baseUrl: served.url, token: otherKey }).recall({
        params: { project: "demo" },
        body: { query: "x" },
      }),
    );
    expect(foreign.code).toBe("context_isolation_violation");
    const anonymous = await rejection(createHubClient({ baseUrl: served.url }).listProjects({}));
    expect(anonymous.code).toBe("invalid_auth");
    const limits = await rejection(
      agent.getContext({ params: { project: "demo" }, body: { role: "planner", task: "x".repeat(2001) } }),
    );
    expect(limits.code).toBe("context_limits_exceeded");
    const mismatch = await rejection(
      agent.proposeState({
        params: { project: "demo" },
        body: { ...GUIDE_PROPOSAL, evidenceRefs: ["pr:1"], proposedBy: "somebody-else" },
      }),
    );
    expect(mismatch.code).toBe("state_proposer_mismatch");

    // The OpenAPI document describes every route of the table.
    const openapi = (await (await fetch(`${served.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = Object.values(ROUTES).map(
      (route) => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`,
    );
    expect(documented.sort()).toEqual(expected.sort());

    const url = served.url;
    await served.close();
    await served.close();
    served = undefined;
    const unreachable = await rejection(createHubClient({ baseUrl: url, timeoutMs: 2_000 }).health({}));
    expect([unreachable.code, unreachable.status]).toEqual(["hub_unreachable", 503]);
  });

  test("the hub listens on loopback by default and refuses a port that is taken", async () => {
    served = await serveHub({ env: readHubEnv({ KXM_PORT: "0" }, dir), logger: false, handleSignals: false });
    const port = new URL(served.url).port;
    const second = serveHub({
      env: readHubEnv({ KXM_PORT: port, KXM_DB_PATH: join(dir, "second.db") }, dir),
      logger: false,
      handleSignals: false,
    });
    await expect(second).rejects.toThrow(/EADDRINUSE/);
    // Without an admin token, admin routes answer 503 admin_auth_not_configured.
    const refused = await rejection(
      createHubClient({ baseUrl: served.url, token: "anything-at-all" }).listProjects({}),
    );
    expect(refused.code).toBe("admin_auth_not_configured");
  });
});

describe("graceful shutdown of a built hub process", () => {
  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

  test("SIGTERM closes the server, then the database; every acknowledged write is kept", async () => {
    expect(existsSync(dist), "build first: pnpm --filter @kxm/hub... run build").toBe(true);
    const script = `import { readHubEnv, serveHub } from ${JSON.stringify(dist)}; await serveHub({ env: readHubEnv() });`;
    const child: ChildProcess = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dir,
      env: { ...process.env, KXM_AUTH_TOKEN: ADMIN_TOKEN, KXM_PORT: "0", KXM_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const events: Record<string, unknown>[] = [];
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const listening = new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const event = JSON.parse(line);
        events.push(event);
        if (event.event === "hub_listening") resolve(event.url);
      });
      child.on("exit", () => reject(new Error("the hub exited before listening")));
    });
    const url = await listening;
    const admin = createHubClient({ baseUrl: url, token: ADMIN_TOKEN });
    await admin.createProject({ body: { id: "kept" } });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(events.map((event) => event.event)).toEqual(
      expect.arrayContaining(["hub_listening", "request", "hub_stopping", "hub_stopped"]),
    );
    const store = openStore({ path: join(dir, ".kxm", "state", "kxm.db") });
    expect((await store.getProject("kept"))?.id).toBe("kept");
    await store.close();
  });
});
