// @ts-check
// Secrets: the seeded corpus of fake secrets (more than 50 kinds, each in several contexts) and benign look-alikes
// through the built `redactSecrets`, then a handful of corpus secrets sent to a real hub process in proposals,
// promotions, journal entries, reviews and episode lessons (summaries and evidence references), and looked for in
// the database file's bytes and the hub's log.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "@kxm/contract";
import { redactSecrets } from "@kxm/provenance";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { leaked, SECRET_KINDS, scoreCorpus, secretCases } from "../lib/secrets-corpus.mjs";
import { count, percent } from "../lib/stats.mjs";

const RECALL_GOAL = 0.99;
const FALSE_POSITIVE_GOAL = 0.01;

/** `kind: context, context` lines, one per kind, for the notes. @param {{ kind: string, context?: string }[]} cases */
function byKind(cases) {
  /** @type {Map<string, string[]>} */
  const kinds = new Map();
  for (const c of cases) kinds.set(c.kind, [...(kinds.get(c.kind) ?? []), ...(c.context ? [c.context] : [])]);
  return [...kinds].map(([kind, contexts]) =>
    contexts.length > 0 ? `${kind} (${[...new Set(contexts)].join(", ")})` : kind,
  );
}

/** The median time of one `redactSecrets` call over `texts`, in microseconds. @param {string[]} texts */
function medianMicros(texts) {
  const times = [];
  for (const text of texts) redactSecrets(text); // warm the patterns and the JIT
  for (const text of texts) {
    const started = process.hrtime.bigint();
    redactSecrets(text);
    times.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/**
 * A corpus case as one evidence reference: its text, cut to the reference limit when longer (only private keys
 * are; a bare key body without its BEGIN line is indistinguishable from base64, a cut one is still a key).
 * @param {import("../lib/secrets-corpus.mjs").SecretCase} c
 */
const asRef = (c) => c.text.slice(0, LIMITS.refChars);

/**
 * Sends `cases` through a hub process, each by one of three paths in turn, in a free text and in a reference list:
 * a proposal (summary and evidence refs); a journal entry (summary and evidence refs) and its review (evidence
 * refs); an episode's lessons and a promotion's evidence refs. Then searches the database files and the log for
 * each secret.
 * @param {string} scratch
 * @param {import("../lib/secrets-corpus.mjs").SecretCase[]} cases
 */
async function throughHub(scratch, cases) {
  const dbPath = join(scratch, "kxm.db");
  const hub = await startHubProcess({
    dbPath,
    adminToken: ADMIN,
    env: { KXM_LOG_LEVEL: "trace", KXM_RATE_LIMIT: "1000000" },
  });
  const stamp = Date.now().toString(36);
  const canary = `canary-${stamp}-kept-as-written`;
  const canaryRef = `canary-ref-${stamp}-kept-as-written`;
  let accepted = 0;
  let writes = 0;
  /** @type {string[]} */
  const refused = [];
  try {
    const key = await projectWithAgent(hub.url, ADMIN, "secrets");
    const opts = { token: key };
    const admin = { token: ADMIN };
    const check = (/** @type {{ status: number }} */ answer, /** @type {string} */ what, ok = 201) => {
      writes += 1;
      if (answer.status === ok) accepted += 1;
      else refused.push(`${what} answered ${answer.status}`);
      return answer.status === ok;
    };
    check(
      await call(hub.url, "POST", "/v1/projects/secrets/state/proposals", {
        ...opts,
        body: {
          ...proposal("secrets.canary", `The canary ${canary} must be stored as written.`),
          evidenceRefs: ["pr:12", canaryRef],
        },
      }),
      "canary proposal",
    );
    for (const [i, c] of cases.entries()) {
      const where = `${c.kind}/${c.context}`;
      const ref = asRef(c);
      if (i % 3 === 0) {
        const body = { ...proposal(`secrets.case${i}`, c.text), evidenceRefs: ["pr:12", ref] };
        check(await call(hub.url, "POST", "/v1/projects/secrets/state/proposals", { ...opts, body }), where);
        continue;
      }
      const run = await call(hub.url, "POST", "/v1/projects/secrets/runs", {
        ...opts,
        body: { workflow: "secrets" },
      });
      if (run.status !== 201) {
        refused.push(`${where}: startRun answered ${run.status}`);
        continue;
      }
      const runPath = `/v1/projects/secrets/runs/${run.json.run.id}`;
      /** @type {string | undefined} */
      let entryId;
      if (i % 3 === 1) {
        const body = {
          category: "observation",
          summary: c.text,
          stage: "verify",
          evidenceRefs: [ref, "ci:run-7"],
        };
        const entry = await call(hub.url, "POST", `${runPath}/journal`, { ...opts, body });
        if (check(entry, where)) entryId = entry.json.entry.id;
      }
      const lessons = i % 3 === 2 ? [c.text] : ["nothing to learn"];
      const finish = { outcome: "failed", failingStep: "deploy", lessons };
      check(
        await call(hub.url, "POST", `${runPath}/finish`, { ...opts, body: finish }),
        `${where} finish`,
        200,
      );
      if (entryId !== undefined) {
        const review = { evidenceRefs: ["review:ok", ref] };
        const path = `/v1/projects/secrets/journal/${entryId}/review`;
        check(await call(hub.url, "POST", path, { ...admin, body: review }), `${where} review`, 200);
      }
      if (i % 3 === 2) {
        const body = proposal(`secrets.case${i}`, "A value promoted with the secret as its evidence.");
        const proposed = await call(hub.url, "POST", "/v1/projects/secrets/state/proposals", {
          ...opts,
          body,
        });
        if (!check(proposed, `${where} proposal`)) continue;
        const path = `/v1/projects/secrets/state/proposals/${proposed.json.proposalId}/promote`;
        const promote = { evidenceRefs: [ref, "review:pr-12"] };
        check(await call(hub.url, "POST", path, { ...admin, body: promote }), `${where} promotion`, 200);
      }
    }
  } finally {
    await hub.stop();
  }
  // The database, and its write-ahead log and shared memory if they outlived the process.
  const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter((path) => existsSync(path));
  const database = files.map((path) => readFileSync(path).toString("latin1")).join("\n");
  const log = hub.log();
  return {
    accepted,
    writes,
    refused,
    canaryStored: database.includes(canary) && database.includes(canaryRef),
    inDatabase: cases.filter((c) => leaked(c.secret, database)),
    inLog: cases.filter((c) => leaked(c.secret, log)),
  };
}

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "secrets",
  title: "Secrets",
  order: 20,
  async run({ short, seed, scratch, progress }) {
    const seeds = short ? [seed] : Array.from({ length: 10 }, (_, i) => seed + i);
    let secrets = 0;
    let benign = 0;
    /** @type {import("../lib/secrets-corpus.mjs").SecretCase[]} */
    const misses = [];
    /** @type {import("../lib/secrets-corpus.mjs").BenignCase[]} */
    const falsePositives = [];
    /** @type {string[]} */
    let contexts = [];
    let kinds = 0;
    for (const s of seeds) {
      const score = scoreCorpus(redactSecrets, s);
      secrets += score.secrets;
      benign += score.benign;
      misses.push(...score.misses);
      falsePositives.push(...score.falsePositives);
      contexts = score.contexts;
      kinds = score.kinds;
    }
    progress(`corpus: ${secrets} secrets and ${benign} benign texts over ${seeds.length} seed(s)`);
    const recall = 1 - misses.length / secrets;
    const falsePositiveRate = falsePositives.length / benign;
    const cases = secretCases(seed);
    const micros = medianMicros(cases.map((c) => c.text));

    // One case per kind (full) or every fifth kind (short), the contexts taken in turn.
    const step = short ? 5 : 1;
    const picked = SECRET_KINDS.filter((_, i) => i % step === 0).map((kind, i) => {
      const ofKind = cases.filter((c) => c.kind === kind.kind);
      return /** @type {import("../lib/secrets-corpus.mjs").SecretCase} */ (ofKind[i % ofKind.length]);
    });
    const hub = await throughHub(scratch, picked);
    progress(`hub: ${hub.accepted} of ${hub.writes} writes accepted`);
    const found = [...hub.inDatabase, ...hub.inLog];

    return {
      tried: `${count(kinds)} kinds of fake secret in ${contexts.length} contexts (${count(secrets)} secrets) and ${count(benign)} benign look-alikes through the built redactSecrets, over ${seeds.length} seed(s); then ${count(picked.length)} of those secrets sent to a hub process in summaries, episode lessons and evidence references (of proposals, promotions, journal entries and their reviews), and searched for in its database files and its trace-level log.`,
      figures: [
        { label: "secret kinds", value: count(kinds), goal: "more than 50", held: kinds > 50 },
        {
          label: "contexts",
          value: `${contexts.length} (${contexts.join(", ")})`,
          goal: "at least 4",
          held: contexts.length >= 4,
        },
        { label: "secrets tried", value: count(secrets), goal: "more than 200", held: secrets > 200 },
        {
          label: "recall",
          value: percent(secrets - misses.length, secrets),
          goal: "at least 99%",
          held: recall >= RECALL_GOAL,
        },
        { label: "benign texts tried", value: count(benign), goal: "at least 200", held: benign >= 200 },
        {
          label: "false positive rate",
          value: percent(falsePositives.length, benign),
          goal: "at most 1%",
          held: falsePositiveRate <= FALSE_POSITIVE_GOAL,
        },
        {
          label: "median redactSecrets time per corpus text",
          value: `${micros.toFixed(0)} µs`,
          goal: "under 2 ms",
          held: micros < 2000,
        },
        {
          label: "hub writes accepted",
          value: `${count(hub.accepted)} of ${count(hub.writes)}`,
          goal: "all",
          held: hub.accepted === hub.writes,
        },
        {
          label: "canary text and canary reference found in the database file (the search works)",
          value: hub.canaryStored ? "yes" : "no",
          goal: "yes",
          held: hub.canaryStored,
        },
        {
          label: "secrets found in the database files or the hub's log",
          value: `${count(found.length)} of ${count(picked.length)}`,
          goal: "0",
          held: found.length === 0,
        },
      ],
      notes: [
        misses.length === 0 ? "No misses." : `Misses by kind (contexts): ${byKind(misses).join("; ")}.`,
        falsePositives.length === 0
          ? "No false positives."
          : `False positives by kind: ${byKind(falsePositives).join("; ")}.`,
        ...(hub.inDatabase.length > 0 ? [`In the database: ${byKind(hub.inDatabase).join("; ")}.`] : []),
        ...(hub.inLog.length > 0 ? [`In the log: ${byKind(hub.inLog).join("; ")}.`] : []),
        ...(hub.refused.length > 0 ? [`Refused writes: ${hub.refused.join("; ")}.`] : []),
        "A secret counts as removed only when no run of 8 of its characters survives; a benign text counts as a false positive when anything in it changes. Secrets are generated from their formats with a seeded generator, so none is real and none is written to the repository.",
      ],
    };
  },
};
