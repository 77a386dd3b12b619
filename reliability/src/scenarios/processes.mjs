// @ts-check
// Several hub processes on one SQLite file: proposals, promotions and journal entries written through one process
// at a time (and, every few rounds, through two at once), with a packet read from every process after each write.
// Each process must see the others' writes before it assembles (decision 0006), so every packet holds at most one
// current value per key, unless it flags the pair as a contradiction, and all processes answer the same bytes.
import { join } from "node:path";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import {
  catchUpDurations,
  expectCall,
  packetsFromEvery,
  startHubs,
  unflaggedDoubleCurrent,
} from "../lib/processes.mjs";
import { count, percent, percentile } from "../lib/stats.mjs";

const PROJECT = "processes";
const KEY = "release.branch";
const RACED = "deploy.window";
/** Two roles, so journal entries reach some packets and not others. */
const REQUESTS = [
  { role: "planner", task: "release branch deploy window decision" },
  { role: "reviewer", task: "release branch deploy window lesson" },
];

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "processes",
  title: "Several hub processes on one database",
  order: 30,
  async run({ short, scratch, progress }) {
    const processes = short ? 2 : 3;
    const rounds = short ? 30 : 200;
    const hubs = await startHubs(processes, {
      dbPath: join(scratch, "kxm.db"),
      adminToken: ADMIN,
      logLevel: "debug",
    });
    try {
      const agent = await projectWithAgent(hubs[0].url, ADMIN, PROJECT);
      await expectCall(hubs[0].url, "POST", `/v1/projects/${PROJECT}/runs`, 201, {
        token: agent,
        body: { workflow: "release", runId: "run-processes" },
      });
      let packets = 0;
      let doubleCurrent = 0;
      let differing = 0;
      let writes = 0;
      /**
       * Milliseconds of the first read after a write: on another process (it catches up through the feed), on the
       * writing process (it applies its own write, as before there was a feed), and a read with nothing new.
       */
      const caughtUp = [];
      const own = [];
      const idle = [];

      /** Reads every request from every process; counts what is wrong. */
      const check = async () => {
        for (const request of REQUESTS) {
          const answers = await packetsFromEvery(hubs, PROJECT, agent, request);
          packets += answers.length;
          for (const answer of answers) {
            if (unflaggedDoubleCurrent(answer.json.packet).length > 0) doubleCurrent += 1;
          }
          if (answers.some((answer) => answer.text !== answers[0]?.text)) differing += 1;
        }
      };
      /** A timed packet read on `hub`. @param {{ url: string }} hub */
      const timedRead = async (hub) => {
        const started = performance.now();
        const answer = await call(hub.url, "POST", `/v1/projects/${PROJECT}/context`, {
          token: agent,
          body: REQUESTS[0],
        });
        const elapsed = performance.now() - started;
        if (answer.status !== 200) throw new Error(`context answered ${answer.status}`);
        return elapsed;
      };
      /**
       * After a write through `writer`: the writer reads (its own write), the next process reads twice (caught up,
       * then idle), then every process is checked.
       */
      const afterWrite = async (/** @type {number} */ writer) => {
        writes += 1;
        own.push(await timedRead(hubs[writer]));
        const reader = hubs[(writer + 1) % hubs.length];
        caughtUp.push(await timedRead(reader));
        idle.push(await timedRead(reader));
        await check();
      };

      await check();
      for (let round = 0; round < rounds; round += 1) {
        const at = (/** @type {number} */ offset) => (round + offset) % hubs.length;
        const proposed = await expectCall(
          hubs[at(0)].url,
          "POST",
          `/v1/projects/${PROJECT}/state/proposals`,
          201,
          {
            token: agent,
            body: proposal(KEY, `Releases are cut from branch release-${round}`),
          },
        );
        await afterWrite(at(0));
        await expectCall(
          hubs[at(1)].url,
          "POST",
          `/v1/projects/${PROJECT}/state/proposals/${proposed.proposalId}/promote`,
          200,
          { token: ADMIN, body: { evidenceRefs: [`review:${round}`] } },
        );
        await afterWrite(at(1));
        await expectCall(hubs[at(2)].url, "POST", `/v1/projects/${PROJECT}/runs/run-processes/journal`, 201, {
          token: agent,
          body: {
            category: round % 2 === 0 ? "decision" : "lesson",
            summary: `Round ${round}: the release branch and deploy window were checked`,
            ...(round % 2 === 0 ? {} : { evidenceRefs: [`ci:${round}`] }),
          },
        });
        await afterWrite(at(2));
        if (round % 5 === 4) {
          // Two processes propose the raced key at once (two pending proposals: an open contradiction), then both
          // promote at once; one current value must remain.
          const raced = await Promise.all(
            [at(0), at(1)].map((n, side) =>
              expectCall(hubs[n].url, "POST", `/v1/projects/${PROJECT}/state/proposals`, 201, {
                token: agent,
                body: proposal(RACED, `Deploys run in window ${round}-${side}`),
              }),
            ),
          );
          writes += 2;
          await check();
          await Promise.all(
            raced.map((one, side) =>
              call(
                hubs[at(side)].url,
                "POST",
                `/v1/projects/${PROJECT}/state/proposals/${one.proposalId}/promote`,
                {
                  token: ADMIN,
                  body: { evidenceRefs: [`review:race-${round}`] },
                },
              ),
            ),
          );
          writes += 2;
          await check();
        }
        if ((round + 1) % 10 === 0) progress(`${round + 1} of ${rounds} rounds`);
      }

      const [other, self, quiet] = [caughtUp, own, idle].map((times) => percentile(times, 50));
      const inside = hubs.flatMap((hub) => catchUpDurations(hub));
      const catchUp = percentile(inside, 50);
      return {
        tried: `${count(processes)} hub processes on one SQLite file; ${count(rounds)} rounds of a proposal, a promotion and a journal entry each written through a different process (and every fifth round two proposals and two promotions of one key through two processes at once), ${count(writes)} writes in all, with ${REQUESTS.length} packets read from every process after each.`,
        figures: [
          { label: "rounds", value: count(rounds), goal: "more than 0", held: rounds > 0 },
          { label: "packets checked", value: count(packets), goal: "more than 0", held: packets > 0 },
          {
            label: "packets with two current values for a key not flagged as a contradiction",
            value: count(doubleCurrent),
            goal: "0",
            held: doubleCurrent === 0,
          },
          {
            label: "reads after the same write whose packets differ between processes",
            value: count(differing),
            goal: "0",
            held: differing === 0,
          },
          {
            label: "p50 time a read spends catching up with the change feed, inside the hub",
            value: `${catchUp.toFixed(3)} ms over ${count(inside.length)} catch-ups (${percent(catchUp, quiet)} of an idle read's ${quiet.toFixed(2)} ms)`,
            // Measured inside the hub, where the machine's scheduling weighs least: 0.9 to 1.5 ms on the shared
            // 2-core machine at a load average of 20 and more.
            goal: "at most 2 ms",
            held: inside.length > 0 && catchUp <= 2,
          },
        ],
        notes: [
          `Over loopback HTTP, the p50 of the first read after another process's write was ${other.toFixed(2)} ms, of the first read after the process's own write ${self.toFixed(2)} ms, and of an idle read ${quiet.toFixed(2)} ms. Both first reads catch up the same way (a process's own writes reach its pools through the feed too); the HTTP times include the machine's scheduling, so the catch-up itself is measured inside the hub (the debug log line \`pools_caught_up\`).`,
        ],
      };
    } finally {
      await Promise.all(hubs.map((hub) => hub.stop()));
    }
  },
};
