// Modes as data: what an agent harness puts into its prompt at session start, for `kxm explain --mode`. See
// docs/decisions/0005-modes.md. This module is plain data and pure functions; explain.ts does the reading.
import { KXM_PATHS } from "@kxm/memory-git";

/** One mode: the prompt parts a harness loads, in the order it loads them. */
export interface ModeDefinition {
  /** One line saying which harness (or use) this is and what it loads. */
  readonly description: string;
  /** Files under the project root the harness reads whole into its prompt, such as `CLAUDE.md`. */
  readonly files: readonly string[];
  /** Whether the harness adds `kxm memory brief`'s output at session start (the SessionStart hook). */
  readonly memoryBrief: boolean;
  /** Whether the harness loads the project's verified promoted skills. */
  readonly skills: boolean;
  /**
   * Files KXM itself ships that the harness loads (a guide, the plugin's skills), by their path in KXM's repository.
   * A user's project does not hold them, so the CLI carries copies (dist/assets/, written at build by
   * scripts/assets.mjs) and `kxm explain` measures those. Built-in modes only; a `SKILL.md` path counts as a skill.
   */
  readonly kxmFiles?: readonly string[];
}

/** The browser skills of the Claude Code plugin (plugins/kxm/skills), in the order an agent meets them. */
export const BROWSER_SKILLS = [
  "kxm-browser-start",
  "kxm-browser-explore",
  "kxm-browser-takeover",
  "kxm-browser-resume-after-mfa",
  "kxm-browser-recover",
  "kxm-browser-repro-test",
  "kxm-browser-annotate",
] as const;

/**
 * The modes KXM ships, one per harness KXM wires up, naming the files that harness reads by itself. Only Claude
 * Code runs the SessionStart hook (`kxm memory brief`) and loads skills from the project; the others get the
 * memory block that `kxm memory sync` writes into their instruction file, and skills through `kxm_context`. The
 * `browser` mode is a use, not a harness: a Claude Code session doing browser work, which loads the browser guide
 * (docs/guides/browser.md names itself as this mode's context file) and the plugin's browser skills on top.
 */
export const BUILT_IN_MODES = {
  "claude-code": {
    description: "Claude Code: CLAUDE.md, the SessionStart hook's memory brief and the promoted skills",
    files: ["CLAUDE.md"],
    memoryBrief: true,
    skills: true,
  },
  codex: {
    description: "Codex CLI: AGENTS.md",
    files: ["AGENTS.md"],
    memoryBrief: false,
    skills: false,
  },
  "gemini-cli": {
    description: "Gemini CLI: GEMINI.md",
    files: ["GEMINI.md"],
    memoryBrief: false,
    skills: false,
  },
  browser: {
    description:
      "Browser work in Claude Code: the claude-code mode, plus KXM's browser guide and its seven kxm-browser-* skills",
    files: ["CLAUDE.md"],
    memoryBrief: true,
    skills: true,
    kxmFiles: [
      "docs/guides/browser.md",
      ...BROWSER_SKILLS.map((name) => `plugins/kxm/skills/${name}/SKILL.md`),
    ],
  },
} as const satisfies Record<string, ModeDefinition>;

/** The project file that adds modes or replaces a built-in one of the same name. */
export const MODES_FILE = KXM_PATHS.modes;

/** The schema line a modes file starts with. */
export const MODES_SCHEMA = "kxm.modes.v1";

/** Characters per token of the estimate: the arbiter's estimator (docs/reference/behaviour.md), ceil(characters / 4). */
export const CHARS_PER_TOKEN = 4;

/** The estimate of one part: its length in UTF-16 code units over four, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A mode name: lower-case letters, digits and '-', 1 to 64 characters. */
export const MODE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** `claude-code (…), codex (…)`: the built-in modes for `kxm explain --help`. */
export function describeBuiltInModes(): string {
  return Object.entries(BUILT_IN_MODES)
    .map(([name, mode]) => `${name} (${mode.description})`)
    .join("; ");
}
