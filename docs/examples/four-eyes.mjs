// Four eyes between operators, on the embedded default: a hub on a free loopback port with a fresh SQLite file, two
// named operators (tokens minted with the admin token), alice proposing a policy-authority value, alice refused
// when she promotes her own proposal, bob promoting it, and the admin token refused when it promotes its own. Each
// line printed is one step's outcome. The hub is stopped and the temporary files removed at the end.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { readHubEnv, serveHub } from "@kxm/hub";

const work = mkdtempSync(join(tmpdir(), "kxm-four-eyes-"));
const checkout = join(work, "demo");
mkdirSync(checkout);
const adminToken = randomBytes(24).toString("base64url");
const env = readHubEnv({
  KXM_AUTH_TOKEN: adminToken,
  KXM_DB_PATH: join(work, ".kxm", "state", "kxm.db"),
  KXM_PORT: "0",
});
const hub = await serveHub({ env, logger: false, handleSignals: false });

/** The outcome of a call that may be refused: its answer, or its error code. */
async function attempt(call) {
  try {
    return await call();
  } catch (error) {
    if (isKxmError(error)) return { refused: error.code };
    throw error;
  }
}

try {
  const admin = createHubClient({ baseUrl: hub.url, token: adminToken });
  await admin.createProject({ body: { id: "demo", checkoutRoot: checkout } });
  const alice = createHubClient({
    baseUrl: hub.url,
    token: (await admin.createOperator({ body: { name: "alice" } })).token,
  });
  const bob = createHubClient({
    baseUrl: hub.url,
    token: (await admin.createOperator({ body: { name: "bob" } })).token,
  });
  const operators = await admin.listOperators({});
  console.log(`operators: ${operators.operators.map((operator) => operator.name).join(", ")}`);

  const policy = (key) => ({
    params: { project: "demo" },
    body: {
      key,
      summary: "Deploys run Tuesday to Thursday",
      authority: "policy",
      confidence: "verified",
      evidenceRefs: ["doc:release-policy"],
    },
  });
  const { proposalId } = await alice.proposeState(policy("deploy.window"));
  const promote = (client, id) =>
    attempt(() =>
      client.promoteState({
        params: { project: "demo", proposalId: id },
        body: { evidenceRefs: ["review:ops-3"] },
      }),
    );

  console.log(`alice promotes her own proposal: ${(await promote(alice, proposalId)).refused}`);
  const { state } = await promote(bob, proposalId);
  console.log(
    `bob promotes it: ${state.status}, ${state.authority} authority, origin ${state.provenance.sourceType}, ` +
      `${state.provenance.sourceRef}`,
  );
  const own = (await admin.proposeState(policy("freeze.window"))).proposalId;
  console.log(`the admin token promotes its own proposal: ${(await promote(admin, own)).refused}`);
  console.log(`alice manages operators: ${(await attempt(() => alice.listOperators({}))).refused}`);
} finally {
  await hub.close();
  rmSync(work, { recursive: true, force: true });
}
