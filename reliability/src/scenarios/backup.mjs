// @ts-check
// Backups while serving: a hub process takes steady writes while `kxm hub backup` copies its database again and
// again; every copy is checked, restored into a fresh path and served by a new hub process, and a damaged copy of
// each (the copy with its checksum manifest) must be caught by `kxm hub check`. The short form takes its first
// backup, restore and damaged check through the built CLI and the rest through the functions the CLI calls, so that
// CLI start-ups do not dominate it; the full form runs the CLI every time.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { backupSqliteStore, checkSqliteStore, restoreSqliteStore } from "@kxm/state-store";
import { corruptPages, kxm, proposalIdsIn, steadyWriters } from "../lib/backup-load.mjs";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { seededRandom } from "../lib/random.mjs";
import { count, percentile } from "../lib/stats.mjs";

const WRITERS = 4;
const PROJECT = "backups";
const HUB_ENV = { KXM_LOG_LEVEL: "silent", KXM_RATE_LIMIT: "1000000" };

/**
 * One backup of `live` to `copy`, through the built CLI or the function it calls; its `startedAt` is taken before
 * the backup begins either way.
 * @param {string} live
 * @param {string} copy
 * @param {boolean} cli
 * @returns {Promise<{ startedAt: string, durationMs: number, bytes: number }>}
 */
async function takeBackup(live, copy, cli) {
  if (!cli) {
    const startedAt = new Date().toISOString();
    return { ...(await backupSqliteStore({ from: live, to: copy, startedAt })), startedAt };
  }
  const backup = await kxm(["hub", "backup", copy, "--db", live, "--json"]);
  if (backup.code !== 0) throw new Error(`kxm hub backup exited ${backup.code}: ${backup.stderr}`);
  return JSON.parse(backup.stdout);
}

/**
 * Restores `copy` into the new path `fresh`; resolves whether it succeeded.
 * @param {string} copy
 * @param {string} fresh
 * @param {boolean} cli
 */
async function restoreBackup(copy, fresh, cli) {
  if (cli) return (await kxm(["hub", "restore", copy, "--db", fresh])).code === 0;
  try {
    await restoreSqliteStore({ backup: copy, to: fresh, now: new Date() });
    return true;
  } catch {
    return false;
  }
}

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "backup",
  title: "Backups while serving",
  order: 70,
  async run({ short, seed, scratch, progress }) {
    const backups = short ? 5 : 20;
    const seedRows = short ? 500 : 5_000;
    const next = seededRandom(seed);
    /** Whether backup `b` goes through the built CLI (every one in the full form, the first in the short). */
    const viaCli = (/** @type {number} */ b) => !short || b === 0;
    const live = join(scratch, "live", "kxm.db");
    const hub = await startHubProcess({
      dbPath: live,
      adminToken: ADMIN,
      env: HUB_ENV,
    });
    const key = await projectWithAgent(hub.url, ADMIN, PROJECT);
    // Some data first, so that a copy takes more than a page or two.
    for (let n = 0; n < seedRows; n += 50) {
      const batch = Array.from({ length: Math.min(50, seedRows - n) }, (_, i) =>
        call(hub.url, "POST", `/v1/projects/${PROJECT}/state/proposals`, {
          token: key,
          body: proposal(`seed.n${n + i}`, `Seed value ${n + i}, a sentence long enough to fill pages`),
        }),
      );
      for (const answer of await Promise.all(batch)) {
        if (answer.status !== 201) throw new Error(`seeding answered ${answer.status}: ${answer.text}`);
      }
    }
    progress(`seeded ${count(seedRows)} proposals`);
    const writers = steadyWriters(hub.url, key, PROJECT, { writers: WRITERS });
    /** @type {{ copy: string, before: { key: string, proposalId: string, at: number }[] }[]} */
    const taken = [];
    /** @type {number[]} */
    const durations = [];
    let bytes = 0;
    let writtenDuring = 0;
    try {
      // While the writers write: only the backups, one after another.
      for (let b = 0; b < backups; b += 1) {
        await new Promise((done) => setTimeout(done, 50 + Math.floor(next() * 150)));
        const launched = writers.acknowledged.length;
        const copy = join(scratch, `copy-${b}.db`);
        const result = await takeBackup(live, copy, viaCli(b));
        // The writes whose 201 arrived before the command started its backup must all be in the copy.
        const startedAt = Date.parse(result.startedAt);
        const before = writers.acknowledged.filter((write) => write.at < startedAt);
        writtenDuring += writers.acknowledged.length - launched;
        durations.push(result.durationMs);
        bytes = result.bytes;
        taken.push({ copy, before });
      }
    } finally {
      await writers.stop();
      await hub.stop();
    }
    progress(`${count(taken.length)} backups taken under ${count(writtenDuring)} writes; verifying them`);
    let failedCheck = 0;
    let missing = 0;
    let checkedWrites = 0;
    let served = 0;
    let damagedCaught = 0;
    let integrityAloneCaught = 0;
    for (const [b, { copy, before }] of taken.entries()) {
      if (!checkSqliteStore(copy).healthy) failedCheck += 1;
      const held = proposalIdsIn(copy, PROJECT);
      checkedWrites += before.length;
      missing += before.filter((write) => !held.has(write.proposalId)).length;

      // Restored into a fresh path and served by a new process: the last write acknowledged before must be there.
      const fresh = join(scratch, `restored-${b}`, "kxm.db");
      const restored = await restoreBackup(copy, fresh, viaCli(b));
      const last = before.at(-1);
      if (restored && last !== undefined) {
        const serving = await startHubProcess({ dbPath: fresh, adminToken: ADMIN, env: HUB_ENV });
        const history = await call(serving.url, "GET", `/v1/projects/${PROJECT}/state/${last.key}/history`, {
          token: key,
        });
        const items = history.status === 200 ? history.json.items : [];
        if (items.some((/** @type {{ id: string }} */ item) => item.id === last.proposalId)) served += 1;
        await serving.stop();
      }

      const damaged = join(scratch, "damaged", `copy-${b}.db`);
      mkdirSync(join(scratch, "damaged"), { recursive: true });
      copyFileSync(copy, damaged);
      // The manifest travels with its copy, as it would to a backup store.
      copyFileSync(`${copy}.sha256`, `${damaged}.sha256`);
      corruptPages(damaged, next);
      if (!checkSqliteStore(damaged, { noChecksum: true }).healthy) integrityAloneCaught += 1;
      if (
        viaCli(b)
          ? (await kxm(["hub", "check", "--db", damaged])).code === 1
          : !checkSqliteStore(damaged).healthy
      )
        damagedCaught += 1;
      progress(`${b + 1} of ${taken.length} copies verified`);
    }
    const p50 = percentile(durations, 50);
    const size = (bytes / 1024 / 1024).toFixed(1);
    return {
      tried: `${count(backups)} backups with \`kxm hub backup\` of a hub process's ${size} MiB database (${count(seedRows)} seeded proposals) while ${WRITERS} writers kept making proposals (${count(writtenDuring)} acknowledged during the backups); then each copy checked (integrity_check, foreign keys, migration level, its checksum manifest), compared with the writes acknowledged before its backup began, restored into a fresh path with \`kxm hub restore\` and served by a new hub process, and a copy of it and its manifest with 64 bytes overwritten in the middle of 8 random pages given to \`kxm hub check\`${short ? " (the short form runs the CLI for the first backup, restore and check, and the same functions the CLI calls for the rest)" : ""}.`,
      figures: [
        {
          label: "backups taken",
          value: count(durations.length),
          goal: count(backups),
          held: durations.length === backups,
        },
        {
          label: "copies failing the integrity check",
          value: count(failedCheck),
          goal: "0",
          held: failedCheck === 0,
        },
        {
          label: "writes acknowledged before a backup missing from its copy",
          value: `${count(missing)} of ${count(checkedWrites)}`,
          goal: "0",
          held: missing === 0 && checkedWrites > 0,
        },
        {
          label: "restores served by a new hub process",
          value: `${count(served)} of ${count(backups)}`,
          goal: "all",
          held: served === backups,
        },
        {
          label: "damaged copies caught by kxm hub check",
          value: `${count(damagedCaught)} of ${count(backups)}`,
          goal: "all",
          held: damagedCaught === backups,
        },
        {
          label: "of which SQLite's own checks alone catch (no manifest)",
          value: `${count(integrityAloneCaught)} of ${count(backups)}`,
          goal: "reported",
          held: true,
        },
        {
          label: `backup time p50 (copy and verification, ${size} MiB)`,
          value: `${Math.round(p50)} ms`,
          goal: "reported",
          held: true,
        },
      ],
      notes: [
        "The backup time is the copy and its check inside `kxm hub backup`, without the CLI's start-up.",
        "Damage inside a text value, or in a page's free space, is invisible to integrity_check (SQLite keeps no page checksums); the SHA-256 manifest that `kxm hub backup` writes beside each copy is what catches it.",
      ],
    };
  },
};
