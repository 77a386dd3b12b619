import { Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../base.js";
import {
  BUILT_IN_MODES,
  CHARS_PER_TOKEN,
  describeBuiltInModes,
  estimateTokens,
  MODES_FILE,
  type ModeDefinition,
} from "../modes.js";

/**
 * One part of a mode's prompt: a context file, the memory brief or a skill of the project, or a file or skill that
 * KXM ships (`kxm-file`, `kxm-skill`: read from the CLI's own copy, since a project does not hold KXM's docs).
 */
interface Part {
  kind: "file" | "memory-brief" | "skill" | "kxm-file" | "kxm-skill";
  /** The file's path, `memory brief`, or the skill's name. */
  name: string;
  /**
   * The file it is read from: relative to the project root, or for KXM's own parts its path in KXM's repository
   * (the brief has none: `kxm memory brief` prints it).
   */
  path?: string;
  present: boolean;
  chars: number;
  tokens: number;
  /** Why a part that is not present is not loaded. */
  note?: string;
}

interface ExplainResult {
  mode: string;
  source: "built-in" | typeof MODES_FILE;
  description: string;
  charsPerToken: number;
  parts: Part[];
  missing: string[];
  totalChars: number;
  totalTokens: number;
}

export default class Explain extends KxmCommand {
  static override summary =
    "Estimate a mode's prompt footprint: each context file and skill it loads, in tokens.";
  static override description =
    "Lists what a mode puts into an agent's prompt at session start (its context files, the memory brief, the " +
    `promoted skills), each with its size in tokens at ${CHARS_PER_TOKEN} characters a token (rounded up, as the ` +
    "arbiter estimates), and the total. A file that does not exist is listed as missing and counts nothing. " +
    `Modes KXM ships: ${describeBuiltInModes()}. A project adds its own, or replaces one of these, in ` +
    `${MODES_FILE}. Not to be confused with kxm context explain, which explains a hub item.`;
  static override examples = [
    "<%= config.bin %> <%= command.id %> --mode claude-code",
    "<%= config.bin %> <%= command.id %> --mode codex --json",
  ];
  static override flags = {
    mode: Flags.string({
      description: `The mode to estimate: ${Object.keys(BUILT_IN_MODES).join(", ")}, or one of ${MODES_FILE}`,
      helpValue: "<mode>",
      required: true,
    }),
  };

  async run(): Promise<ExplainResult> {
    const { flags } = await this.parse(Explain);
    const root = await this.projectRoot(flags.cwd);
    const { loadProjectModes } = await import("../mode-file.js");
    const projectModes = await loadProjectModes(root);
    const modes: Record<string, ModeDefinition> = { ...BUILT_IN_MODES, ...projectModes };
    const mode = Object.hasOwn(modes, flags.mode) ? modes[flags.mode] : undefined;
    if (mode === undefined) {
      const names = Object.keys(modes).sort();
      throw new UsageError(`--mode: there is no mode "${flags.mode}"; the modes are ${names.join(", ")}`);
    }
    const parts = await measure(root, mode);
    const result: ExplainResult = {
      mode: flags.mode,
      source: Object.hasOwn(projectModes, flags.mode) ? MODES_FILE : "built-in",
      description: mode.description,
      charsPerToken: CHARS_PER_TOKEN,
      parts,
      missing: parts.filter((part) => !part.present).map((part) => part.path ?? part.name),
      totalChars: parts.reduce((sum, part) => sum + part.chars, 0),
      totalTokens: parts.reduce((sum, part) => sum + part.tokens, 0),
    };
    this.say(`Mode ${result.mode} (${result.source}): ${result.description}`);
    this.say("");
    this.say(`${"tokens".padStart(7)}  part`);
    for (const part of parts) {
      const label =
        part.kind === "skill"
          ? `skill ${part.name} (${part.path})`
          : part.kind === "kxm-skill"
            ? `skill ${part.name} (${part.path}, shipped with kxm)`
            : part.kind === "kxm-file"
              ? `${part.name} (shipped with kxm)`
              : part.name;
      const size = part.present ? String(part.tokens) : "-";
      this.say(`${size.padStart(7)}  ${label}${part.present ? "" : `: ${part.note}`}`);
    }
    this.say(`${String(result.totalTokens).padStart(7)}  total, at ${CHARS_PER_TOKEN} characters a token`);
    return result;
  }
}

function present(kind: Part["kind"], name: string, text: string, path?: string): Part {
  return {
    kind,
    name,
    ...(path === undefined ? {} : { path }),
    present: true,
    chars: text.length,
    tokens: estimateTokens(text),
  };
}

function absent(kind: Part["kind"], name: string, note: string, path?: string): Part {
  return { kind, name, ...(path === undefined ? {} : { path }), present: false, chars: 0, tokens: 0, note };
}

/** Where the build puts the copies of KXM's own files that modes name (scripts/assets.mjs), under their paths. */
const ASSETS = new URL("../assets/", import.meta.url);

/**
 * Reads each part of `mode` under `root`, in the mode's order: its files, the memory brief, the project's skills,
 * then KXM's own files and skills from the CLI's assets.
 */
async function measure(root: string, mode: ModeDefinition): Promise<Part[]> {
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { isKxmError } = await import("@kxm/contract");
  const parts: Part[] = [];
  for (const file of mode.files) {
    try {
      parts.push(present("file", file, await readFile(join(root, ...file.split("/")), "utf8"), file));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const note = code === "ENOENT" || code === "ENOTDIR" ? "missing" : "not a readable file";
      parts.push(absent("file", file, note, file));
    }
  }
  if (mode.memoryBrief || mode.skills) {
    const memory = await import("@kxm/memory-git");
    if (mode.memoryBrief) {
      try {
        parts.push(
          present("memory-brief", "memory brief", memory.renderBrief(await memory.activeFacts(root))),
        );
      } catch (error) {
        if (!isKxmError(error)) throw error;
        parts.push(absent("memory-brief", "memory brief", `kxm memory brief fails (${error.code})`));
      }
    }
    if (mode.skills) {
      for (const skill of await memory.promotedSkillDocuments(root)) {
        parts.push(
          skill.text === undefined
            ? absent("skill", skill.name, "does not verify, so it is never loaded", skill.file)
            : present("skill", skill.name, skill.text, skill.file),
        );
      }
    }
  }
  for (const file of mode.kxmFiles ?? []) {
    const segments = file.split("/");
    const isSkill = segments.at(-1) === "SKILL.md" && segments.length >= 2;
    const kind = isSkill ? "kxm-skill" : "kxm-file";
    const name = isSkill ? segments.at(-2)! : file;
    try {
      parts.push(present(kind, name, await readFile(new URL(file, ASSETS), "utf8"), file));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      parts.push(absent(kind, name, "not in this kxm's assets (a broken build or install)", file));
    }
  }
  return parts;
}
