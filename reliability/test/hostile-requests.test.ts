import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHub } from "@kxm/hub";
import { openStore } from "@kxm/state-store";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { emptyTally, judge, scanLog } from "../src/lib/hostile-judge.mjs";
import {
  CREDENTIAL_KINDS,
  type HostileRequest,
  hostileRequests,
  operationsOf,
  VARIANT_KINDS,
} from "../src/lib/hostile-requests.mjs";
import { setUpHostile } from "../src/lib/hostile-setup.mjs";

// The hostile-requests scenario in small: the generator's requests sent in-process to a hub built from source,
// so that a hub change that answers one of them with a 5xx, a non-problem error or a logged canary fails here,
// not only in the suite.
const ADMIN = "hostile-admin-token-0123456789abcdef";

let dir: string;
let app: Awaited<ReturnType<typeof buildHub>>;
let close: () => Promise<void>;
const logLines: string[] = [];
let openapi: unknown;
let setup: Awaited<ReturnType<typeof setUpHostile>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-hostile-"));
  const store = openStore({ path: join(dir, "kxm.db") });
  app = await buildHub({
    store,
    adminToken: ADMIN,
    logger: pino({ level: "trace" }, { write: (line: string) => void logLines.push(line) }),
    rateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
  });
  await app.ready();
  close = async () => {
    await app.close();
    await store.close();
  };
  openapi = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
  setup = await setUpHostile(async (method, path, token, body) => {
    const answer = await app.inject({
      method: method as "GET",
      url: path,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: answer.statusCode, json: answer.body === "" ? undefined : answer.json() };
  }, ADMIN);
});

afterAll(async () => {
  await close();
  await rm(dir, { recursive: true, force: true });
});

const sample = (seed: number, count: number): HostileRequest[] =>
  hostileRequests(openapi, setup.setup, { seed, count });

describe("the hostile request generator", () => {
  test("is deterministic for a seed, and another seed gives another list", () => {
    const first = sample(7, 500);
    expect(JSON.stringify(sample(7, 500))).toBe(JSON.stringify(first));
    expect(JSON.stringify(sample(8, 500))).not.toBe(JSON.stringify(first));
  });

  test("covers every operation of the document with every variant, and every credential kind", () => {
    const operations = operationsOf(openapi).map((operation) => operation.operationId);
    expect(operations.length).toBeGreaterThan(20);
    const list = sample(1, operations.length * VARIANT_KINDS.length);
    for (const variant of VARIANT_KINDS) {
      expect(new Set(list.filter((r) => r.variant === variant).map((r) => r.operationId))).toEqual(
        new Set(operations),
      );
    }
    expect(new Set(list.map((r) => r.credential))).toEqual(new Set(CREDENTIAL_KINDS));
  });

  test("puts a content canary in the schema-valid bodies' string fields", () => {
    const valid = sample(3, 400).filter((r) => r.variant === "valid" && r.operationId === "proposeState");
    expect(valid.length).toBeGreaterThan(0);
    const body = JSON.parse(valid[0]!.body!);
    expect(body.summary).toMatch(/^CANARY-\d+-/);
    expect(body.evidenceRefs[0]).toMatch(/^CANARY-\d+-/);
  });
});

describe("a hub built from source, under a sample of generated hostile requests", () => {
  test("answers no 5xx, every error as a catalogue problem, and logs no content canary or credential", async () => {
    const list = sample(20261202, 800);
    const tally = emptyTally();
    for (const hostile of list) {
      const answer = await app.inject({
        method: hostile.method as "GET",
        url: hostile.path,
        headers: hostile.headers,
        ...(hostile.body === undefined ? {} : { payload: hostile.body }),
      });
      judge(tally, hostile, {
        status: answer.statusCode,
        contentType: String(answer.headers["content-type"] ?? ""),
        body: answer.body,
      });
    }
    expect(tally.examples).toEqual([]);
    expect({ serverErrors: tally.serverErrors, notProblem: tally.notProblem, echoed: tally.echoed }).toEqual({
      serverErrors: 0,
      notProblem: 0,
      echoed: 0,
    });
    // The valid variants reach the routes: some succeed.
    expect(tally.success).toBeGreaterThan(20);
    const scanned = scanLog(logLines.join(""), setup.secrets);
    expect({ contentCanaries: scanned.contentCanaries, credentials: scanned.credentials }).toEqual({
      contentCanaries: 0,
      credentials: 0,
    });
  });
});
