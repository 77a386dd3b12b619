import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { BROWSER_SKILLS, BUILT_IN_MODES } from "../src/modes.js";
import {
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  memoryFile,
  put,
  skillMarkdown,
} from "./support/cli.js";

// `kxm explain --mode`, end to end with the built binary in temporary Git repositories: the parts of a mode, their
// tokens at four characters each (rounded up per part), missing files, the project's own modes and the errors.

interface Part {
  kind: string;
  name: string;
  path?: string;
  present: boolean;
  chars: number;
  tokens: number;
  note?: string;
}
interface Explained {
  mode: string;
  source: string;
  description: string;
  charsPerToken: number;
  parts: Part[];
  missing: string[];
  totalChars: number;
  totalTokens: number;
}

const CLAUDE_MD = "# Working here\n\nRun the tests with pnpm before every commit — always.\n";
const SKILL = skillMarkdown("release-checklist", "Steps to cut a release");
const tokens = (text: string) => Math.ceil(text.length / 4);

const REPOSITORY = fileURLToPath(new URL("../../..", import.meta.url));
/** A file of KXM's own repository, as the source tree holds it. */
const source = (path: string) => readFileSync(`${REPOSITORY}/${path}`, "utf8");

/** A repository with CLAUDE.md, one memory fact and one skill promoted by a second person. */
async function claudeRepo(): Promise<{ root: string; brief: string; skillFile: string }> {
  const root = await gitRepo();
  await put(root, "CLAUDE.md", CLAUDE_MD);
  await put(
    root,
    ".kxm/memory/test-runner.md",
    memoryFile("test-runner", { summary: "Run pnpm test first" }),
  );
  await put(root, "skills/release-checklist/SKILL.md", SKILL);
  const proposed = await kxm(["skills", "propose", "skills/release-checklist", "--json"], {
    cwd: root,
    env: { KXM_ACTOR: "a" },
  });
  expect(proposed.code, proposed.stderr).toBe(0);
  const { id } = json<{ id: string }>(proposed);
  const promoted = await kxm(["skills", "promote", id, "--evidence", "review:pr-1"], {
    cwd: root,
    env: { KXM_ACTOR: "b" },
  });
  expect(promoted.code, promoted.stderr).toBe(0);
  // The brief exactly as the SessionStart hook prints it (without the line break that ends the output).
  const brief = await kxm(["memory", "brief"], { cwd: root });
  expect(brief.code, brief.stderr).toBe(0);
  return {
    root,
    brief: brief.stdout.replace(/\n$/, ""),
    skillFile: `.kxm/skills/promoted/${id}/release-checklist/SKILL.md`,
  };
}

describe("kxm explain --mode", () => {
  test.concurrent("claude-code: CLAUDE.md, the memory brief and the promoted skill, each estimated, and the total", {
    timeout: 90_000,
  }, async () => {
    const { root, brief, skillFile } = await claudeRepo();
    const asJson = await kxm(["explain", "--mode", "claude-code", "--json"], { cwd: root });
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(asJson.stderr).toBe("");
    const result = json<Explained>(asJson);
    const expectedParts: Part[] = [
      {
        kind: "file",
        name: "CLAUDE.md",
        path: "CLAUDE.md",
        present: true,
        chars: CLAUDE_MD.length,
        tokens: tokens(CLAUDE_MD),
      },
      {
        kind: "memory-brief",
        name: "memory brief",
        present: true,
        chars: brief.length,
        tokens: tokens(brief),
      },
      {
        kind: "skill",
        name: "release-checklist",
        path: skillFile,
        present: true,
        chars: SKILL.length,
        tokens: tokens(SKILL),
      },
    ];
    expect(result).toEqual({
      mode: "claude-code",
      source: "built-in",
      description: BUILT_IN_MODES["claude-code"].description,
      charsPerToken: 4,
      parts: expectedParts,
      missing: [],
      totalChars: CLAUDE_MD.length + brief.length + SKILL.length,
      totalTokens: tokens(CLAUDE_MD) + tokens(brief) + tokens(SKILL),
    });

    const human = await kxm(["explain", "--mode", "claude-code"], { cwd: root });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toBe("");
    expect(human.stdout.split("\n")).toEqual([
      `Mode claude-code (built-in): ${BUILT_IN_MODES["claude-code"].description}`,
      "",
      " tokens  part",
      `${String(tokens(CLAUDE_MD)).padStart(7)}  CLAUDE.md`,
      `${String(tokens(brief)).padStart(7)}  memory brief`,
      `${String(tokens(SKILL)).padStart(7)}  skill release-checklist (${skillFile})`,
      `${String(result.totalTokens).padStart(7)}  total, at 4 characters a token`,
      "",
    ]);
  });

  test.concurrent("browser: the claude-code parts, then the browser guide and the seven skills KXM ships", {
    timeout: 90_000,
  }, async () => {
    const { root, brief, skillFile } = await claudeRepo();
    const result = json<Explained>(await kxm(["explain", "--mode", "browser", "--json"], { cwd: root }));
    const guide = source("docs/guides/browser.md");
    // The guide names itself as this mode's context file; the copy the CLI ships is the source, byte for byte.
    expect(guide).toContain("`browser` mode's context file");
    const shipped: Part[] = [
      {
        kind: "kxm-file",
        name: "docs/guides/browser.md",
        path: "docs/guides/browser.md",
        present: true,
        chars: guide.length,
        tokens: tokens(guide),
      },
      ...BROWSER_SKILLS.map((name): Part => {
        const path = `plugins/kxm/skills/${name}/SKILL.md`;
        const text = source(path);
        expect(text.startsWith(`---\nname: ${name}\n`), path).toBe(true);
        return { kind: "kxm-skill", name, path, present: true, chars: text.length, tokens: tokens(text) };
      }),
    ];
    expect(shipped).toHaveLength(8);
    expect(result.parts).toEqual([
      {
        kind: "file",
        name: "CLAUDE.md",
        path: "CLAUDE.md",
        present: true,
        chars: CLAUDE_MD.length,
        tokens: tokens(CLAUDE_MD),
      },
      {
        kind: "memory-brief",
        name: "memory brief",
        present: true,
        chars: brief.length,
        tokens: tokens(brief),
      },
      {
        kind: "skill",
        name: "release-checklist",
        path: skillFile,
        present: true,
        chars: SKILL.length,
        tokens: tokens(SKILL),
      },
      ...shipped,
    ]);
    expect(result.missing).toEqual([]);
    expect(result.totalTokens).toBe(result.parts.reduce((sum, part) => sum + part.tokens, 0));
    expect(result.totalTokens).toBeGreaterThan(tokens(guide) + 7 * 100);

    const human = await kxm(["explain", "--mode", "browser"], { cwd: root });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.split("\n");
    expect(lines).toContain(
      `${String(tokens(guide)).padStart(7)}  docs/guides/browser.md (shipped with kxm)`,
    );
    const start = "plugins/kxm/skills/kxm-browser-start/SKILL.md";
    expect(lines).toContain(
      `${String(tokens(source(start))).padStart(7)}  skill kxm-browser-start (${start}, shipped with kxm)`,
    );
  });

  test.concurrent("a file the mode names that does not exist is listed as missing, not fatal", {
    timeout: 90_000,
  }, async () => {
    const root = await gitRepo();
    const human = await kxm(["explain", "--mode", "codex"], { cwd: root });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("\n      -  AGENTS.md: missing\n");
    expect(human.stdout).toContain("\n      0  total, at 4 characters a token\n");
    const result = json<Explained>(await kxm(["explain", "--mode", "codex", "--json"], { cwd: root }));
    expect(result.missing).toEqual(["AGENTS.md"]);
    expect(result.parts).toEqual([
      {
        kind: "file",
        name: "AGENTS.md",
        path: "AGENTS.md",
        present: false,
        chars: 0,
        tokens: 0,
        note: "missing",
      },
    ]);
    expect([result.totalChars, result.totalTokens]).toEqual([0, 0]);
  });

  test.concurrent("an unknown mode is a one-line usage error listing the valid modes; --json says it on stdout", {
    timeout: 90_000,
  }, async () => {
    const root = await gitRepo();
    const valid = Object.keys(BUILT_IN_MODES).sort().join(", ");
    const human = await kxm(["explain", "--mode", "cursorr"], { cwd: root });
    expectUsageError(human, "explain", `--mode: there is no mode "cursorr"; the modes are ${valid}`);
    const asJson = await kxm(["explain", "--mode", "cursorr", "--json"], { cwd: root });
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stdout)).toEqual({
      error: { code: "invalid_usage", message: `--mode: there is no mode "cursorr"; the modes are ${valid}` },
    });
    expectUsageError(await kxm(["explain"], { cwd: root }), "explain", /Missing required flag mode/);
  });

  test.concurrent("a project's .kxm/modes.yaml adds modes and replaces a built-in one", {
    timeout: 90_000,
  }, async () => {
    const root = await gitRepo();
    await put(root, "AGENTS.md", "# Agents\n");
    await put(root, "docs/review.md", "Review every change for tests.\n");
    await put(
      root,
      ".kxm/modes.yaml",
      [
        "schema: kxm.modes.v1",
        "modes:",
        "  review:",
        "    description: Reviewers, with the review guide",
        "    files: [AGENTS.md, docs/review.md, docs/missing.md]",
        "    memoryBrief: true",
        "  codex:",
        "    description: Codex with the review guide",
        "    files: [docs/review.md]",
        "",
      ].join("\n"),
    );
    const review = json<Explained>(await kxm(["explain", "--mode", "review", "--json"], { cwd: root }));
    expect(review.source).toBe(".kxm/modes.yaml");
    expect(review.parts.map((part) => [part.name, part.present, part.tokens])).toEqual([
      ["AGENTS.md", true, tokens("# Agents\n")],
      ["docs/review.md", true, tokens("Review every change for tests.\n")],
      ["docs/missing.md", false, 0],
      ["memory brief", true, tokens("No active project memory facts.")],
    ]);
    expect(review.missing).toEqual(["docs/missing.md"]);
    const codex = json<Explained>(await kxm(["explain", "--mode", "codex", "--json"], { cwd: root }));
    expect([codex.source, codex.parts.map((part) => part.name)]).toEqual([
      ".kxm/modes.yaml",
      ["docs/review.md"],
    ]);
    const unknown = await kxm(["explain", "--mode", "nope"], { cwd: root });
    expectUsageError(unknown, "explain", /the modes are browser, claude-code, codex, gemini-cli, review$/);
  });

  test.concurrent("a malformed .kxm/modes.yaml fails with one line naming the file, the field and the rule", {
    timeout: 90_000,
  }, async () => {
    const root = await gitRepo();
    await put(
      root,
      ".kxm/modes.yaml",
      "schema: kxm.modes.v1\nmodes:\n  mine:\n    description: Mine\n    files: [../outside.md]\n",
    );
    expectFailureLine(
      await kxm(["explain", "--mode", "mine"], { cwd: root }),
      "explain",
      ".kxm/modes.yaml: modes.mine.files[0]: must be a path inside the project, written with '/' and without '..'",
    );
    await put(root, ".kxm/modes.yaml", "schema: kxm.modes.v2\nmodes: {}\n");
    expectJsonFailure(
      await kxm(["explain", "--mode", "codex", "--json"], { cwd: root }),
      "invalid_request",
      ".kxm/modes.yaml: schema: must be kxm.modes.v1",
    );
    await put(root, ".kxm/modes.yaml", "schema: [unclosed\n");
    expectFailureLine(
      await kxm(["explain", "--mode", "codex"], { cwd: root }),
      "explain",
      /^\.kxm\/modes\.yaml: is not valid YAML/,
    );
  });

  test.concurrent("--help lists every mode KXM ships, with what it loads", { timeout: 90_000 }, async () => {
    const root = await gitRepo();
    const help = await kxm(["explain", "--help"], { cwd: root });
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    for (const [name, mode] of Object.entries(BUILT_IN_MODES))
      expect(text).toContain(`${name} (${mode.description})`);
  });
});
