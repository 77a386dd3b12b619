// The Claude Code plugin in plugins/kxm and the marketplace at the repository root that lists it. The real
// `claude plugin validate` (from @anthropic-ai/claude-code, run offline with a throwaway HOME) checks both
// manifests against Claude Code's own schema, and fails a broken copy. What it does not read is checked here: the
// hook is the documented SessionStart hook and prints the brief in a real project, the MCP configuration is the
// documented one, and every skill is one KXM itself accepts (its name is its folder's, no control-plane field).
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { proposeSkill } from "@kxm/memory-git";
import { afterAll, describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plugin = join(root, "plugins", "kxm");
const cli = join(root, "apps", "cli", "bin", "run.js");
const claude = createRequire(import.meta.url).resolve("@anthropic-ai/claude-code/cli.js");
const work = mkdtempSync(join(tmpdir(), "kxm-plugin-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

function validate(path: string): { status: number | null; output: string } {
  const home = mkdtempSync(join(work, "home-"));
  const result = spawnSync(process.execPath, [claude, "plugin", "validate", path], {
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", DISABLE_AUTOUPDATER: "1", CI: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("claude plugin validate", () => {
  test("passes the plugin and the marketplace that lists it", () => {
    const manifest = validate(plugin);
    expect(manifest.output).toContain("Validation passed");
    expect(manifest.status).toBe(0);
    const marketplace = validate(root);
    expect(marketplace.output).toMatch(/marketplace manifest[\s\S]*Validation passed/);
    expect(marketplace.status).toBe(0);
    const listed = json(join(root, ".claude-plugin", "marketplace.json")).plugins;
    expect(listed).toEqual([expect.objectContaining({ name: "kxm", source: "./plugins/kxm" })]);
    expect(json(join(plugin, ".claude-plugin", "plugin.json")).name).toBe("kxm");
  }, 120_000);

  test("fails a copy whose manifest is broken, so a pass means something", () => {
    const copy = join(work, "broken");
    cpSync(plugin, copy, { recursive: true });
    const manifest = json(join(copy, ".claude-plugin", "plugin.json"));
    writeFileSync(join(copy, ".claude-plugin", "plugin.json"), JSON.stringify({ ...manifest, version: 1 }));
    const result = validate(copy);
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/version/);
  }, 60_000);
});

describe("what the plugin holds", () => {
  test("its MCP server is the documented stdio configuration", () => {
    expect(readFileSync(join(plugin, ".mcp.json"), "utf8")).toBe(
      readFileSync(join(root, "docs", "examples", "mcp", ".mcp.json"), "utf8"),
    );
  });

  test("its SessionStart hook is the documented one and prints the brief in a real project", () => {
    const hooks = json(join(plugin, "hooks", "hooks.json")).hooks;
    const documented = json(join(root, "docs", "examples", "claude-code", "settings.json")).hooks;
    expect(hooks.SessionStart).toEqual(documented.SessionStart);
    const project = mkdtempSync(join(work, "project-"));
    execFileSync("git", ["init", "-q", project]);
    mkdirSync(join(project, ".kxm", "memory"), { recursive: true });
    const bin = join(work, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
    chmodSync(join(bin, "kxm"), 0o755);
    const stdout = execFileSync("/bin/sh", ["-c", hooks.SessionStart[0].hooks[0].command], {
      cwd: work,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CLAUDE_PROJECT_DIR: project, KXM_DEBUG: "" },
      encoding: "utf8",
    });
    expect(stdout).toBe("No active project memory facts.\n");
  });

  const skills = readdirSync(join(plugin, "skills"));
  test("ships the skills it documents", () => {
    expect(skills.sort()).toEqual([
      "kxm-browser-annotate",
      "kxm-browser-explore",
      "kxm-browser-recover",
      "kxm-browser-repro-test",
      "kxm-browser-resume-after-mfa",
      "kxm-browser-start",
      "kxm-browser-takeover",
      "kxm-context",
      "kxm-propose",
    ]);
  });

  test.each(skills)("skill %s is one KXM accepts where it sits", async (name) => {
    const store = mkdtempSync(join(work, "store-"));
    const metadata = await proposeSkill(store, join(plugin, "skills", name), {
      proposedBy: "test",
      now: new Date("2026-01-01T00:00:00Z"),
    });
    expect(metadata.name).toBe(name);
    expect(metadata.description.length).toBeGreaterThan(40);
  });
});
