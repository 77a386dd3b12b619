import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BIN,
  baseEnv,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  MANIFEST,
  type RunResult,
  rootlessDir,
  STACK_FRAME,
  tempDir,
} from "./support/cli.js";
import { startTestHub } from "./support/hub.js";
import { CLI_DOC, expectDocumented, manifestCommands } from "./support/reference.js";

// `kxm hub`: serve (a real child process, stopped by a signal), projects and agent keys against a real hub; and
// the --help, manifest and reference page of every `kxm context` and `kxm hub` command.

const ADMIN_TOKEN = "test-admin-token-fedcba9876543210";

/** Every command this file and context.test.ts cover, as oclif ids. */
const HUB_COMMAND_IDS = [
  "context:episode",
  "context:explain",
  "context:get",
  "context:promote",
  "context:propose",
  "context:recall",
  "context:state",
  "hub:agents:add",
  "hub:agents:list",
  "hub:agents:revoke",
  "hub:agents:rotate",
  "hub:operators:add",
  "hub:operators:list",
  "hub:operators:revoke",
  "hub:projects:add",
  "hub:projects:list",
  "hub:projects:remove",
  "hub:projects:update",
  "hub:serve",
] as const;

let hub: { url: string; close(): Promise<void> };
let admin: HubClient;

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

function cli(args: readonly string[], cwd: string, env: Record<string, string | undefined> = {}) {
  return kxm(args, { cwd, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN, ...env } });
}

describe("kxm hub projects", () => {
  test("add registers the project root found from --cwd (absolute); list shows it", async () => {
    const root = await gitRepo();
    const nested = join(root, "src", "deep");
    await mkdir(nested, { recursive: true });
    // Outside any project there is no root to register; --cwd names one.
    const outside = await cli(["hub", "projects", "add", "alpha"], rootlessDir());
    expectFailureLine(
      outside,
      "hub projects add",
      "no folder holding .kxm/ or .git above the current folder",
    );
    const added = await cli(["hub", "projects", "add", "alpha", "--cwd", nested], tempDir());
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toBe("");
    expect(added.stdout).toBe(`Registered project alpha (checkout ${root})\n`);

    const list = await cli(["hub", "projects", "list", "--json"], root);
    expect(list.code, list.stderr).toBe(0);
    const answer = json<{ projects: Array<{ id: string; checkoutRoot: string | null }> }>(list);
    expect(answer).toEqual(await admin.listProjects({}));
    expect(answer.projects.find((project) => project.id === "alpha")?.checkoutRoot).toBe(root);

    const human = await cli(["hub", "projects", "list"], root);
    expect(human.stdout).toMatch(new RegExp(`^alpha {2}${root.replaceAll(".", "\\.")} {2}\\d{4}-`, "m"));
  });

  test("add --checkout takes a folder relative to --cwd; --json is the hub's answer", async () => {
    const root = await gitRepo();
    await mkdir(join(root, "sub"));
    const result = await cli(["hub", "projects", "add", "beta", "--checkout", "sub", "--json"], root);
    expect(result.code, result.stderr).toBe(0);
    const { project } = json<{ project: { id: string; checkoutRoot: string; createdAt: string } }>(result);
    expect(Object.keys(project).sort()).toEqual(["checkoutRoot", "createdAt", "id"]);
    expect(project.id).toBe("beta");
    expect(project.checkoutRoot).toBe(join(root, "sub"));

    const missing = await cli(["hub", "projects", "add", "gamma", "--checkout", "nowhere"], root);
    expectUsageError(missing, "hub projects add", "--checkout: no folder at nowhere");
  });

  test("an unset or wrong admin token fails with invalid_auth", async () => {
    const cwd = await gitRepo();
    const [unset, wrong] = await Promise.all([
      cli(["hub", "projects", "list"], cwd, { KXM_AUTH_TOKEN: undefined }),
      cli(["hub", "projects", "list", "--json"], cwd, { KXM_AUTH_TOKEN: "wrong-token-wrong-token" }),
    ]);
    expectFailureLine(
      unset,
      "hub projects list",
      /^the hub refused the admin token \(KXM_AUTH_TOKEN is unset\)/,
    );
    expectJsonFailure(wrong, "invalid_auth");
  });
});

describe.concurrent("kxm hub agents", () => {
  test("add prints the key once, says it will not be shown again, and the key works for the agent", async () => {
    const cwd = await gitRepo();
    await admin.createProject({ body: { id: "delta", checkoutRoot: cwd } });
    const result = await cli(["hub", "agents", "add", "delta", "planner"], cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const keys = result.stdout.match(/kxm_[A-Za-z0-9_-]{43}/g) ?? [];
    expect(keys).toHaveLength(1);
    const key = keys[0] ?? "";
    expect(result.stdout).toBe(
      `Created a key for agent planner in project delta:\n\n  ${key}\n\nStore it now: it will not be shown again.\n`,
    );

    // The key is an agent credential for delta: it reaches delta's packet, and nothing lists it again.
    const asAgent = createHubClient({ baseUrl: hub.url, token: key });
    const packet = await asAgent.getContext({
      params: { project: "delta" },
      body: { role: "planner", task: "What is the release branch?" },
    });
    expect(packet.packet.project).toBe("delta");
    const list = await cli(["hub", "projects", "list", "--json"], cwd);
    expect(list.stdout).not.toContain(key);

    // Revoked, the key is refused.
    const revoke = await cli(["hub", "agents", "revoke", "delta", "planner"], cwd);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stdout).toBe("Revoked the key of agent planner in project delta\n");
    await expect(
      asAgent.getContext({ params: { project: "delta" }, body: { role: "planner", task: "x" } }),
    ).rejects.toMatchObject({ code: "invalid_auth" });
    const again = await cli(["hub", "agents", "revoke", "delta", "planner", "--json"], cwd);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toEqual({ revoked: false });
  });

  test("add --json is {project, agentId, key}; an unknown project is not_found", async () => {
    const cwd = await gitRepo();
    await admin.createProject({ body: { id: "epsilon", checkoutRoot: cwd } });
    const result = await cli(["hub", "agents", "add", "epsilon", "critic-arch", "--json"], cwd);
    expect(result.code, result.stderr).toBe(0);
    const answer = json<{ project: string; agentId: string; key: string }>(result);
    expect(Object.keys(answer)).toEqual(["project", "agentId", "key"]);
    expect(answer.project).toBe("epsilon");
    expect(answer.agentId).toBe("critic-arch");
    expect(answer.key).toMatch(/^kxm_/);

    const unknown = await cli(["hub", "agents", "add", "no-such-project", "planner", "--json"], cwd);
    expectJsonFailure(unknown, "not_found");
  });
});

/** A running `kxm hub serve`, its stdout so far, and how it ended. */
interface Served {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "hub", "serve", ...args], {
      cwd,
      env: baseEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once("exit", (code, signal) => done({ code, signal })),
    );
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kxm hub serve did not print its URL in time; stdout: ${stdout}; stderr: ${stderr}`));
    }, 30_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /(?:listening on |"url": ?")(http:\/\/[^\s"]+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] ?? "", stdout: () => stdout, stderr: () => stderr, exited });
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(
        new Error(`kxm hub serve exited ${code} before listening; stdout: ${stdout}; stderr: ${stderr}`),
      );
    });
  });
}

describe.concurrent("kxm hub serve", () => {
  test.for(["SIGTERM", "SIGINT"] as const)(
    "starts, answers /v1/health, and exits 0 on %s",
    async (signal) => {
      const dir = tempDir("kxm-cli-serve-");
      const served = await serve(["--port", "0", "--db", "hub.db"], dir, {
        KXM_AUTH_TOKEN: ADMIN_TOKEN,
        KXM_LOG_LEVEL: "silent",
      });
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(served.stdout().split("\n")[0]).toBe(
        `kxm hub listening on ${served.url} (database ${join(dir, "hub.db")})`,
      );
      const client = createHubClient({ baseUrl: served.url, token: ADMIN_TOKEN });
      expect(await client.health({})).toMatchObject({ status: "ok" });
      // It is a real hub: the CLI can register a project through it.
      const add = await kxm(["hub", "projects", "add", "served", "--hub", served.url], {
        cwd: await gitRepo(),
        env: { KXM_AUTH_TOKEN: ADMIN_TOKEN },
      });
      expect(add.code, add.stderr).toBe(0);

      served.child.kill(signal);
      const { code } = await served.exited;
      expect(code, served.stderr()).toBe(0);
      expect(served.stdout()).toContain(`kxm hub stopped (${signal})\n`);
      expect(served.stderr()).not.toMatch(STACK_FRAME);
      expect(existsSync(join(dir, "hub.db"))).toBe(true);
      await expect(client.health({})).rejects.toMatchObject({ code: "hub_unreachable" });
    },
  );

  test("flags override the environment; --json prints {url}; no admin token is warned about", async () => {
    const dir = tempDir("kxm-cli-serve-");
    const served = await serve(
      ["--port", "0", "--db", join(dir, "flag.db"), "--host", "127.0.0.1", "--json"],
      dir,
      {
        KXM_PORT: "1",
        KXM_HOST: "0.0.0.0",
        KXM_DB_PATH: join(dir, "env.db"),
        KXM_LOG_LEVEL: "silent",
      },
    );
    const text = served.stdout();
    expect(JSON.parse(text.slice(0, text.indexOf("\n}") + 2))).toEqual({ url: served.url });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.url).not.toBe("http://127.0.0.1:1");
    const health = await createHubClient({ baseUrl: served.url }).health({});
    expect(health.status).toBe("ok");
    served.child.kill("SIGTERM");
    expect((await served.exited).code).toBe(0);
    expect(existsSync(join(dir, "flag.db"))).toBe(true);
    expect(existsSync(join(dir, "env.db"))).toBe(false);
  });

  test("without KXM_AUTH_TOKEN it warns on stderr, and admin routes answer admin_auth_not_configured", async () => {
    const dir = tempDir("kxm-cli-serve-");
    const served = await serve(["--port", "0"], dir, { KXM_LOG_LEVEL: "silent" });
    const list = await kxm(["hub", "projects", "list", "--hub", served.url, "--json"], {
      cwd: dir,
      env: { KXM_AUTH_TOKEN: ADMIN_TOKEN },
    });
    expectJsonFailure(list, "admin_auth_not_configured");
    served.child.kill("SIGTERM");
    expect((await served.exited).code).toBe(0);
    expect(served.stderr()).toContain("warning: KXM_AUTH_TOKEN is unset");
    expect(existsSync(join(dir, ".kxm", "state", "kxm.db"))).toBe(true);
  });

  test("a port in use fails with one line; a bad --port or variable is a usage error", async () => {
    const dir = tempDir("kxm-cli-serve-");
    const port = new URL(hub.url).port;
    const [inUse, badFlag, badEnv] = await Promise.all([
      kxm(["hub", "serve", "--port", port], { cwd: dir, env: { KXM_LOG_LEVEL: "silent" } }),
      kxm(["hub", "serve", "--port", "70000"], { cwd: dir }),
      kxm(["hub", "serve"], { cwd: dir, env: { KXM_PORT: "seven" } }),
    ]);
    expectFailureLine(inUse, "hub serve", `cannot listen on 127.0.0.1:${port}: the port is in use`);
    expectUsageError(badFlag, "hub serve", /70000/);
    expectUsageError(
      badEnv,
      "hub serve",
      "environment variable KXM_PORT must be a whole number from 0 to 65535",
    );
  });

  test("a database URL with a password on the command line, or not a postgres URL, fails naming no password", async () => {
    const dir = tempDir("kxm-cli-serve-");
    const [argvPassword, badUrl, noTarget] = await Promise.all([
      kxm(["hub", "serve", "--database-url", "postgres://kxm:hunter2-secret@db.internal/kxm"], { cwd: dir }),
      kxm(["hub", "serve"], { cwd: dir, env: { KXM_DATABASE_URL: "mysql://kxm:hunter2-secret@db/kxm" } }),
      kxm(["hub", "copy-to-postgres"], { cwd: dir, env: { KXM_DATABASE_URL: "" } }),
    ]);
    expectFailureLine(
      argvPassword,
      "hub serve",
      "--database-url must not hold a password (any user can read a command line): put the URL in " +
        "KXM_DATABASE_URL, or the password in PGPASSWORD (database_url_invalid)",
    );
    expectFailureLine(
      badUrl,
      "hub serve",
      "KXM_DATABASE_URL: the scheme must be postgres:// or postgresql://, not mysql:// (database_url_invalid)",
    );
    for (const run of [argvPassword, badUrl]) expect(run.stdout + run.stderr).not.toContain("hunter2");
    expectUsageError(
      noTarget,
      "hub copy-to-postgres",
      "hub copy-to-postgres needs a target: set KXM_DATABASE_URL or pass --database-url",
    );
  });
});

describe("--help, the manifest and the reference page", () => {
  test.concurrent.for(HUB_COMMAND_IDS.map((id) => id.split(":")))("kxm %s %s %s --help", async (words) => {
    const result: RunResult = await kxm([...words, "--help"], { cwd: tempDir() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    for (const section of ["USAGE", "DESCRIPTION", "GLOBAL FLAGS", "EXAMPLES"]) {
      expect(result.stdout, section).toContain(`\n${section}\n`);
    }
    expect(result.stdout).toContain(`$ kxm ${words.join(" ")}`);
    expect(result.stdout).toMatch(/--json/);
  });

  test.concurrent.for([["context"], ["hub"], ["hub", "projects"], ["hub", "agents"], ["hub", "operators"]])(
    "kxm %s --help lists its commands",
    async (words) => {
      const result = await kxm([...words, "--help"], { cwd: tempDir() });
      expect(result.code, result.stderr).toBe(0);
      // A topic lists its commands and its subtopics (hub lists hub serve, hub projects and hub agents).
      const prefix = `${words.join(":")}:`;
      const children = HUB_COMMAND_IDS.filter((id) => id.startsWith(prefix)).map((id) =>
        id
          .split(":")
          .slice(0, words.length + 1)
          .join(" "),
      );
      expect(children.length).toBeGreaterThan(0);
      for (const child of new Set(children)) expect(result.stdout).toContain(`  ${child}  `);
    },
  );

  test("the manifest has every command, each with --json, --cwd and examples; --hub where it calls a hub", async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, "utf8")) as {
      commands: Record<string, { flags: Record<string, unknown>; examples: string[] }>;
    };
    for (const id of HUB_COMMAND_IDS) {
      const command = manifest.commands[id];
      expect(command, id).toBeDefined();
      expect(Object.keys(command?.flags ?? {}), id).toEqual(expect.arrayContaining(["json", "cwd"]));
      if (id !== "hub:serve") expect(Object.keys(command?.flags ?? {}), id).toContain("hub");
      expect(command?.examples.length, `${id} examples`).toBeGreaterThan(0);
    }
  });

  test("@kxm/hub is imported inside run(), never when a command's module loads", async () => {
    const file = join(BIN, "..", "..", "dist", "commands", "hub", "serve.js");
    const text = await readFile(file, "utf8");
    expect(text).not.toMatch(/^import\s[^;]*?from\s+"@kxm\/hub"/m);
    expect(text).toContain('await import("@kxm/hub")');
  });

  test.for(HUB_COMMAND_IDS)("docs/reference/cli.md documents %s", async (id) => {
    const [doc, commands] = await Promise.all([readFile(CLI_DOC, "utf8"), manifestCommands()]);
    expectDocumented(doc, id, commands[id]);
  });
});
