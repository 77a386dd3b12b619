import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type ErrorCode, isKxmError } from "@kxm/contract";
import { Command, Flags, type Interfaces } from "@oclif/core";
import { debugEnabled, readEnv } from "./env.js";

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

  /** Prints a line unless --json is on. */
  protected say(line: string): void {
    this.log(line);
  }

  /** Fails with exit 1 and one line on stderr (or the error as JSON on stdout with --json). */
  protected fail(message: string, code: ErrorCode): never {
    if (this.jsonEnabled()) this.logJson({ error: { code, message } });
    else process.stderr.write(`${this.commandName} failed: ${message}\n`);
    return this.exit(EXIT.failed);
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    if (isKxmError(error)) return this.fail(error.message, error.code);
    if (error instanceof UsageError) {
      if (this.jsonEnabled()) this.logJson({ error: { code: "invalid_usage", message: error.message } });
      else process.stderr.write(`${error.message}\nSee: kxm ${this.commandName} --help\n`);
      return this.exit(EXIT.usage);
    }
    if (isExit(error)) throw error;
    if (debugEnabled()) process.stderr.write(`${error.stack}\n`);
    return this.fail(`unexpected error: ${error.message.split("\n")[0]}`, "internal_error");
  }
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
  return lines.join(" ").replace(/\s+/g, " ") || "invalid usage";
}
