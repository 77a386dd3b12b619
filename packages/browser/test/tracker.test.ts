// The session tracker: a real SQLite file in a temp folder, kept across two openings, private modes, and two
// processes racing on one transition (BEGIN IMMEDIATE lets exactly one win).
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectKxmError, tempDir } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import type { ControlState, TrackedSession } from "../src/index.js";
import { applyEvent } from "../src/takeover.js";
import { SessionTracker, TRACKER_DIR_MODE, TRACKER_FILE, TRACKER_FILE_MODE } from "../src/tracker.js";
import { assertFreshDist, plainNodeEnv } from "./support/dist.js";

const DEPLOYMENT = "http://steel.test";
const WORKER = fileURLToPath(new URL("./fixtures/tracker-worker.mjs", import.meta.url));

function session(id: string, overrides: Partial<TrackedSession> = {}): TrackedSession {
  return {
    id,
    deployment: DEPLOYMENT,
    createdAt: 1_000,
    lastActivityAt: 1_000,
    timeoutMs: 300_000,
    state: "AGENT_CONTROL",
    owner: "agent-1",
    ...overrides,
  };
}

describe("SessionTracker", () => {
  test("rows and their history survive closing and opening again", async () => {
    const dir = join(await tempDir(), "state");
    const first = new SessionTracker(dir);
    first.insert(session("b"), "created");
    first.insert(session("a"), "created");
    first.update(
      DEPLOYMENT,
      "b",
      (row) => row && applyEvent(row, { type: "request_takeover", reason: "MFA" }, 2_000),
      "takeover",
    );
    first.close();

    const second = new SessionTracker(dir);
    expect(second.list(DEPLOYMENT).map((r): [string, ControlState] => [r.id, r.state])).toEqual([
      ["a", "AGENT_CONTROL"],
      ["b", "HUMAN_CONTROL"],
    ]);
    expect(second.get(DEPLOYMENT, "b")).toEqual(
      session("b", { state: "HUMAN_CONTROL", reason: "MFA", lastActivityAt: 2_000 }),
    );
    expect(second.history(DEPLOYMENT, "b")).toEqual([
      { at: 1_000, to: "AGENT_CONTROL", detail: "created" },
      { at: 2_000, from: "AGENT_CONTROL", to: "HUMAN_CONTROL", detail: "takeover" },
    ]);
    expect(second.get("http://other.test", "b")).toBeUndefined();
    second.close();
  });

  test("the folder is 0700 and the database files 0600", async () => {
    const dir = join(await tempDir(), "nested", "state");
    const tracker = new SessionTracker(dir);
    tracker.insert(session("a"), "created");
    expect([TRACKER_DIR_MODE, TRACKER_FILE_MODE]).toEqual([0o700, 0o600]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of [TRACKER_FILE, `${TRACKER_FILE}-wal`, `${TRACKER_FILE}-shm`]) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
    tracker.close();
  });

  test("an update that throws writes nothing", async () => {
    const tracker = new SessionTracker(await tempDir());
    tracker.insert(session("a", { state: "RELEASED" }), "released");
    expectKxmError(
      () => tracker.update(DEPLOYMENT, "a", (row) => row && applyEvent(row, { type: "verified" }, 5)),
      "browser_takeover_invalid",
    );
    expect(tracker.get(DEPLOYMENT, "a")?.state).toBe("RELEASED");
    expect(tracker.history(DEPLOYMENT, "a")).toHaveLength(1);
    tracker.close();
  });

  test("two connections: a write by one is read by the other at once", async () => {
    const dir = await tempDir();
    const one = new SessionTracker(dir);
    const two = new SessionTracker(dir);
    one.insert(session("a"), "created");
    expect(two.get(DEPLOYMENT, "a")?.state).toBe("AGENT_CONTROL");
    two.update(
      DEPLOYMENT,
      "a",
      (row) => row && applyEvent(row, { type: "request_takeover", reason: "x" }, 3),
    );
    expect(one.get(DEPLOYMENT, "a")?.state).toBe("HUMAN_CONTROL");
    one.close();
    two.close();
  });

  test("processes racing one takeover: exactly one wins, the others are refused, no write is lost", async () => {
    const dir = await tempDir();
    const tracker = new SessionTracker(dir);
    tracker.insert(session("race"), "created");
    for (let i = 0; i < 20; i++) tracker.insert(session(`counter-${i}`), "created");
    tracker.close();

    assertFreshDist();
    const startAt = String(Date.now() + 1_500);
    const env = plainNodeEnv();
    const run = (n: number) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [WORKER, dir, startAt], {
          env,
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.on("error", reject);
        child.on("close", (code) =>
          code === 0 ? resolve(out.trim()) : reject(new Error(`worker ${n} exited ${code}`)),
        );
      });
    const outcomes = await Promise.all([0, 1, 2, 3].map(run));
    expect(outcomes).toHaveLength(4);
    expect(outcomes.filter((o) => o.startsWith("won")).length).toBe(1);
    expect(outcomes.filter((o) => o.startsWith("refused browser_takeover_invalid")).length).toBe(3);

    const after = new SessionTracker(dir);
    expect(after.get(DEPLOYMENT, "race")?.state).toBe("HUMAN_CONTROL");
    // Each of the 4 workers bumped every counter row 25 times, each bump a read-modify-write: none is lost.
    for (let i = 0; i < 20; i++) expect(after.get(DEPLOYMENT, `counter-${i}`)?.lastActivityAt).toBe(1_100);
    expect(after.history(DEPLOYMENT, "race").map((t) => t.to)).toEqual(["AGENT_CONTROL", "HUMAN_CONTROL"]);
    after.close();
  });
});
