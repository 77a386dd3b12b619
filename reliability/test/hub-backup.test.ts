// `kxm hub backup`, `check` and `restore` against a real hub process serving writes: the built CLI in child
// processes (run `pnpm exec turbo run build` first), real SQLite files in temp folders.
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, test } from "vitest";
import { corruptPages, kxm, proposalIdsIn, steadyWriters } from "../src/lib/backup-load.mjs";
import { call, projectWithAgent, proposal } from "../src/lib/http.mjs";
import { type HubProcess, startHubProcess } from "../src/lib/hub-process.mjs";
import { seededRandom } from "../src/lib/random.mjs";

const ADMIN = "backup-test-admin-token-0123456789";
const hubs: HubProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "kxm-backup-"));
  folders.push(dir);
  return dir;
}

async function serve(dbPath: string): Promise<HubProcess> {
  const hub = await startHubProcess({
    dbPath,
    adminToken: ADMIN,
    env: { KXM_LOG_LEVEL: "silent", KXM_RATE_LIMIT: "1000000" },
  });
  hubs.push(hub);
  return hub;
}

/** One line on stderr, `hub <command> failed: …`, exit 1, nothing on stdout, no stack. */
function expectOneLine(
  result: { code: number; stdout: string; stderr: string },
  command: string,
  text: RegExp,
) {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^hub ${command} failed: `));
  expect(lines[0]).toMatch(text);
}

const jsonCode = (result: { stdout: string }) =>
  (JSON.parse(result.stdout) as { error: { code: string } }).error.code;

describe("kxm hub backup while a hub process serves writes", () => {
  test("the copy passes check, holds every write acknowledged before it began, and restores to a serving hub", async () => {
    const dir = folder();
    const live = join(dir, "live", "kxm.db");
    const hub = await serve(live);
    const key = await projectWithAgent(hub.url, ADMIN, "demo");
    const writers = steadyWriters(hub.url, key, "demo", { writers: 4 });
    while (writers.acknowledged.length < 300) await new Promise((done) => setTimeout(done, 20));
    const launched = writers.acknowledged.length;
    const backup = await kxm(["hub", "backup", join(dir, "copy.db"), "--db", live, "--json"]);
    const during = writers.acknowledged.length;
    await new Promise((done) => setTimeout(done, 100));
    await writers.stop();
    expect(backup.code, backup.stderr).toBe(0);
    const result = JSON.parse(backup.stdout);
    // The writes whose 201 arrived before the command started its backup: each must be in the copy.
    const before = writers.acknowledged.filter((write) => write.at < Date.parse(result.startedAt));
    expect(before.length).toBeGreaterThanOrEqual(launched);
    // Writes kept being acknowledged while the backup ran: the hub was not blocked.
    expect(writers.acknowledged.length).toBeGreaterThan(during);
    expect(during).toBeGreaterThan(before.length);
    expect(result.file).toBe(join(dir, "copy.db"));
    expect(result.check.healthy).toBe(true);
    expect(statSync(join(dir, "copy.db")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["copy.db", "copy.db.sha256", "live"]);

    const check = await kxm(["hub", "check", "--db", join(dir, "copy.db")]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/healthy/);
    const held = proposalIdsIn(join(dir, "copy.db"), "demo");
    expect(before.filter((write) => !held.has(write.proposalId))).toEqual([]);

    // Restore into a fresh path, serve it, read back a write acknowledged before the backup.
    const fresh = join(dir, "fresh", "kxm.db");
    const restore = await kxm(["hub", "restore", join(dir, "copy.db"), "--db", fresh]);
    expect(restore.code, restore.stderr).toBe(0);
    const restored = await serve(fresh);
    const last = before.at(-1)!;
    const history = await call(restored.url, "GET", `/v1/projects/demo/state/${last.key}/history`, {
      token: key,
    });
    expect(history.status).toBe(200);
    expect(history.json.items.map((item: { id: string }) => item.id)).toContain(last.proposalId);
  }, 90_000);

  test("restore refuses while a hub serves the database, then replaces it once the hub stopped", async () => {
    const dir = folder();
    const live = join(dir, "kxm.db");
    const hub = await serve(live);
    const key = await projectWithAgent(hub.url, ADMIN, "demo");
    const backup = await kxm(["hub", "backup", join(dir, "b.db"), "--db", live]);
    expect(backup.code, backup.stderr).toBe(0);
    const after = await call(hub.url, "POST", "/v1/projects/demo/state/proposals", {
      token: key,
      body: {
        key: "after.backup",
        summary: "Written after",
        authority: "evidence",
        confidence: "verified",
        evidenceRefs: ["pr:1"],
      },
    });
    expect(after.status).toBe(201);

    const refused = await kxm(["hub", "restore", join(dir, "b.db"), "--db", live, "--force"]);
    expectOneLine(refused, "restore", /is open in another process/);
    const refusedJson = await kxm(["hub", "restore", join(dir, "b.db"), "--db", live, "--force", "--json"]);
    expect(jsonCode(refusedJson)).toBe("database_in_use");
    expect(
      readdirSync(dir).filter((name) => name.includes("before-restore") || name.endsWith(".tmp")),
    ).toEqual([]);
    // The hub still serves, and still holds the later write.
    const still = await call(hub.url, "GET", "/v1/projects/demo/state/after.backup/history", { token: key });
    expect(still.status).toBe(200);

    await hub.stop();
    hubs.splice(hubs.indexOf(hub), 1);
    const restore = await kxm(["hub", "restore", join(dir, "b.db"), "--db", live, "--force", "--json"]);
    expect(restore.code, restore.stderr).toBe(0);
    const { keptAs } = JSON.parse(restore.stdout);
    expect(keptAs).toMatch(/kxm\.db\.before-restore-\d{8}T\d{6}Z$/);
    expect(existsSync(`${live}-wal`)).toBe(false);
    expect(proposalIdsIn(keptAs, "demo").has(after.json.proposalId)).toBe(true);
    const served = await serve(live);
    const gone = await call(served.url, "GET", "/v1/projects/demo/state/after.backup/history", {
      token: key,
    });
    expect(gone.status === 404 || gone.json.items.length === 0).toBe(true);
  }, 90_000);
});

describe("kxm hub check", () => {
  test("finds a corrupted copy and one a newer KXM migrated, one line per problem", async () => {
    const dir = folder();
    const live = join(dir, "kxm.db");
    const hub = await serve(live);
    const key = await projectWithAgent(hub.url, ADMIN, "demo");
    const writers = steadyWriters(hub.url, key, "demo", { writers: 2 });
    while (writers.acknowledged.length < 200) await new Promise((done) => setTimeout(done, 20));
    await writers.stop();
    expect((await kxm(["hub", "backup", join(dir, "b.db"), "--db", live])).code).toBe(0);

    copyFileSync(join(dir, "b.db"), join(dir, "damaged.db"));
    corruptPages(join(dir, "damaged.db"), seededRandom(7), 12);
    const damaged = await kxm(["hub", "check", "--db", join(dir, "damaged.db")]);
    expect(damaged.code).toBe(1);
    const lines = damaged.stderr.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^hub check: database_damaged: /);
    const damagedJson = JSON.parse(
      (await kxm(["hub", "check", "--db", join(dir, "damaged.db"), "--json"])).stdout,
    );
    expect(damagedJson.healthy).toBe(false);

    copyFileSync(join(dir, "b.db"), join(dir, "newer.db"));
    const raw = new Database(join(dir, "newer.db"));
    raw
      .prepare("insert into __drizzle_migrations (hash, created_at) values ('future', ?)")
      .run(Date.now() + 1e10);
    raw.close();
    const newer = await kxm(["hub", "check", "--db", join(dir, "newer.db")]);
    expect(newer.code).toBe(1);
    expect(newer.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^hub check: database_schema_newer: /),
    ]);
    // Neither is accepted as a backup to restore; a hub refuses to serve the newer one.
    for (const bad of ["damaged.db", "newer.db"]) {
      const restore = await kxm(["hub", "restore", join(dir, bad), "--db", join(dir, "target.db"), "--json"]);
      expect(jsonCode(restore)).toBe(bad === "newer.db" ? "database_schema_newer" : "database_damaged");
    }
    expect(existsSync(join(dir, "target.db"))).toBe(false);
    await expect(serve(join(dir, "newer.db"))).rejects.toThrow(/newer/);
    // The check wrote nothing: the live database is checked while served, and stays healthy.
    expect((await kxm(["hub", "check", "--db", live, "--quick"])).code).toBe(0);
  }, 90_000);

  test("a backup's checksum manifest catches damage inside a text value; a copy without one only warns", async () => {
    const dir = folder();
    const live = join(dir, "kxm.db");
    const hub = await serve(live);
    const key = await projectWithAgent(hub.url, ADMIN, "demo");
    const made = await call(hub.url, "POST", "/v1/projects/demo/state/proposals", {
      token: key,
      body: proposal("needle", "Needle-in-the-haystack value"),
    });
    expect(made.status).toBe(201);
    const copy = join(dir, "b.db");
    const backup = await kxm(["hub", "backup", copy, "--db", live, "--json"]);
    expect(backup.code, backup.stderr).toBe(0);
    const result = JSON.parse(backup.stdout);
    expect(result.manifest).toBe(`${copy}.sha256`);
    expect(readFileSync(result.manifest, "utf8")).toContain(`# startedAt: ${result.startedAt}`);
    const verified = await kxm(["hub", "check", "--db", copy]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/checksum: matches its manifest/);

    // One letter of a text value changed: the b-tree is intact, so integrity_check alone passes it.
    const bytes = readFileSync(copy);
    const fd = openSync(copy, "r+");
    writeSync(fd, Buffer.from("X"), 0, 1, bytes.indexOf(Buffer.from("Needle-in-the-haystack")));
    closeSync(fd);
    const caught = await kxm(["hub", "check", "--db", copy]);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toMatch(/integrity_check: ok/);
    const lines = caught.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hub check: database_damaged: .*b\.db: sha256 [0-9a-f]{64} does not match/);
    expect(lines[0]).toContain(copy);
    const caughtJson = JSON.parse((await kxm(["hub", "check", "--db", copy, "--json"])).stdout);
    expect(caughtJson.checksum).toMatchObject({ state: "mismatch", expected: result.sha256 });
    const target = join(dir, "restored", "kxm.db");
    const refused = await kxm(["hub", "restore", copy, "--db", target, "--json"]);
    expect(jsonCode(refused)).toBe("database_damaged");
    expect(existsSync(target)).toBe(false);

    // The same damaged copy without its manifest: nothing to verify, and restore goes ahead with a warning.
    renameSync(`${copy}.sha256`, join(dir, "aside"));
    const blind = await kxm(["hub", "check", "--db", copy, "--json"]);
    expect(blind.code).toBe(0);
    expect(JSON.parse(blind.stdout).checksum.state).toBe("missing");
    expect((await kxm(["hub", "check", "--db", copy])).stdout).toMatch(/no checksum to verify/);
    const warned = await kxm(["hub", "restore", copy, "--db", target]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toMatch(/^hub restore: warning: no checksum to verify: /);
  }, 90_000);

  test("every refusal of backup and restore is one line with a code and leaves no file", async () => {
    const dir = folder();
    const live = join(dir, "kxm.db");
    const hub = await serve(live);
    await projectWithAgent(hub.url, ADMIN, "demo");
    expect((await kxm(["hub", "backup", join(dir, "exists.db"), "--db", live])).code).toBe(0);
    const aFile = join(dir, "exists.db");
    const cases: [string[], string, RegExp][] = [
      [["hub", "backup", aFile, "--db", live], "backup_refused", /already exists; --force/],
      [["hub", "backup", join(dir, "no", "b.db"), "--db", live], "backup_refused", /does not exist/],
      [["hub", "backup", join(aFile, "b.db"), "--db", live, "--force"], "backup_refused", /under a file/],
      [["hub", "backup", live, "--db", live, "--force"], "backup_refused", /is the database/],
      [["hub", "backup", `${live}-wal`, "--db", live, "--force"], "backup_refused", /-wal file/],
      [["hub", "backup", join(dir, "b.db"), "--db", join(dir, "none.db")], "not_found", /no database/],
      [["hub", "restore", join(dir, "none.db"), "--db", join(dir, "t.db")], "not_found", /no backup/],
      [["hub", "restore", aFile, "--db", live], "backup_refused", /already exists; --force/],
      [["hub", "restore", live, "--db", live, "--force"], "backup_refused", /is the database/],
      [["hub", "check", "--db", join(dir, "none.db")], "not_found", /no database/],
    ];
    const files = readdirSync(dir).sort();
    for (const [args, code, text] of cases) {
      const command = args[1]!;
      expectOneLine(await kxm(args), command, text);
      expect(jsonCode(await kxm([...args, "--json"]))).toBe(code);
    }
    expect(readdirSync(dir).sort()).toEqual(files);
  }, 120_000);
});
