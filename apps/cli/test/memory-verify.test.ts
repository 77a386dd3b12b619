import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  commitAll,
  expectFailureLine,
  expectJsonFailure,
  gitRepo,
  json,
  kxm,
  memoryFile,
  put,
} from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm memory verify` runs each fact's check as a real process (issue 20): a passing check, a failing one, one
// that times out (killed with its process group: its own child dies too) and the environment each sees. The
// committed record then makes a real hub withhold a failing fact whose policy is `withhold`.

const ADMIN = "admin-token-for-memory-verify-0123456789";
const NODE = JSON.stringify(process.execPath);

function withCheck(id: string, summary: string, check: string): string {
  return memoryFile(id, { summary: JSON.stringify(summary), check });
}

/** True while `pid` runs; a killed process nobody has reaped yet (a zombie, state Z) does not count. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

const hubs: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const hub of hubs) await hub.close();
});

describe("kxm memory verify", () => {
  test("records a pass, a failure and a killed timeout; the hub then withholds the withhold-policy failure", {
    timeout: 90_000,
  }, async () => {
    const root = await gitRepo();
    await put(
      root,
      ".kxm/memory/release-branch.md",
      withCheck(
        "release-branch",
        "Releases are cut from the release branch",
        // Passes only without KXM_* and STEEL_* secrets in its environment, and with the rest of it (PATH).
        `\n  command: ["sh", "-c", "test -z \\"$KXM_AUTH_TOKEN\\" && test -z \\"$STEEL_API_KEY\\" && test -n \\"$PATH\\""]`,
      ),
    );
    await put(
      root,
      ".kxm/memory/release-notes.md",
      withCheck(
        "release-notes",
        "Release notes are drafted before the release branch is cut",
        `\n  command: [${NODE}, "-e", "process.exit(3)"]`,
      ),
    );
    await put(
      root,
      ".kxm/memory/release-tests.md",
      withCheck(
        "release-tests",
        "The release branch test suite passes",
        `\n  command: ["sh", "-c", "sleep 60 & echo $! > grandchild.pid; wait"]\n  timeoutSeconds: 1\n  onFailure: withhold`,
      ),
    );
    await put(
      root,
      ".kxm/memory/release-owner.md",
      memoryFile("release-owner", { summary: '"The release branch belongs to Ana"' }),
    );
    await commitAll(root, "memory with checks");

    const started = Date.now();
    const run = await kxm(["memory", "verify"], {
      cwd: root,
      env: { KXM_AUTH_TOKEN: "secret-admin-token-value", STEEL_API_KEY: "steel-secret-value" },
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^release-branch: passed \(\d+ ms\)$/);
    expect(lines[1]).toMatch(/^release-notes: failed: exit 3 \(\d+ ms\)$/);
    expect(lines[2]).toMatch(
      /^release-tests: timed out after \d+ ms; killed with its process group \(withheld once committed\)$/,
    );
    expect(lines[3]).toBe("Recorded in .kxm/memory-checks.json; commit it so the hub sees the results.");
    expect(run.stderr).toBe("memory verify failed: 2 of 3 checks did not pass\n");
    expect(run.stdout + run.stderr).not.toContain("secret");

    // The timed-out check's own child was killed with it.
    const grandchild = Number((await readFile(join(root, "grandchild.pid"), "utf8")).trim());
    expect(Number.isInteger(grandchild)).toBe(true);
    await new Promise((done) => setTimeout(done, 200));
    expect(isAlive(grandchild)).toBe(false);

    const recorded = JSON.parse(await readFile(join(root, ".kxm/memory-checks.json"), "utf8"));
    const head = (await import("node:child_process"))
      .execFileSync("git", ["rev-parse", "HEAD"], { cwd: root })
      .toString()
      .trim();
    expect(recorded.schema).toBe("kxm.memory-checks.v1");
    expect(Object.keys(recorded.facts)).toEqual(["release-branch", "release-notes", "release-tests"]);
    expect(recorded.facts["release-branch"]).toMatchObject({ commit: head, result: "passed", exitCode: 0 });
    expect(recorded.facts["release-notes"]).toMatchObject({ result: "failed", exitCode: 3 });
    expect(recorded.facts["release-tests"]).toMatchObject({ result: "timed_out", exitCode: null });
    expect(recorded.facts["release-tests"].command).toEqual([
      "sh",
      "-c",
      "sleep 60 & echo $! > grandchild.pid; wait",
    ]);

    // validate reports the failing checks without failing.
    const validate = await kxm(["memory", "validate", "--json"], { cwd: root });
    expect(validate.code, validate.stderr).toBe(0);
    expect(json(validate).notices).toEqual([
      { file: ".kxm/memory/release-notes.md", id: "release-notes", notice: "check_failed" },
      { file: ".kxm/memory/release-tests.md", id: "release-tests", notice: "check_failed" },
    ]);
    // The brief leaves out the withheld fact and keeps the one whose policy only reports.
    const brief = json<{ facts: Array<{ id: string }> }>(
      await kxm(["memory", "brief", "--json"], { cwd: root }),
    );
    expect(brief.facts.map((fact) => fact.id)).toEqual(["release-branch", "release-notes", "release-owner"]);

    // Before the record is committed the hub serves every fact; once it is, the withhold-policy failure leaves.
    const hub = await startTestHub(ADMIN);
    hubs.push(hub);
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    const created = await fetch(`${hub.url}/v1/projects`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ id: "alpha", checkoutRoot: root }),
    });
    expect(created.status).toBe(201);
    const agent = await fetch(`${hub.url}/v1/projects/alpha/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ agentId: "agent-a" }),
    });
    const { key } = (await agent.json()) as { key: string };
    const packet = async () => {
      const response = await fetch(`${hub.url}/v1/projects/alpha/context`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ role: "critic", task: "release branch", includeKinds: ["knowledge"] }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        packet: { unresolvedGaps: string[] };
        audit: { selectedIds: string[] };
      };
      return { ids: [...body.audit.selectedIds].sort(), gaps: body.packet.unresolvedGaps };
    };
    expect((await packet()).ids).toEqual([
      "mem_release-branch",
      "mem_release-notes",
      "mem_release-owner",
      "mem_release-tests",
    ]);
    await commitAll(root, "record fact checks");
    expect(await packet()).toEqual({
      ids: ["mem_release-branch", "mem_release-notes", "mem_release-owner"],
      gaps: ["items_withheld:check_failed:1"],
    });
  });

  test("--fact runs only that check; an id without a check is memory_check_not_found and writes nothing", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();
    await put(
      root,
      ".kxm/memory/ok.md",
      withCheck("ok", "Always holds", `\n  command: [${NODE}, "-e", "process.exit(0)"]`),
    );
    await put(root, ".kxm/memory/plain.md", memoryFile("plain"));
    const none = await kxm(["memory", "verify", "--fact", "plain"], { cwd: root });
    expectFailureLine(none, "memory verify", "no active fact with a check has the id plain");
    expectJsonFailure(
      await kxm(["memory", "verify", "--fact", "nope", "--json"], { cwd: root }),
      "memory_check_not_found",
    );
    expect(existsSync(join(root, ".kxm/memory-checks.json"))).toBe(false);
    const only = await kxm(["memory", "verify", "--fact", "ok", "--json"], { cwd: root });
    expect(only.code, only.stderr).toBe(0);
    const result = json<{
      ok: boolean;
      commit: string | null;
      facts: Array<{ id: string; record: { result: string } }>;
    }>(only);
    expect(result.ok).toBe(true);
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(result.facts.map((fact) => [fact.id, fact.record.result])).toEqual([["ok", "passed"]]);
  });
});

describe("kxm memory validate and brief with dates", () => {
  test("an expired fact leaves the brief and sync; validate reports it and a review-due one", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/gone.md", memoryFile("gone", { expiresAt: "2000-01-01" }));
    await put(root, ".kxm/memory/due.md", memoryFile("due", { reviewBy: "2000-01-01T00:00:00Z" }));
    await put(
      root,
      ".kxm/memory/later.md",
      memoryFile("later", { expiresAt: "2999-01-01", reviewBy: "2998-01-01" }),
    );
    await put(root, "AGENTS.md", "# Agents\n");
    const validate = await kxm(["memory", "validate"], { cwd: root });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toBe(
      ".kxm/memory/due.md: due for review (reviewBy passed): still served\n" +
        ".kxm/memory/gone.md: expired (expiresAt passed): withheld from agents\n" +
        "Checked 3 memory files: no problems.\n",
    );
    const brief = json<{ facts: Array<{ id: string }> }>(
      await kxm(["memory", "brief", "--json"], { cwd: root }),
    );
    expect(brief.facts.map((fact) => fact.id)).toEqual(["due", "later"]);
    const sync = json<{ block: string }>(await kxm(["memory", "sync", "--dry-run", "--json"], { cwd: root }));
    expect(sync.block).toContain("(`due`)");
    expect(sync.block).not.toContain("(`gone`)");
  });

  test("a date that is not a date is a problem", { timeout: 60_000 }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/bad.md", memoryFile("bad", { expiresAt: "soon" }));
    const validate = await kxm(["memory", "validate"], { cwd: root });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(
      ".kxm/memory/bad.md: expiresAt: must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone",
    );
  });
});

describe("kxm context propose with dates", () => {
  test("--expires-at and --review-by reach the proposal; a past expiry is invalid_state_proposal", {
    timeout: 60_000,
  }, async () => {
    const hub = await startTestHub(ADMIN);
    hubs.push(hub);
    const created = await fetch(`${hub.url}/v1/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "demo" }),
    });
    expect(created.status).toBe(201);
    const cwd = await gitRepo();
    const env = { KXM_AUTH_TOKEN: ADMIN, KXM_HUB_URL: hub.url };
    const flags = [
      "--key",
      "release.branch",
      "--summary",
      "Releases are cut from main",
      "--authority",
      "evidence",
    ];
    const more = ["--confidence", "verified", "--evidence", "pr:12"];
    const proposed = await kxm(
      [
        "context",
        "propose",
        "demo",
        ...flags,
        ...more,
        "--review-by",
        "2999-01-01T00:00:00Z",
        "--expires-at",
        "2999-02-01T00:00:00Z",
        "--json",
      ],
      { cwd, env },
    );
    expect(proposed.code, proposed.stderr).toBe(0);
    const { proposalId } = json<{ proposalId: string }>(proposed);
    const history = await fetch(`${hub.url}/v1/projects/demo/state/release.branch/history`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const body = (await history.json()) as {
      items: Array<{ id: string; expiresAt?: string; reviewBy?: string }>;
    };
    expect(body.items.find((item) => item.id === proposalId)).toMatchObject({
      expiresAt: "2999-02-01T00:00:00Z",
      reviewBy: "2999-01-01T00:00:00Z",
    });
    const past = await kxm(
      ["context", "propose", "demo", ...flags, ...more, "--expires-at", "2000-01-01T00:00:00Z", "--json"],
      {
        cwd,
        env,
      },
    );
    expectJsonFailure(past, "invalid_state_proposal", /expiresAt/);
  });
});
