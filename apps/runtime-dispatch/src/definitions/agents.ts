import { KxmError } from "@kxm/contract";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { AGENT_PATTERN } from "./workflow.js";
import { parseYamlFile, readProjectFile } from "./yaml-file.js";

/** Where agent adapters are configured, relative to the project root. */
const AGENTS_FILE = KXM_PATHS.agents;
/** An agent step's time limit unless its adapter sets `timeoutSeconds`: 30 minutes. */
const DEFAULT_TIMEOUT_SECONDS = 1_800;
/** Replaced, in any argument of a command, by the absolute path of the step's prompt file. */
export const PROMPT_FILE_PLACEHOLDER = "{promptFile}";

/** How the prompt reaches the agent: on its standard input, or as a file whose path is an argument. */
type PromptInput = "stdin" | "file";

interface Profile {
  /** The program and the arguments that come before the adapter's `args`. */
  command: readonly string[];
  /** Arguments after the adapter's `args` (codex reads the prompt from stdin when it ends with `-`). */
  trailing: readonly string[];
}

/** Ready adapters for the common agent CLIs; each reads the prompt on stdin and prints its answer. */
const PROFILES = {
  claude: { command: ["claude", "-p"], trailing: [] },
  codex: { command: ["codex", "exec"], trailing: ["-"] },
  gemini: { command: ["gemini"], trailing: [] },
} as const satisfies Record<string, Profile>;
type ProfileName = keyof typeof PROFILES;

const arg = z.string().min(1, "must be a non-empty string").max(4_096);

const AdapterSchema = z
  .strictObject({
    /** A ready profile: `claude` (`claude -p`), `codex` (`codex exec -`) or `gemini`. */
    profile: z.enum(Object.keys(PROFILES) as [ProfileName, ...ProfileName[]]).optional(),
    /** Extra arguments for a profile, such as `[--model, opus]`. */
    args: z.array(arg).max(64).optional(),
    /** A command of your own: the program, then its arguments. */
    command: z.array(arg).min(1, "must name the program").max(64).optional(),
    /** `stdin` (default) or `file`. */
    input: z.enum(["stdin", "file"]).optional(),
    timeoutSeconds: z.number().int("must be a whole number").min(1).max(86_400).optional(),
  })
  .superRefine((adapter, ctx) => {
    if ((adapter.profile === undefined) === (adapter.command === undefined)) {
      ctx.addIssue({ code: "custom", path: [], message: "must set exactly one of profile and command" });
    }
    if (adapter.args !== undefined && adapter.profile === undefined) {
      ctx.addIssue({ code: "custom", path: ["args"], message: "is only for a profile; put them in command" });
    }
    if (adapter.input !== undefined && adapter.profile !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["input"],
        message: "is only for a command; profiles read stdin",
      });
    }
  });
type AdapterConfig = z.infer<typeof AdapterSchema>;

const ConfigObject = z.strictObject({
  /** The adapter of every agent id that `agents` does not list. */
  default: AdapterSchema.optional(),
  agents: z
    .record(
      z.string().max(64).regex(AGENT_PATTERN, "agent ids are letters, digits, '.', '_' or '-'"),
      AdapterSchema,
    )
    .optional(),
});
/** `.kxm/agents.yaml`; an empty file (or one holding only comments) configures nothing. */
const AgentsConfigSchema = z.preprocess((value) => value ?? {}, ConfigObject);
export type AgentsConfig = z.infer<typeof ConfigObject>;

/** An adapter ready to run: the full command line and how it gets the prompt. */
export interface ResolvedAdapter {
  /** The program and its arguments; `{promptFile}` is substituted when the step runs. */
  argv: string[];
  input: PromptInput;
  timeoutMs: number;
  /** `profile:claude`, `command` or `default:…`: where the adapter came from, for status output. */
  source: string;
}

/** Parses the text of `.kxm/agents.yaml`; problems name the file, the line and the rule. */
export function parseAgentsConfig(source: string): AgentsConfig {
  return parseYamlFile(AGENTS_FILE, source, AgentsConfigSchema).value;
}

/** Loads `.kxm/agents.yaml`; a project without one has no adapters (every step then needs a default). */
export async function loadAgentsConfig(root: string): Promise<AgentsConfig> {
  const source = await readProjectFile(root, AGENTS_FILE);
  if (source === undefined) return {};
  return parseAgentsConfig(source);
}

function resolve(adapter: AdapterConfig, source: string): ResolvedAdapter {
  const timeoutMs = (adapter.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1_000;
  if (adapter.profile !== undefined) {
    const profile: Profile = PROFILES[adapter.profile];
    return {
      argv: [...profile.command, ...(adapter.args ?? []), ...profile.trailing],
      input: "stdin",
      timeoutMs,
      source: `${source}profile:${adapter.profile}`,
    };
  }
  const input = adapter.input ?? "stdin";
  const argv = [...(adapter.command ?? [])];
  if (input === "file" && !argv.some((part) => part.includes(PROMPT_FILE_PLACEHOLDER))) {
    argv.push(PROMPT_FILE_PLACEHOLDER);
  }
  return { argv, input, timeoutMs, source: `${source}command` };
}

/** The adapter for `agent`: its own entry, else `default`, else `undefined`. */
export function adapterFor(config: AgentsConfig, agent: string): ResolvedAdapter | undefined {
  const own = config.agents?.[agent];
  if (own !== undefined) return resolve(own, "");
  if (config.default !== undefined) return resolve(config.default, "default:");
  return undefined;
}

/**
 * The adapter of every listed agent, in order; an agent without one is `invalid_request` naming it and the file,
 * so a run never starts that could not finish.
 */
export function adaptersFor(config: AgentsConfig, agents: readonly string[]): Map<string, ResolvedAdapter> {
  const out = new Map<string, ResolvedAdapter>();
  for (const agent of agents) {
    if (out.has(agent)) continue;
    const adapter = adapterFor(config, agent);
    if (adapter === undefined) {
      throw new KxmError(
        "invalid_request",
        `no adapter for agent ${agent}: add it under agents: in ${AGENTS_FILE}, or set a default: there`,
      );
    }
    out.set(agent, adapter);
  }
  return out;
}
