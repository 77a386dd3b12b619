// Several processes on one database file, as several hub processes would be. The workers run the built package,
// so these tests first check that dist/ is not older than src/ (`pnpm --filter @kxm/state-store run build`).
import { type ChildProcess, fork } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, test } from "vitest";
import { openStore } from "../src/index.js";
import { guideProposal } from "./support/state-fixtures.js";
import { at, open, T0, tempDir } from "./support/temp-store.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const worker = fileURLToPath(new URL("./support/store-worker.mjs", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

function assertFreshDist(): void {
  const stale: string[] = [];
  for (const source of sourceFiles(join(packageDir, "src"))) {
    const built = join(packageDir, "dist", relative(join(packageDir, "src"), source)).replace(/\.ts$/, ".js");
    let builtTime = 0;
    try {
      builtTime = statSync(built).mtimeMs;
    } catch {
      // Missing: stale.
    }
    if (builtTime < statSync(source).mtimeMs) stale.push(relative(packageDir, source));
  }
  if (stale.length > 0) {
    throw new Error(
      `dist/ is older than ${stale.join(", ")}: run \`pnpm --filter @kxm/state-store run build\` before these tests`,
    );
  }
}

interface Reply {
  ready?: boolean;
  ok?: boolean;
  code?: string;
  message?: string;
  ack?: string;
  won?: string[];
  refused?: Record<string, number>;
}

/** Forks the worker; `ready` resolves once it has loaded, `done` with its last reply once it exits. */
function spawnWorker(args: string[], onMessage?: (reply: Reply, child: ChildProcess) => void) {
  // A plain Node process: not vitest's flags (its "@kxm/source" condition would resolve packages to TypeScript).
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(worker, args, { execArgv: [], env, stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let last: Reply | undefined;
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.on("message", (reply: Reply) => {
    if (reply.ready === true) return markReady();
    last = reply;
    onMessage?.(reply, child);
  });
  const done = new Promise<{
    reply: Reply | undefined;
    code: number | null;
    signal: string | null;
    stderr: string;
  }>((resolve) =>
    child.on("exit", (code, signal) => {
      markReady();
      resolve({ reply: last, code, signal, stderr });
    }),
  );
  return { child, ready, done };
}

/** Starts every worker at once, after all of them have loaded. */
async function startTogether(workers: ReadonlyArray<ReturnType<typeof spawnWorker>>): Promise<void> {
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) if (worker.child.connected) worker.child.send("go");
}

beforeAll(() => assertFreshDist());

describe("several processes on one file", () => {
  test("processes opening one fresh file at the same moment all succeed and migrate it once", async () => {
    const file = join(tempDir(), "fresh", "kxm.db");
    const workers = [1, 2, 3].map(() => spawnWorker(["open", file]));
    await startTogether(workers);
    const results = await Promise.all(workers.map((w) => w.done));
    for (const result of results) expect(result.reply, result.stderr).toEqual({ ok: true });
    const raw = new Database(file, { readonly: true });
    const applied = raw.prepare("select count(*) as n from __drizzle_migrations").get() as { n: number };
    raw.close();
    const journal = readdirSync(join(packageDir, "drizzle")).filter((name) => name.endsWith(".sql"));
    expect(applied.n).toBe(journal.length);
  });

  test("competing promotions of one key never leave two current values, at any instant", async () => {
    const file = join(tempDir(), "kxm.db");
    const store = await open(file);
    await store.createProject({ id: "demo" }, at(T0));
    const shared: string[] = [];
    for (let i = 0; i < 12; i++) {
      shared.push(
        (
          await store.proposeState(
            guideProposal({ summary: `shared ${i}`, proposedBy: "agent-main" }),
            new Date(),
          )
        ).id,
      );
    }

    const reader = new Database(file, { readonly: true });
    const countCurrent = reader.prepare(
      "select count(*) as n from items where project = 'demo' and state_key = 'release.branch' and status = 'current'",
    );
    const windows = reader.prepare(
      "select valid_from as f, valid_until as u from items where project = 'demo' and state_key = 'release.branch' and status in ('current', 'superseded') order by valid_from",
    );
    // One read transaction: both queries see the same snapshot.
    const check = reader.transaction(() => {
      const { n } = countCurrent.get() as { n: number };
      const rows = windows.all() as Array<{ f: string; u: string | null }>;
      return { n, rows };
    });
    let checks = 0;
    const violations: string[] = [];
    const rounds = 20;
    const workers = [0, 1, 2].map((w) =>
      spawnWorker([
        "promote",
        file,
        "demo",
        "release.branch",
        String(w),
        String(rounds),
        JSON.stringify(shared),
      ]),
    );
    await startTogether(workers);
    let running = true;
    const all = Promise.all(workers.map((w) => w.done)).finally(() => {
      running = false;
    });
    while (running) {
      const { n, rows } = check();
      checks++;
      if (n > 1) violations.push(`${n} current items`);
      for (let i = 1; i < rows.length; i++) {
        const previous = rows[i - 1]!;
        if (previous.u === null || previous.u > rows[i]!.f) violations.push(`overlap at ${rows[i]!.f}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const results = await all;
    reader.close();
    for (const result of results) expect(result.reply?.ok, result.stderr).toBe(true);
    expect(violations).toEqual([]);
    expect(checks).toBeGreaterThan(5);

    // Each shared proposal was promoted by exactly one process; the others were refused as already consumed.
    const won = results.flatMap((result) => result.reply?.won ?? []);
    expect(won.sort()).toEqual([...shared].sort());
    for (const result of results) {
      expect(
        Object.keys(result.reply?.refused ?? {}).filter((code) => code !== "state_proposal_not_promotable"),
      ).toEqual([]);
    }
    const history = await store.stateHistory("demo", "release.branch");
    const values = history.filter((item) => item.status === "current" || item.status === "superseded");
    expect(values.length).toBe(shared.length + 3 * rounds);
    expect(values.filter((item) => item.status === "current").length).toBe(1);
    expect(await store.currentState("demo", "release.branch", new Date(Date.now() + 60_000))).toHaveLength(1);
    expect(await store.openContradictions("demo")).toEqual([]);
  });

  test("a process killed after acknowledging writes loses none of them", async () => {
    const file = join(tempDir(), "kxm.db");
    const setup = openStore({ path: file });
    await setup.createProject({ id: "demo" }, at(T0));
    await setup.close();
    const acked: string[] = [];
    const writer = spawnWorker(["write", file, "demo"], (reply, child) => {
      if (reply.ack !== undefined) acked.push(reply.ack);
      if (acked.length === 200) child.kill("SIGKILL");
    });
    await startTogether([writer]);
    const result = await writer.done;
    expect(result.signal).toBe("SIGKILL");
    expect(acked.length).toBeGreaterThanOrEqual(200);
    const store = await open(file);
    for (const runId of acked) expect((await store.getRun("demo", runId))?.status).toBe("running");
  });
});
