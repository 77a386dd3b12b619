import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

// The benchmark's smoke run, as CI runs it: a real child process over the built packages (`npm test` builds
// first), one 1,000-item pool, two peers in processes of their own, and Cranfield (kept with the bench). It asserts that the run completes and reports sane figures, never how fast anything is.
const bench = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = mkdtempSync(join(tmpdir(), "kxm-bench-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** What a load's figures say of the requests autocannon sent. */
interface Served {
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
}

interface Stats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

describe("pnpm bench --smoke", () => {
  test("runs KXM and its peers to completion and writes a report and sane JSON", () => {
    const run = spawnSync(
      process.execPath,
      ["--expose-gc", "src/main.mjs", "--smoke", "--peers", "fts5,wink-bm25-kxm", "--out", out],
      { cwd: bench, encoding: "utf8", timeout: 290_000 },
    );
    expect(run.stderr).not.toMatch(/correctness failure|Error:/);
    expect(run.status).toBe(0);
    const report = readFileSync(join(out, "latest.md"), "utf8");
    expect(report).toMatch(/^# KXM benchmark \(smoke\)/);
    expect(report).toContain("| SQLite FTS5 |");
    const json = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));
    expect(json.identical).toBe(true);
    expect(json.sizes).toHaveLength(1);
    const [{ size, kxm, peers }] = json.sizes;
    expect(size).toBe(1_000);
    expect(kxm.identity.mismatches).toBe(0);
    expect(kxm.identity.checks).toBeGreaterThan(0);
    const sane = (stats: Stats) => {
      expect(stats.n).toBeGreaterThan(0);
      expect(stats.p50).toBeGreaterThan(0);
      expect(stats.p50).toBeLessThanOrEqual(stats.p95);
      expect(stats.p95).toBeLessThanOrEqual(stats.p99);
    };
    for (const stats of [kxm.assemble, kxm.assembleShort, kxm.recall, kxm.substringScan]) sane(stats);
    for (const phases of [kxm.phases.long, kxm.phases.short]) {
      expect(Object.keys(phases).sort()).toEqual(["fillMs", "scoreMs", "sortMs", "tokenizeMs"]);
      for (const value of Object.values(phases)) expect(value).toBeGreaterThanOrEqual(0);
    }
    expect(kxm.buildMs).toBeGreaterThan(0);
    expect(peers.map((peer: { system: string }) => peer.system)).toEqual(["fts5", "wink-bm25-kxm"]);
    for (const peer of peers) {
      for (const stats of [peer.long, peer.short, peer.recall]) sane(stats);
      expect(peer.long.medianHits).toBe(100);
      expect(peer.buildMs).toBeGreaterThan(0);
    }
    // The hub and the bare route served every request they were sent, on loopback, under autocannon.
    const { bareRoute } = json.hub;
    for (const route of [
      json.hub.contextLong,
      json.hub.contextShort,
      json.hub.recall,
      json.hub.hello,
      bareRoute.contextLong,
      bareRoute.contextShort,
      bareRoute.recall,
    ]) {
      expect(route.total).toBeGreaterThan(0);
      expect(route.non2xx + route.errors + route.timeouts).toBe(0);
      // Exact durations, not autocannon's whole-millisecond histogram (where a hello answer reads 0).
      expect(route.p50).toBeGreaterThan(0);
      expect(route.p50).toBeLessThanOrEqual(route.p90);
      expect(route.p90).toBeLessThanOrEqual(route.p99);
    }
    // Each server's own time per request (the hub's from its request log): one entry per answered request, and
    // perhaps the one in flight when a burst stopped counting.
    const inFlight = json.hub.connections * json.hub.bursts;
    for (const [route, server] of [
      [json.hub.contextLong, json.hub.contextLong.inHub],
      [json.hub.contextShort, json.hub.contextShort.inHub],
      [json.hub.recall, json.hub.recall.inHub],
      [bareRoute.contextLong, bareRoute.contextLong.inServer],
      [bareRoute.contextShort, bareRoute.contextShort.inServer],
      [bareRoute.recall, bareRoute.recall.inServer],
    ]) {
      expect(server.n).toBeGreaterThanOrEqual(route.total);
      expect(server.n).toBeLessThanOrEqual(route.total + inFlight);
      expect(server.p50).toBeGreaterThan(0);
      expect(server.p50).toBeLessThanOrEqual(server.p99);
      // One arbiter call per request, timed inside that server (the warm-ups' calls are not among them).
      expect(server.arbiter.n).toBeGreaterThanOrEqual(route.total);
      expect(server.arbiter.n).toBeLessThanOrEqual(route.total + inFlight);
      expect(server.arbiter.p50).toBeGreaterThan(0);
    }
    for (const stats of Object.values(json.hub.inProcess) as Stats[]) expect(stats.p50).toBeGreaterThan(0);
    // Both engines served every route, and one and two hub processes on one PostgreSQL every request (CI
    // installs the server); the CPU read around the bursts adds up to no more than the machine has.
    expect(json.engines.skipped).toBeUndefined();
    expect(Object.keys(json.engines.routes)).toEqual([
      "health",
      "contextLong",
      "recall",
      "state",
      "proposal",
    ]);
    const served = (figures: Served & { cores: { hubs: number; machine: number; capacity: number } }) => {
      expect(figures.total).toBeGreaterThan(0);
      expect(figures.non2xx + figures.errors + figures.timeouts).toBe(0);
      expect(figures.p50).toBeGreaterThan(0);
      expect(figures.p50).toBeLessThanOrEqual(figures.p99);
      expect(figures.cores.hubs).toBeGreaterThan(0);
      expect(figures.cores.machine).toBeLessThanOrEqual(figures.cores.capacity * 1.05);
    };
    for (const both of Object.values(json.engines.routes) as { sqlite: never; postgres: never }[]) {
      served(both.sqlite);
      served(both.postgres);
    }
    expect(json.engines.routes.contextLong.postgres.cores.postgres).toBeGreaterThan(0);
    expect(json.engines.hubCounts).toEqual([1, 2]);
    for (const load of ["contextLong", "mixed"]) {
      for (const n of [1, 2]) served(json.engines.throughput[load][n]);
    }
    // `kxm hub serve --workers 1` and `--workers 2` on the SQLite file served every request too.
    expect(json.engines.workerCounts).toEqual([1, 2]);
    for (const load of ["contextLong", "mixed"]) {
      for (const n of [1, 2]) served(json.engines.workers[load][n]);
    }
    expect(report).toContain("| long-task packets, 2 workers |");
    expect(report).toContain("## SQLite and PostgreSQL, one hub and several");
    expect(report).toContain("| POST /state/proposals |");
    if (!("skipped" in json.startup)) {
      expect(json.startup.node.p50).toBeGreaterThan(0);
      expect(json.startup.kxm.p50).toBeGreaterThan(0);
      expect(json.startup.brief.p50).toBeGreaterThan(0);
      expect(json.startup.revision.p50).toBeGreaterThan(0);
    }
    // The browser figures ran on the Steel test server (CI installs Chromium), every session released.
    expect(json.browser.skipped).toBeUndefined();
    for (const stats of [
      json.browser.firstPage.kxm,
      json.browser.firstPage.steelSdk,
      json.browser.firstPage.local,
    ]) {
      expect(stats.n).toBe(1);
      expect(stats.p50).toBeGreaterThan(0);
    }
    expect(json.browser.sweep.sessions).toBe(100);
    for (const stats of [json.browser.sweep.kxm, json.browser.sweep.steelSdk])
      expect(stats.p50).toBeGreaterThan(0);
    expect(report).toContain("## Browser sessions");
    expect(report).toContain("| steel-sdk (sessions.create, connectOverCDP) |");
    // The collection is kept with the bench, so every clone measures it.
    const systems = json.cranfield.rows.map((row: { system: string }) => row.system);
    // Each peer that can index fields runs a second time over title and abstract apart.
    expect(systems).toEqual(["kxm", "kxm-recall", "kxm-english", "fts5", "fts5:fields", "wink-bm25-kxm"]);
    // The english analysis is held against the same best peer as the default, on both readings.
    for (const v of Object.values(json.cranfield.versusBest) as { peer: string; english: { peer: string } }[])
      expect(v.english.peer).toBe(v.peer);
    expect(report).toContain("english analysis: KXM nDCG@10");
    for (const row of json.cranfield.rows) {
      for (const value of [...Object.values(row.ndcg10), ...Object.values(row.recall100)]) {
        expect(value).toBeGreaterThan(0.1);
        expect(value).toBeLessThanOrEqual(1);
      }
    }
    // wink-bm25 fed KXM's tokenizer and BM25 parameters ranks Cranfield exactly as KXM's packets do.
    expect(json.cranfield.winkEqual).toMatchObject({ compared: true, holds: true });
    // The figures kept section by section while the run went are gone once the whole report is written.
    expect(existsSync(join(out, "partial.json"))).toBe(false);
  }, 300_000);

  test("checks its inputs before the first measurement: no Cranfield, exit 2 at once, nothing written", () => {
    const empty = mkdtempSync(join(tmpdir(), "kxm-bench-no-cranfield-"));
    try {
      const run = spawnSync(process.execPath, ["src/main.mjs", "--quick", "--out", join(empty, "out")], {
        cwd: bench,
        encoding: "utf8",
        env: { ...process.env, KXM_CRANFIELD_DIR: empty },
        timeout: 30_000,
      });
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        `bench: the Cranfield collection cannot be read: ${join(empty, "cran.all.1400")} is missing (set KXM_CRANFIELD_DIR)`,
      ]);
      expect(existsSync(join(empty, "out"))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("checks for PostgreSQL before the first measurement: no server binaries, exit 2 at once", () => {
    const empty = mkdtempSync(join(tmpdir(), "kxm-bench-no-postgres-"));
    try {
      const run = spawnSync(process.execPath, ["src/main.mjs", "--quick", "--out", join(empty, "out")], {
        cwd: bench,
        encoding: "utf8",
        env: { ...process.env, KXM_POSTGRES_BIN: empty },
        timeout: 30_000,
      });
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        `bench: the engines figures cannot run: initdb and pg_ctl not found in ${empty} (KXM_POSTGRES_BIN)`,
      ]);
      expect(existsSync(join(empty, "out"))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("refuses an unknown argument with exit code 2 and one line", () => {
    const run = spawnSync(process.execPath, ["src/main.mjs", "--fast"], { cwd: bench, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("unknown argument --fast");
  });
});
