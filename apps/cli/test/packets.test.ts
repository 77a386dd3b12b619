import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectFailureLine, gitRepo, json, kxm, type RunResult } from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm context packets`, `kxm context packet` and `kxm context replay` against a real hub (serveHub on a free loopback port, a temporary
// SQLite file), as built CLI processes: what they print, --json exactly the route's answer, and an agent refused.

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const PROJECT = "demo";

let hub: { url: string; close(): Promise<void> };
let admin: HubClient;
let agentKey: string;
let checkout: string;

function cli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return kxm(args, { cwd: checkout, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN, ...env } });
}

const packetIds: string[] = [];
/** The packets as served, in the order of `packetIds`. */
const answers: unknown[] = [];

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  checkout = await gitRepo("kxm-cli-packets-");
  await admin.createProject({ body: { id: PROJECT } });
  agentKey = (await admin.createAgentKey({ params: { project: PROJECT }, body: { agentId: "planner" } })).key;
  const agent = createHubClient({ baseUrl: hub.url, token: agentKey });
  const { proposalId } = await agent.proposeState({
    params: { project: PROJECT },
    body: {
      key: "release.branch",
      summary: "Releases are cut from the main branch",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    },
  });
  await admin.promoteState({
    params: { project: PROJECT, proposalId },
    body: { evidenceRefs: ["review:1"] },
  });
  const { run } = await agent.startRun({
    params: { project: PROJECT },
    body: { workflow: "release", runId: "run-7" },
  });
  for (const body of [
    { role: "planner", task: "Which branch do we release from?" },
    { role: "critic", task: "release branch", runId: run.id },
    { role: "planner", task: "Which branch do we release from?" },
  ]) {
    const answer = await agent.getContext({ params: { project: PROJECT }, body });
    answers.push(answer);
    packetIds.push(answer.audit.packetId!);
  }
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe("kxm context packets", () => {
  test("prints one line per packet, last served first, and the next page's command", async () => {
    const all = await cli(["context", "packets", PROJECT]);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("2 packets in demo, last served first");
    // The planner's packet was served twice, the second time after the critic's.
    expect(lines[1]).toMatch(
      new RegExp(`^  ${packetIds[0]}  \\S+Z  planner: 1 item, \\d+ of 16000 tokens, 0 gaps, served 2 times$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^  ${packetIds[1]}  \\S+Z  critic: .*, served 1 time, run run-7$`));
    expect(packetIds[2]).toBe(packetIds[0]);

    const page = await cli(["context", "packets", PROJECT, "--limit", "1"]);
    expect(page.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^More: kxm context packets demo --limit 1 --cursor [A-Za-z0-9_-]+$/,
    );
    const run = await cli(["context", "packets", PROJECT, "--run", "run-7"]);
    expect(run.stdout.split("\n")[0]).toBe("1 packet in demo, run run-7, last served first");
  });

  test("--json prints the route's answer unchanged; an agent key is refused", async () => {
    const listed = await cli(["context", "packets", PROJECT, "--limit", "1", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(json(listed)).toEqual(
      await admin.listPackets({ params: { project: PROJECT }, query: { limit: 1 } }),
    );

    const refused = await cli(["context", "packets", PROJECT], {
      KXM_AUTH_TOKEN: undefined,
      KXM_AGENT_KEY: agentKey,
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
  });
});

describe("kxm context packet", () => {
  test("prints the stored audit: request without the task, sections with scores, gaps and memory", async () => {
    const shown = await cli(["context", "packet", PROJECT, packetIds[0]!]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${packetIds[0]}: demo, role planner, a task of 32 characters`);
    expect(lines[1]).toMatch(/^Served 2 times: first \S+Z, last \S+Z$/);
    expect(lines[2]).toMatch(/^Assembled by kxm-rank-1 at change \d+; request SHA-256 [0-9a-f]{64}$/);
    expect(lines[3]).toMatch(
      /^Selected 1 of 1 candidate, \d+ of 16000 tokens; 1 superseded or rejected excluded$/,
    );
    expect(lines[4]).toBe("currentState (1)");
    expect(lines[5]).toMatch(/^ {2}0\.791 {2}state_[0-9a-f]{24}$/);
    expect(lines.slice(-2)).toEqual(["Gaps: none", "Memory: no checkout"]);
    expect(shown.stdout).not.toContain("Which branch");
  });

  test("--json prints the route's answer; an unknown or malformed id fails with one line", async () => {
    const shown = await cli(["context", "packet", PROJECT, packetIds[1]!, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(json(shown)).toEqual(
      await admin.getPacket({ params: { project: PROJECT, packetId: packetIds[1]! } }),
    );
    expectFailureLine(
      await cli(["context", "packet", PROJECT, `pkt_${"0".repeat(32)}`]),
      "context packet",
      /not_found|no stored packet/,
    );
    expectFailureLine(await cli(["context", "packet", PROJECT, "pkt_nope"]), "context packet", /.+/);
  });
});

describe("kxm context replay", () => {
  test("rebuilds a packet after later writes: what get printed, and --json exactly the served answer", async () => {
    // The pool moves on after the packets were served: a new value for the key.
    const agent = createHubClient({ baseUrl: hub.url, token: agentKey });
    const { proposalId } = await agent.proposeState({
      params: { project: PROJECT },
      body: {
        key: "release.branch",
        summary: "Releases are cut from the release branch",
        authority: "evidence",
        confidence: "verified",
        evidenceRefs: ["pr:13"],
      },
    });
    await admin.promoteState({
      params: { project: PROJECT, proposalId },
      body: { evidenceRefs: ["review:2"] },
    });

    const shown = await cli([
      "context",
      "replay",
      PROJECT,
      packetIds[0]!,
      "--task",
      "Which branch do we release from?",
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`Replayed ${packetIds[0]}: the packet as the hub served it.`);
    expect(lines[1]).toMatch(
      /^Context packet for demo, role planner: 1 item selected of 1 candidate, \d+ of 16000 tokens$/,
    );
    expect(lines[3]).toContain("Releases are cut from the main branch");

    const taskFile = join(checkout, "task.txt");
    await writeFile(taskFile, "release branch");
    const exact = await cli(["context", "replay", PROJECT, packetIds[1]!, "--task-file", taskFile, "--json"]);
    expect(exact.code, exact.stderr).toBe(0);
    expect(json(exact)).toEqual(answers[1]);
  });

  test("a task that differs, or a task file that cannot be read, fails with one line", async () => {
    expectFailureLine(
      await cli(["context", "replay", PROJECT, packetIds[0]!, "--task", "Which branch do we release from"]),
      "context replay",
      /not the one packet pkt_[0-9a-f]{32} was assembled for/,
    );
    expectFailureLine(
      await cli(["context", "replay", PROJECT, packetIds[0]!, "--task-file", join(checkout, "missing.txt")]),
      "context replay",
      /^cannot read the task file .*missing\.txt \(ENOENT\)$/,
    );
  });
});
