import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContextItem } from "@kxm/contract";
import { type KxmStore, openStore } from "@kxm/state-store";
import { factText } from "@kxm/test-support";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { pino } from "pino";
import { afterEach, beforeEach } from "vitest";
import { buildHub, type HubOptions, readHubEnv, type ServingHub, serveHub } from "../src/index.js";

// The hub tests' fixtures. The writers other packages' tests use too (files, git checkouts) live in @kxm/test-support.
export { commitAll, git, gitCheckout, writeFiles } from "@kxm/test-support";

export const ADMIN_TOKEN = "admin-token-for-hub-tests-0123456789";

/** A clock the test moves by hand. */
class TestClock {
  constructor(private current: Date = new Date("2026-10-01T09:00:00.000Z")) {}
  now = (): Date => new Date(this.current);
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
}

export interface TestHub {
  app: FastifyInstance;
  store: KxmStore;
  dir: string;
  dbPath: string;
  clock: TestClock;
  /** Every log line the hub wrote, as parsed JSON. */
  logs: Record<string, unknown>[];
  /** Every log line as written. */
  rawLogs: string[];
  /** Closes app and store (the folder stays until `dispose`). */
  close(): Promise<void>;
  /** Reopens the same database file in a new app. */
  reopen(overrides?: Partial<HubOptions>): Promise<void>;
  dispose(): Promise<void>;
}

export interface TestHubOptions extends Partial<Omit<HubOptions, "store" | "logger">> {
  /** `null` for a hub without an admin token. */
  adminToken?: string;
  noAdmin?: boolean;
}

export async function createTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const dir = await mkdtemp(join(tmpdir(), "kxm-hub-"));
  const dbPath = join(dir, "state", "kxm.db");
  const clock = new TestClock();
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "trace" },
    {
      write(line: string) {
        rawLogs.push(line);
        logs.push(JSON.parse(line));
      },
    },
  );
  const { noAdmin, ...rest } = options;
  const build = async (overrides: Partial<HubOptions> = {}) => {
    const store = openStore({ path: dbPath });
    const app = await buildHub({
      store,
      now: clock.now,
      logger,
      ...(noAdmin ? {} : { adminToken: ADMIN_TOKEN }),
      ...rest,
      ...overrides,
    });
    await app.ready();
    return { store, app };
  };
  const first = await build();
  const hub: TestHub = {
    ...first,
    dir,
    dbPath,
    clock,
    logs,
    rawLogs,
    async close() {
      await hub.app.close();
      await hub.store.close();
    },
    async reopen(overrides) {
      const next = await build(overrides);
      hub.app = next.app;
      hub.store = next.store;
    },
    async dispose() {
      await hub.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return hub;
}

/** The hub of the running test, behind the same fields as a `TestHub`; `start` makes it, each test's end disposes it. */
export interface CurrentHub extends TestHub {
  start(options?: TestHubOptions): Promise<TestHub>;
}

/**
 * Registers an `afterEach` that disposes the hub the test started, and answers its stand-in: the hub tests' file
 * set-up (`let hub`, the hooks) in one line.
 */
export function hubPerTest(): CurrentHub {
  let current: TestHub | undefined;
  const started = (): TestHub => {
    if (current === undefined) throw new Error("no hub in this test: call start() first");
    return current;
  };
  afterEach(async () => {
    const hub = current;
    current = undefined;
    await hub?.dispose();
  });
  const hub = {
    close: () => started().close(),
    reopen: (overrides?: Partial<HubOptions>) => started().reopen(overrides),
    dispose: () => started().dispose(),
    async start(options?: TestHubOptions) {
      current = await createTestHub(options);
      return current;
    },
  };
  for (const field of ["app", "store", "dir", "dbPath", "clock", "logs", "rawLogs"] as const) {
    Object.defineProperty(hub, field, { get: () => started()[field], enumerable: true });
  }
  return hub as CurrentHub;
}

/** `hubPerTest` whose hub is made before each test, with `options`. */
export function hubEachTest(options?: TestHubOptions): CurrentHub {
  const hub = hubPerTest();
  beforeEach(async () => {
    await hub.start(options);
  });
  return hub;
}

/**
 * A real hub on a free loopback port (`hub.url`), its SQLite file in `dir`, logging nothing, with `adminToken` and
 * any further `env` (KXM_* variables).
 */
export function serveLoopbackHub(
  dir: string,
  adminToken: string,
  env: Record<string, string> = {},
): Promise<ServingHub> {
  return serveHub({
    env: readHubEnv({
      KXM_AUTH_TOKEN: adminToken,
      KXM_DB_PATH: join(dir, "kxm.db"),
      KXM_HOST: "127.0.0.1",
      KXM_PORT: "0",
      KXM_LOG_LEVEL: "silent",
      ...env,
    }),
    handleSignals: false,
  });
}

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** `app.inject` with a Bearer token and a JSON body. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions["method"],
  url: string,
  token?: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: bearer(token),
    ...(body === undefined ? {} : { payload: body as InjectOptions["payload"] }),
  });
}

/** Registers a project (admin) and returns an agent key for it. */
export async function projectWithAgent(
  app: FastifyInstance,
  project: string,
  agentId = "agent-planner",
  checkoutRoot?: string,
): Promise<string> {
  const created = await call(app, "POST", "/v1/projects", ADMIN_TOKEN, {
    id: project,
    ...(checkoutRoot === undefined ? {} : { checkoutRoot }),
  });
  if (created.statusCode !== 201) throw new Error(`createProject ${created.statusCode}: ${created.body}`);
  return agentKey(app, project, agentId);
}

export async function agentKey(app: FastifyInstance, project: string, agentId: string): Promise<string> {
  const response = await call(app, "POST", `/v1/projects/${project}/agents`, ADMIN_TOKEN, { agentId });
  if (response.statusCode !== 201) throw new Error(`createAgentKey ${response.statusCode}: ${response.body}`);
  return response.json().key;
}

/** The guide's proposal, made by an agent. */
export const GUIDE_PROPOSAL = {
  key: "release.branch",
  summary: "Releases are cut from the main branch",
  authority: "evidence",
  confidence: "verified",
  evidenceRefs: ["pr:12"],
} as const;

/**
 * Proposes a state value as the agent (the guide's proposal with `overrides`) and promotes it as the admin, checking
 * both answers; gives the promotion's answer (`state`, `superseded`, `consumed`).
 */
export async function proposeAndPromote(
  app: FastifyInstance,
  key: string,
  overrides: Record<string, unknown> = {},
  project = "demo",
): Promise<{ state: ContextItem; superseded: ContextItem[]; consumed: ContextItem }> {
  const proposed = await call(app, "POST", `/v1/projects/${project}/state/proposals`, key, {
    ...GUIDE_PROPOSAL,
    ...overrides,
  });
  if (proposed.statusCode !== 201) throw new Error(`proposeState ${proposed.statusCode}: ${proposed.body}`);
  const promoted = await call(
    app,
    "POST",
    `/v1/projects/${project}/state/proposals/${proposed.json().proposalId}/promote`,
    ADMIN_TOKEN,
    { evidenceRefs: ["review:1"] },
  );
  if (promoted.statusCode !== 200) throw new Error(`promoteState ${promoted.statusCode}: ${promoted.body}`);
  return promoted.json();
}

/** A memory fact file (`kxm.memory.v1`). */
export function memoryFact(id: string, summary: string, scope = "project"): string {
  return factText({
    id,
    scope,
    summary: JSON.stringify(summary),
    provenance: "\n  sourceType: git\n  sourceRef: docs/testing.md",
    evidenceRefs: "[]",
  });
}

/** Runs one statement on the SQLite file at `dbPath`: for states only a damaged or older database reaches. */
export function runSql(dbPath: string, statement: string, ...params: unknown[]): void {
  const Database = createRequire(new URL("../../../packages/state-store/package.json", import.meta.url))(
    "better-sqlite3",
  );
  const db = new Database(dbPath);
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

/**
 * Writes items into the items table of the SQLite file at `dbPath` as a store would hold them, with their
 * change-feed row: the store has no route that admits derived items, so tests of derivation write them this way.
 */
export function plantItems(dbPath: string, items: readonly ContextItem[], at: string): void {
  const Database = createRequire(new URL("../../../packages/state-store/package.json", import.meta.url))(
    "better-sqlite3",
  );
  const db = new Database(dbPath);
  try {
    for (const item of items) {
      db.prepare(
        "insert into items (project, id, kind, status, state_key, valid_from, valid_until, created_at, run_id, body) values (?, ?, ?, null, null, null, null, ?, null, ?)",
      ).run(item.project, item.id, item.kind, at, JSON.stringify(item));
    }
    const { lastInsertRowid: seq } = db
      .prepare("insert into changes (project, kind, ids, at) values (?, 'items', ?, ?)")
      .run(items[0]!.project, JSON.stringify(items.map((item) => item.id).sort()), at);
    // Their versions too, as the store writes them with every change (a replay reads them).
    for (const item of items) {
      db.prepare(
        "insert into record_versions (project, seq, kind, record_id, body, forgotten) values (?, ?, 'item', ?, ?, 0)",
      ).run(item.project, seq, item.id, JSON.stringify(item));
    }
  } finally {
    db.close();
  }
}
