import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHub } from "@kxm/hub";
import { openStore } from "@kxm/state-store";

const dir = mkdtempSync(join(tmpdir(), "kxm-time-"));
const store = openStore({ path: join(dir, "kxm.db") });
const app = await buildHub({ store, adminToken: "t".repeat(40), logger: false });
const admin = { authorization: `Bearer ${"t".repeat(40)}` };
await app.inject({ method: "POST", url: "/v1/projects", headers: admin, payload: { id: "p" } });
const key = (
  await app.inject({
    method: "POST",
    url: "/v1/projects/p/agents",
    headers: admin,
    payload: { agentId: "a" },
  })
).json().key;
const auth = { authorization: `Bearer ${key}` };
for (let i = 0; i < 300; i++)
  await app.inject({
    method: "POST",
    url: "/v1/projects/p/state/proposals",
    headers: auth,
    payload: {
      key: `k.${i}`,
      summary: `value ${i} of the release branch policy and build cache`,
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:1"],
    },
  });
for (let i = 0; i < 150; i++) {
  const id = (
    await app.inject({ method: "GET", url: `/v1/projects/p/state/k.${i}/history`, headers: auth })
  ).json().items[0].id;
  await app.inject({
    method: "POST",
    url: `/v1/projects/p/state/proposals/${id}/promote`,
    headers: admin,
    payload: { evidenceRefs: ["r:1"] },
  });
}
const head = await store.changeHead();
await store.changesSince(head);
const t = performance.now();
for (let i = 0; i < 20000; i++) await store.changesSince(head);
const feed = ((performance.now() - t) / 20000) * 1000;
const body = { role: "planner", task: "release branch policy build cache" };
const ctx = async () =>
  app.inject({ method: "POST", url: "/v1/projects/p/context", headers: auth, payload: body });
const first = await ctx();
console.log(first.statusCode, first.body.length);
for (let i = 0; i < 300; i++) await ctx();
const real = store.changesSince.bind(store);
const fake = async () => ({ head, reset: false, changes: [] });
const withCheck = [],
  without = [];
for (let block = 0; block < 40; block++) {
  const list = block % 2 === 0 ? withCheck : without;
  store.changesSince = block % 2 === 0 ? real : fake;
  for (let i = 0; i < 100; i++) {
    const s = performance.now();
    await ctx();
    list.push(performance.now() - s);
  }
}
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  JSON.stringify({
    idleChangesSinceUs: feed.toFixed(2),
    contextP50WithCheckMs: p50(withCheck).toFixed(4),
    contextP50NoCheckMs: p50(without).toFixed(4),
  }),
);
await app.close();
await store.close();
