import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  BIN,
  baseEnv,
  gitRepo,
  kxm,
  memoryFile,
  put,
  rootlessDir,
  TEST_RUNNER_MD,
  tempDir,
} from "./support/cli.js";

// `kxm --version`, `kxm memory brief` and `kxm memory revision` start without oclif (bin/run.js, src/fast/), for
// the SessionStart hook. What they load is read from a real Node process through a module hook; what they print
// is compared with oclif's own run of the same command (KXM_DEBUG=0 sends any command to oclif).

/** The module URLs a run of the built CLI loads, and its result. */
async function loaded(args: readonly string[], cwd: string): Promise<{ urls: string[]; stdout: string }> {
  const log = join(tempDir("kxm-cli-modules-"), "modules.txt");
  const hooks = tempDir("kxm-cli-hook-");
  const hook = join(hooks, "hook.mjs");
  await writeFile(
    join(hooks, "loader.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}
`,
  );
  await writeFile(
    hook,
    `import { appendFileSync } from "node:fs";
import { register } from "node:module";
appendFileSync(${JSON.stringify(log)}, "");
register("./loader.mjs", import.meta.url);
`,
  );
  const stdout = await new Promise<string>((done, fail) => {
    execFile(
      process.execPath,
      ["--import", hook, BIN, ...args],
      { cwd, env: baseEnv() },
      (error, out, err) => (error ? fail(new Error(`${error.message}\n${err}`)) : done(out)),
    );
  });
  const urls = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
  return { urls, stdout };
}

async function project(): Promise<string> {
  const root = await gitRepo();
  await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
  return root;
}

describe("start-up loads only what the command needs", () => {
  test("kxm --version loads no module of oclif's or ours", async () => {
    const { urls, stdout } = await loaded(["--version"], tempDir());
    expect(stdout).toMatch(/^@kxm\/cli\/\d+\.\d+\.\d+ \S+ node-v\d+\.\d+\.\d+\n$/);
    expect(
      urls.filter((url) => url.startsWith("file:")).map((url) => url.replace(/.*\/apps\/cli\//, "")),
    ).toEqual(["bin/run.js"]);
  });

  test("kxm memory revision loads neither oclif nor zod nor a Markdown parser", async () => {
    const { urls, stdout } = await loaded(["memory", "revision"], await project());
    expect(stdout).toMatch(/^ctxrev_[0-9a-f]{64}\n$/);
    expect(urls.some((url) => url.endsWith("/dist/fast/revision-lib.bundle.js"))).toBe(true);
    expect(urls.filter((url) => /oclif|zod|micromark|yaml|secretlint/.test(url))).toEqual([]);
  });

  test("kxm memory brief loads one bundle, not oclif", async () => {
    const { urls, stdout } = await loaded(["memory", "brief"], await project());
    expect(stdout).toContain("Project memory (1 active fact)");
    expect(urls.some((url) => url.endsWith("/dist/fast/brief-lib.bundle.js"))).toBe(true);
    expect(urls.filter((url) => /oclif|node_modules/.test(url))).toEqual([]);
  });
});

describe("the fast paths print what oclif prints", () => {
  const cases: ReadonlyArray<
    readonly [string, readonly string[], "project" | "bare" | "broken" | "over-limit"]
  > = [
    ["brief", ["memory", "brief"], "project"],
    ["brief --json", ["memory", "brief", "--json"], "project"],
    ["brief --cwd", ["memory", "brief", "--cwd", "."], "project"],
    ["brief --cwd= --json", ["memory", "brief", "--cwd=.", "--json"], "project"],
    ["revision", ["memory", "revision"], "project"],
    ["revision --json", ["memory", "revision", "--json"], "project"],
    ["brief, no project root", ["memory", "brief"], "bare"],
    ["revision --json, no project root", ["memory", "revision", "--json"], "bare"],
    ["brief of a malformed fact", ["memory", "brief"], "broken"],
    ["brief --json of a malformed fact", ["memory", "brief", "--json"], "broken"],
    // The fast path once printed an over-limit fact that the oclif command refuses: the same rule on both paths.
    ["brief of an over-limit fact", ["memory", "brief"], "over-limit"],
    ["brief --json of an over-limit fact", ["memory", "brief", "--json"], "over-limit"],
    ["brief --cwd of a missing folder", ["memory", "brief", "--cwd", "no-such-folder"], "project"],
    ["revision --json --cwd of a missing folder", ["memory", "revision", "--json", "--cwd=nope"], "project"],
  ];
  test.for(cases)("%s", { timeout: 90_000 }, async ([, args, kind]) => {
    const cwd = kind === "bare" ? rootlessDir() : await project();
    if (kind === "broken") await put(cwd, ".kxm/memory/broken.md", "---\nschema: kxm.memory.v1\n---\n");
    if (kind === "over-limit") {
      await put(cwd, ".kxm/memory/long.md", memoryFile("long", { summary: "y".repeat(5_000) }));
    }
    const [fast, oclif] = await Promise.all([
      kxm(args, { cwd }),
      kxm(args, { cwd, env: { KXM_DEBUG: "0" } }),
    ]);
    expect(fast).toEqual(oclif);
  });
});
