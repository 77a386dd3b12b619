import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  CLI_DIR,
  COMMAND_IDS,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  MANIFEST,
  put,
  skillMarkdown,
  tempDir,
} from "./support/cli.js";

describe("start-up", () => {
  test.concurrent("kxm --version runs", async () => {
    const result = await kxm(["--version"], { cwd: tempDir() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^@kxm\/cli\/\d+\.\d+\.\d+ \S+ node-v\d+\.\d+\.\d+\n$/);
  });

  test("the oclif manifest, generated at build, lists every command with --json and --cwd", async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, "utf8")) as {
      commands: Record<string, { flags: Record<string, unknown>; examples: string[] }>;
    };
    expect(Object.keys(manifest.commands).sort()).toEqual([...COMMAND_IDS]);
    for (const [id, command] of Object.entries(manifest.commands)) {
      expect(Object.keys(command.flags), id).toEqual(expect.arrayContaining(["json", "cwd"]));
      expect(command.examples.length, `${id} examples`).toBeGreaterThan(0);
    }
  });

  test("heavy modules are imported inside run(), not when a command's module loads", async () => {
    for (const id of COMMAND_IDS) {
      const file = `${join(CLI_DIR, "dist", "commands", ...id.split(":"))}.js`;
      const text = await readFile(file, "utf8");
      const staticImports = [...text.matchAll(/^import\s[^;]*?from\s+"([^"]+)"/gm)].map((match) => match[1]);
      for (const heavy of ["@kxm/memory-git", "@kxm/hub", "pino"])
        expect(staticImports, id).not.toContain(heavy);
      if (id.startsWith("memory:") || id.startsWith("skills:")) {
        expect(text, id).toContain('await import("@kxm/memory-git")');
      }
    }
  });
});

describe("--help", () => {
  test.concurrent.for(COMMAND_IDS.map((id) => id.split(":")))("kxm %s %s --help", async (words) => {
    const result = await kxm([...words, "--help"], { cwd: tempDir() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    for (const section of ["USAGE", "DESCRIPTION", "GLOBAL FLAGS", "EXAMPLES"]) {
      expect(result.stdout, section).toContain(`\n${section}\n`);
    }
    expect(result.stdout).toContain(`$ kxm ${words.join(" ")}`);
    expect(result.stdout).toMatch(/--cwd=<value>/);
    expect(result.stdout).toMatch(/--json/);
  });

  test.concurrent.for([
    ["kxm --help", []],
    ["kxm memory --help", ["memory"]],
    ["kxm skills --help", ["skills"]],
  ] as const)("%s lists the topics or commands", async ([, words]) => {
    const result = await kxm([...words, "--help"], { cwd: tempDir() });
    expect(result.code, result.stderr).toBe(0);
    const expected = COMMAND_IDS.filter((id) => words.length === 0 || id.startsWith(`${words[0]}:`));
    if (words.length === 0) expect(result.stdout).toContain("TOPICS");
    else for (const id of expected) expect(result.stdout).toContain(id.replace(":", " "));
  });
});

describe("usage errors exit 2 with the problem and a help pointer", () => {
  const cases: Array<[string, string[], string, string | RegExp]> = [
    ["a missing argument", ["memory", "note"], "memory note", /^Missing 1 required arg: summary\b/],
    ["an unknown flag", ["memory", "note", "x", "--bogus"], "memory note", "Nonexistent flag: --bogus"],
    [
      "a bad option value",
      ["memory", "note", "x", "--scope", "team"],
      "memory note",
      "Expected --scope=team to be one of: agent, project, run, operator",
    ],
    [
      "a missing required flag",
      ["skills", "promote", "release-checklist.0123456789ab"],
      "skills promote",
      /Missing required flag evidence/,
    ],
    ["an unexpected argument", ["skills", "verify", "a", "b"], "skills verify", "Unexpected argument: b"],
    ["a flag without its value", ["skills", "list", "--cwd"], "skills list", "Flag --cwd expects a value"],
  ];

  test.concurrent.for(cases)("%s", async ([, args, command, problem]) => {
    const root = await gitRepo();
    const result = await kxm(args, { cwd: root });
    expectUsageError(result, command, problem);
    expect(await readdir(root)).toEqual([".git"]);
  });

  test.concurrent("with --json the usage error is JSON on stdout", async () => {
    const result = await kxm(["memory", "note", "x", "--scope", "team", "--json"], { cwd: await gitRepo() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("");
    expect(json(result)).toEqual({
      error: {
        code: "invalid_usage",
        message: "Expected --scope=team to be one of: agent, project, run, operator",
      },
    });
  });

  test.concurrent.for([
    ["memroy brief", "memory brief"],
    ["memory breif", "memory brief"],
    ["memory brief extra", "memory brief"],
    ["hub projcts list", "hub projects list"],
    ["memroy", "memory"],
    ["contxt get", "context get"],
  ] as const)("an unknown command suggests the closest: kxm %s", async ([typed, closest]) => {
    const result = await kxm(typed.split(" "), { cwd: tempDir() });
    expectUsageError(result, closest, `${typed} is not a kxm command; did you mean ${closest}?`);
  });

  test.concurrent("an unknown command with nothing close points at kxm --help", async () => {
    const result = await kxm(["frobnicate"], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("frobnicate is not a kxm command\nSee: kxm --help\n");
  });

  test.concurrent("an unknown command with --json is the usage error as JSON on stdout", async () => {
    const result = await kxm(["memory", "breif", "--json"], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("");
    expect(json(result)).toEqual({
      error: {
        code: "invalid_usage",
        message: "memory breif is not a kxm command; did you mean memory brief?",
      },
    });
  });

  test.concurrent("skills propose of a missing folder is a usage error", async () => {
    const root = await gitRepo();
    const result = await kxm(["skills", "propose", "skills/missing"], { cwd: root, env: { KXM_ACTOR: "a" } });
    expectUsageError(result, "skills propose", /skills\/missing/);
  });
});

describe("unexpected failures and the environment", () => {
  /**
   * A repository whose `.kxm` is a file: writing a skill then fails with ENOTDIR, which is file_unwritable (naming
   * the path) rather than an unexpected error, and, as a failure that was not a KxmError, prints its stack with
   * KXM_DEBUG=1.
   */
  async function brokenRepo(): Promise<string> {
    const root = await gitRepo();
    await put(root, ".kxm", "not a folder\n");
    await put(root, "skills/s/SKILL.md", skillMarkdown("s", "A skill"));
    return root;
  }

  test.concurrent("a refused write is one line, file_unwritable in JSON, a stack only with KXM_DEBUG=1", async () => {
    const root = await brokenRepo();
    const env = { KXM_ACTOR: "a" };
    const [human, asJson, debug] = await Promise.all([
      kxm(["skills", "propose", "skills/s"], { cwd: root, env }),
      kxm(["skills", "propose", "skills/s", "--json"], { cwd: root, env }),
      kxm(["skills", "propose", "skills/s"], {
        cwd: root,
        env: { ...env, KXM_DEBUG: "1" },
        allowStack: true,
      }),
    ]);
    const line = /^cannot write \.kxm\/skills\S*: a file is in the way of a folder on its path \(ENOTDIR\)$/;
    expectFailureLine(human, "skills propose", line);
    expectJsonFailure(asJson, "file_unwritable", line);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^\s+at /m);
    expect(debug.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^skills propose failed: cannot write \.kxm\/skills\S*: a file is in the way/,
    );
  });

  test.concurrent.for([
    ["KXM_ACTOR is blank", { KXM_ACTOR: "   " }],
    ["KXM_DEBUG is not 0 or 1", { KXM_ACTOR: "a", KXM_DEBUG: "yes" }],
  ] as const)("an invalid environment variable is a one-line usage error (%s)", async ([, env]) => {
    const root = await gitRepo();
    await put(root, "skills/s/SKILL.md", skillMarkdown("s", "A skill"));
    const result = await kxm(["skills", "propose", "skills/s"], { cwd: root, env: { ...env } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split("\n").length, result.stderr).toBeLessThanOrEqual(2);
    expect(result.stderr).toMatch(/KXM_(ACTOR|DEBUG)/);
  });
});
