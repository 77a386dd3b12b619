// A separate process for the multi-process tests. It runs the BUILT package (dist/), because a plain Node process
// cannot load the TypeScript sources; processes.test.ts checks that dist/ is newer than src/ first.
// Each worker reports `{ready: true}` once loaded and starts when it receives a message. Modes (process.argv[2]),
// each answering through the fork IPC channel:
//   open <file>                                 open and close the store
//   promote <file> <project> <key> <worker> <rounds> <shared ids JSON>
//                                               race for the shared proposals, then propose and promote its own
//   write <file> <project>                      start runs forever, acknowledging each one after it returned
import { openStore } from "../../dist/index.js";

const [mode, file, ...args] = process.argv.slice(2);

function codeOf(error) {
  return typeof error === "object" && error !== null && "code" in error ? error.code : String(error);
}

async function promoteLoop(store, project, key, worker, rounds, shared) {
  const won = [];
  const refused = {};
  // Every worker races for the same proposals, each starting at another point of the list (so they collide
  // wherever one catches up with another), then promotes values of its own.
  const start = (Number(worker) * Math.ceil(shared.length / 3)) % shared.length;
  for (const proposalId of [...shared.slice(start), ...shared.slice(0, start)]) {
    try {
      await store.promoteState(
        { project, proposalId, promotedBy: `admin-${worker}`, evidenceRefs: [`review:${worker}`] },
        new Date(),
      );
      won.push(proposalId);
    } catch (error) {
      refused[codeOf(error)] = (refused[codeOf(error)] ?? 0) + 1;
    }
  }
  for (let i = 0; i < rounds; i++) {
    const own = await store.proposeState(
      {
        project,
        key,
        summary: `value from worker ${worker} round ${i}`,
        authority: "evidence",
        confidence: "probable",
        evidenceRefs: [`pr:${worker}-${i}`],
        origin: "peer",
        proposedBy: `agent-${worker}`,
      },
      new Date(),
    );
    await store.promoteState(
      { project, proposalId: own.id, promotedBy: `admin-${worker}`, evidenceRefs: ["review:own"] },
      new Date(),
    );
  }
  return { won, refused };
}

/** Imports are done (the slow part of starting); wait until the test has every worker ready, so they race. */
function startSignal() {
  return new Promise((resolve) => {
    process.once("message", resolve);
    process.send({ ready: true });
  });
}

async function main() {
  await startSignal();
  const store = openStore({ path: file });
  try {
    if (mode === "open") {
      process.send({ ok: true });
    } else if (mode === "promote") {
      const [project, key, worker, rounds, shared] = args;
      process.send({
        ok: true,
        ...(await promoteLoop(store, project, key, worker, Number(rounds), JSON.parse(shared))),
      });
    } else if (mode === "write") {
      const [project] = args;
      for (let i = 0; ; i++) {
        const run = await store.startRun({ project, workflow: "ci", runId: `w${i}` }, new Date());
        process.send({ ack: run.id });
        if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    await store.close();
  }
}

main().catch((error) => {
  process.send({ ok: false, code: codeOf(error), message: String(error?.message ?? error) });
  process.exitCode = 1;
});
