// @ts-check
// What the backup scenario and its tests share: steady writers against a hub process, the built CLI in a child
// process, reading which proposals a copy holds, and damaging a copy on purpose.
import { execFile } from "node:child_process";
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import Database from "better-sqlite3";
import { call, proposal } from "./http.mjs";
import { CLI } from "./paths.mjs";

/**
 * @typedef {object} Writers
 * @property {{ key: string, proposalId: string, at: number }[]} acknowledged every proposal the hub answered 201
 *   to, in order, with when the answer arrived (`Date.now()`)
 * @property {() => Promise<void>} stop stops writing and resolves when every writer has finished
 */

/**
 * Writers that keep making proposals to `project` until stopped, each waiting for its answer before the next.
 * @param {string} url
 * @param {string} key an agent key of the project
 * @param {string} project
 * @param {{ writers?: number, prefix?: string }} [options]
 * @returns {Writers}
 */
export function steadyWriters(url, key, project, options = {}) {
  /** @type {{ key: string, proposalId: string, at: number }[]} */
  const acknowledged = [];
  let stopped = false;
  const writer = async (/** @type {number} */ w) => {
    for (let n = 0; !stopped; n += 1) {
      const stateKey = `${options.prefix ?? "backup"}.w${w}.n${n}`;
      const answer = await call(url, "POST", `/v1/projects/${project}/state/proposals`, {
        token: key,
        body: proposal(stateKey, `Value ${n} written by writer ${w} while backups run`),
      });
      if (answer.status === 201)
        acknowledged.push({ key: stateKey, proposalId: answer.json.proposalId, at: Date.now() });
      else throw new Error(`a proposal was answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
  const running = Array.from({ length: options.writers ?? 4 }, (_, w) => writer(w));
  return {
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/**
 * Runs the built `kxm` with `args` and resolves with its exit code and output (never rejects on a non-zero exit).
 * @param {readonly string[]} args
 * @param {{ cwd?: string, env?: Record<string, string> }} [options]
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export function kxm(args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: options.cwd ?? process.cwd(),
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...options.env },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * The ids of the proposals of `project` in the database file `file`, read without writing it.
 * @param {string} file
 * @param {string} project
 * @returns {Set<string>}
 */
export function proposalIdsIn(file, project) {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = /** @type {{ id: string }[]} */ (
      sqlite.prepare("select item_id as id from state_proposals where project = ?").all(project)
    );
    return new Set(rows.map((row) => row.id));
  } finally {
    sqlite.close();
  }
}

/**
 * Overwrites 64 bytes in the middle of `pages` pages of `file` (4 KiB pages, never the first, which holds the
 * header), chosen by `next`. Damage that lands only in a page's free space is invisible to any check, so several
 * pages are hit.
 * @param {string} file
 * @param {() => number} next a random number in [0, 1)
 * @param {number} [pages]
 */
export function corruptPages(file, next, pages = 8) {
  const pageSize = 4096;
  const count = Math.floor(statSync(file).size / pageSize);
  const fd = openSync(file, "r+");
  try {
    for (let hit = 0; hit < Math.min(pages, count - 1); hit += 1) {
      const page = 2 + Math.floor(next() * (count - 1));
      writeSync(fd, Buffer.alloc(64, 0x5a), 0, 64, (page - 1) * pageSize + pageSize / 2 - 32);
    }
  } finally {
    closeSync(fd);
  }
}
