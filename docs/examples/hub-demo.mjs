// KXM's main job on the embedded default, start to finish: a hub on a free loopback port with a fresh SQLite file,
// a project whose checkout holds a committed memory fact, an agent key, an agent's proposal for `release.branch`
// promoted by the operator with evidence, and the planner's packet, printed. Nothing to install: SQLite is
// embedded. The hub is stopped and the temporary files removed at the end.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHubClient } from "@kxm/contract/client";
import { readHubEnv, serveHub } from "@kxm/hub";

const work = mkdtempSync(join(tmpdir(), "kxm-demo-"));
const checkout = join(work, "demo");
const adminToken = randomBytes(24).toString("base64url");
const step = (text) => console.error(`• ${text}`);

// A project checkout with one reviewed, committed memory fact.
mkdirSync(join(checkout, ".kxm", "memory"), { recursive: true });
writeFileSync(
  join(checkout, ".kxm", "memory", "test-runner.md"),
  [
    "---",
    "schema: kxm.memory.v1",
    "id: test-runner",
    "scope: project",
    "kind: convention",
    "summary: Run the test suite with npm test before every commit",
    "provenance:",
    "  sourceType: git",
    "  sourceRef: docs/testing.md",
    "authority: instruction",
    "confidence: verified",
    "lifecycle: active",
    "---",
    "",
  ].join("\n"),
);
const git = (...args) => execFileSync("git", ["-C", checkout, ...args], { stdio: "ignore" });
git("init", "-q");
git("add", ".");
git(
  "-c",
  "user.name=Demo",
  "-c",
  "user.email=demo@example.com",
  "commit",
  "-q",
  "-m",
  "Add the test-runner fact",
);

const env = readHubEnv({
  KXM_AUTH_TOKEN: adminToken,
  KXM_DB_PATH: join(work, ".kxm", "state", "kxm.db"),
  KXM_PORT: "0",
});
const hub = await serveHub({ env, logger: false, handleSignals: false });
try {
  step(`hub listening on ${hub.url} with ${env.dbPath}`);
  const admin = createHubClient({ baseUrl: hub.url, token: adminToken });
  await admin.createProject({ body: { id: "demo", checkoutRoot: checkout } });
  const { key } = await admin.createAgentKey({
    params: { project: "demo" },
    body: { agentId: "agent-planner" },
  });
  step("project demo registered; agent key created for agent-planner");

  // The agent proposes (origin peer, capped at evidence); the operator promotes with review evidence.
  const agent = createHubClient({ baseUrl: hub.url, token: key });
  const { proposalId } = await agent.proposeState({
    params: { project: "demo" },
    body: {
      key: "release.branch",
      summary: "Releases are cut from the main branch",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    },
  });
  const { state } = await admin.promoteState({
    params: { project: "demo", proposalId },
    body: { evidenceRefs: ["review:pr-12"] },
  });
  step(
    `promoted release.branch: ${JSON.stringify({ status: state.status, evidenceRefs: state.evidenceRefs })}`,
  );

  const { packet, audit } = await admin.getContext({
    params: { project: "demo" },
    body: { role: "planner", task: "Which branch do we release from?" },
  });
  console.log(JSON.stringify({ packet, audit }, null, 2));
  console.log(
    JSON.stringify({
      state: packet.currentState.map((item) => item.summary),
      knowledge: packet.knowledge.map((item) => item.id),
      gaps: packet.unresolvedGaps,
      relevance: audit.relevance,
    }),
  );
} finally {
  await hub.close();
  rmSync(work, { recursive: true, force: true });
  step("hub stopped");
}
