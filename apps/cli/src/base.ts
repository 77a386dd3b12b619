import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { format } from "node:util";
import { type ErrorCode, isKxmError } from "@kxm/contract";
import { Command, Flags, type Interfaces } from "@oclif/core";
import { debugEnabled, readEnv } from "./env.js";
import { fileFailureLine } from "./fs-failure.js";
import { terminalJson, terminalLine, terminalText } from "./terminal-text.js";

type FlagOutput = { [name: string]: unknown };
type ArgOutput = { [name: string]: unknown };

/** Exit codes of every kxm command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in how the command was called: exit 2, with a pointer to the command's help. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * The base of every kxm command: `--cwd` and `--json`, project-root discovery, and one way to fail. An expected
 * failure (a `KxmError`) prints one line, `<topic> <command> failed: <message>`, on stderr and exits 1; a usage
 * error exits 2; nothing prints a stack trace unless KXM_DEBUG=1.
 */
export abstract class KxmCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    cwd: Flags.string({
      description:
        "Folder to run in; the project root is the nearest folder, it or above it, holding .kxm/ or .git",
      helpGroup: "GLOBAL",
    }),
  };

  /** The command as typed: `memory sync`. */
  protected get commandName(): string {
    return (this.id ?? "kxm").split(":").join(" ");
  }

  // Anything that goes wrong while reading the command line is a usage error, whatever oclif throws.
  protected override async parse<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv);
    } catch (error) {
      if (error instanceof Error && !isExit(error)) throw new UsageError(usageLine(error.message));
      throw error;
    }
  }

  /** The folder the command runs in: `--cwd`, checked, or the current folder. */
  protected async workingFolder(cwd: string | undefined): Promise<string> {
    if (cwd === undefined) return process.cwd();
    const folder = resolve(cwd);
    const isFolder = await stat(folder).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) throw new UsageError(`--cwd: no folder at ${cwd}`);
    return folder;
  }

  /** The project root for `--cwd` (or the current folder). */
  protected async projectRoot(cwd: string | undefined): Promise<string> {
    const folder = await this.workingFolder(cwd);
    const { findProjectRoot } = await import("@kxm/memory-git");
    return findProjectRoot(folder);
  }

  /** Who the command acts as: KXM_ACTOR, else git's user.email, else the operating system's user name. */
  protected async actor(root: string): Promise<string> {
    const read = readEnv();
    if ("problem" in read) throw new UsageError(read.problem);
    if (read.env.KXM_ACTOR) return read.env.KXM_ACTOR;
    const { execFile } = await import("node:child_process");
    const email = await new Promise<string>((done) => {
      execFile("git", ["-C", root, "config", "user.email"], { timeout: 5000 }, (error, stdout) =>
        done(error ? "" : stdout.trim()),
      );
    });
    if (email) return email;
    const { userInfo } = await import("node:os");
    return userInfo().username;
  }

  /**
   * A hub's validation message in this command's words: the hub names what it checked (`request body id`,
   * `query parameter asOf`, `path parameter itemId`), the operator typed an argument or a flag (`<id>`, `--as-of`).
   */
  protected inCliTerms(message: string): string {
    const command = this.constructor as typeof KxmCommand;
    return inCliTerms(message, Object.keys(command.args ?? {}), Object.keys(command.flags ?? {}));
  }

  /** Prints a line unless --json is on. */
  protected say(line: string): void {
    this.log(line);
  }

  // The output boundary: everything a command prints goes through these, so no text from outside (a hub's detail,
  // a file's contents, a run's name) reaches the terminal with an escape sequence or a control character in it.

  override log(message = "", ...args: unknown[]): void {
    if (this.jsonEnabled()) return;
    process.stdout.write(`${terminalText(format(message, ...args))}\n`);
  }

  override logToStderr(message = "", ...args: unknown[]): void {
    if (this.jsonEnabled()) return;
    process.stderr.write(`${terminalText(format(message, ...args))}\n`);
  }

  /** --json output: exact values, escaped so that no raw control character is printed (terminal-text.ts). */
  override logJson(json: unknown): void {
    process.stdout.write(terminalJson(json));
  }

  /** Writes text as it is (a prompt, a brief), less escape sequences and controls; keeps newlines and tabs. */
  protected writeOut(text: string): void {
    process.stdout.write(terminalText(text));
  }

  /** Writes one line on stderr (a warning, a problem), as one safe line. */
  protected writeErrLine(line: string): void {
    process.stderr.write(`${terminalLine(line)}\n`);
  }

  /** Fails with exit 1 and one line on stderr (or the error as JSON on stdout with --json). */
  protected fail(message: string, code: ErrorCode): never {
    if (this.jsonEnabled()) this.logJson({ error: { code, message } });
    else this.writeErrLine(`${this.commandName} failed: ${message}`);
    return this.exit(EXIT.failed);
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    if (isKxmError(error)) return this.fail(this.inCliTerms(error.message), error.code);
    if (error instanceof UsageError) {
      if (this.jsonEnabled()) this.logJson({ error: { code: "invalid_usage", message: error.message } });
      else {
        this.writeErrLine(error.message);
        this.writeErrLine(`See: kxm ${this.commandName} --help`);
      }
      return this.exit(EXIT.usage);
    }
    if (isExit(error)) throw error;
    // Neither a refused write nor an unexpected error is a KxmError: KXM_DEBUG=1 shows where either came from.
    if (debugEnabled()) process.stderr.write(`${error.stack}\n`);
    const refused = fileFailureLine(error);
    if (refused !== undefined) return this.fail(refused, "file_unwritable");
    return this.fail(`unexpected error: ${error.message.split("\n")[0]}`, "internal_error");
  }
}

// How the hub names the part of a request that failed validation (apps/hub/src/problems.ts), then the field path.
const HUB_SUBJECT = /^(?:request body|query parameter|path parameter|header) ([^\s:]+):/;

const kebab = (field: string) => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * The argument (`<item-id>`) or flag (`--as-of`) that carried a hub field: the argument or flag of the same name in
 * kebab case, an argument named for an id field without its `-id` (`entryId`, `<entry>`), or a flag whose name
 * starts or ends the field's (`budgetTokens`, `--budget`; `evidenceRefs`, `--evidence`; `includeKinds`, `--kinds`).
 */
function cliName(field: string, args: readonly string[], flags: readonly string[]): string | undefined {
  const name = kebab(field);
  const arg = args.find((candidate) => candidate === name || `${candidate}-id` === name);
  if (arg !== undefined) return `<${arg}>`;
  const flag =
    flags.find((candidate) => candidate === name) ??
    flags.find((candidate) => name.startsWith(`${candidate}-`) || name.endsWith(`-${candidate}`));
  return flag === undefined ? undefined : `--${flag}`;
}

/**
 * Rewrites a hub validation message so that it names the command's argument or flag, and an element of a repeated
 * flag by its position (`--evidence (value 2)`). A field no argument or flag carries keeps its name, as the hub's.
 */
export function inCliTerms(message: string, args: readonly string[], flags: readonly string[]): string {
  const match = HUB_SUBJECT.exec(message);
  if (match === null) return message;
  const [field = "", ...rest] = match[1]!.split(".");
  const name = cliName(field, args, flags);
  const index = rest.length > 0 && /^\d+$/.test(rest[0]!) ? Number(rest.shift()) + 1 : undefined;
  const label =
    name === undefined
      ? `the hub's field ${match[1]}`
      : [
          name,
          index === undefined ? "" : ` (value ${index})`,
          rest.length > 0 ? ` ${rest.join(".")}` : "",
        ].join("");
  return `${label}:${message.slice(match[0].length)}`;
}

/** oclif's own exit (from `this.exit`), which must pass through untouched. */
function isExit(error: Error & { oclif?: { exit?: number }; code?: unknown }): boolean {
  return error.code === "EEXIT";
}

/** oclif's usage errors span several lines (the problem, then the argument list and a help hint): keep one. */
function usageLine(message: string): string {
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("See more help with"));
  // oclif heads some messages "The following error occurred:", which says nothing the line itself does not.
  const line = lines
    .join(" ")
    .replace(/\s+/g, " ")
    .replace(/^The following errors? occurred:\s*/, "");
  return line || "invalid usage";
}
