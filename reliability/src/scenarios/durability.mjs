// @ts-check
// kill -9 while writing: a real hub process takes proposals from several concurrent writers and is killed with
// SIGKILL at a random moment; a new process on the same file must still hold every proposal it acknowledged.
import { join } from "node:path";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { seededRandom } from "../lib/random.mjs";
import { count } from "../lib/stats.mjs";

const WRITERS = 8;

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "durability",
  title: "kill -9 while writing",
  order: 80,
  async run({ short, seed, scratch, progress }) {
    const cycles = short ? 10 : 100;
    const next = seededRandom(seed);
    const dbPath = join(scratch, "kxm.db");
    /** @type {{ key: string, proposalId: string }[]} */
    const acknowledged = [];
    let key = "";
    let lost = 0;
    let checked = 0;
    for (let cycle = 0; cycle < cycles; cycle += 1) {
      const hub = await startHubProcess({ dbPath, adminToken: ADMIN, env: { KXM_LOG_LEVEL: "silent" } });
      if (cycle === 0) key = await projectWithAgent(hub.url, ADMIN, "durable");
      // Every write acknowledged before any kill must be in the file the new process opened.
      for (const write of acknowledged.splice(0)) {
        checked += 1;
        const history = await call(hub.url, "GET", `/v1/projects/durable/state/${write.key}/history`, {
          token: key,
        });
        const ids =
          history.status === 200 ? history.json.items.map((/** @type {{id: string}} */ i) => i.id) : [];
        if (!ids.includes(write.proposalId)) lost += 1;
      }
      let stopped = false;
      const writer = async (/** @type {number} */ w) => {
        for (let n = 0; !stopped; n += 1) {
          const stateKey = `durability.c${cycle}.w${w}.n${n}`;
          try {
            const answer = await call(hub.url, "POST", "/v1/projects/durable/state/proposals", {
              token: key,
              body: proposal(stateKey, `Value ${n} written by writer ${w} in cycle ${cycle}`),
            });
            if (answer.status === 201)
              acknowledged.push({ key: stateKey, proposalId: answer.json.proposalId });
          } catch {
            return; // the connection died with the process: that write was never acknowledged
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.floor(next() * 270)));
      await hub.stop("SIGKILL");
      stopped = true;
      await Promise.all(writers);
      if ((cycle + 1) % 10 === 0) progress(`${cycle + 1} of ${cycles} cycles`);
    }
    // The last cycle's writes are checked by one more start.
    const hub = await startHubProcess({ dbPath, adminToken: ADMIN, env: { KXM_LOG_LEVEL: "silent" } });
    for (const write of acknowledged.splice(0)) {
      checked += 1;
      const history = await call(hub.url, "GET", `/v1/projects/durable/state/${write.key}/history`, {
        token: key,
      });
      const ids =
        history.status === 200 ? history.json.items.map((/** @type {{id: string}} */ i) => i.id) : [];
      if (!ids.includes(write.proposalId)) lost += 1;
    }
    await hub.stop();
    return {
      tried: `${count(cycles)} cycles of ${WRITERS} concurrent writers making proposals to a hub process killed with SIGKILL after 30 to 300 ms, then ${count(checked)} acknowledged proposals looked up in the process started next on the same SQLite file.`,
      figures: [
        {
          label: "acknowledged proposals checked",
          value: count(checked),
          goal: "more than 0",
          held: checked > 0,
        },
        { label: "acknowledged proposals lost", value: count(lost), goal: "0", held: lost === 0 },
      ],
    };
  },
};
