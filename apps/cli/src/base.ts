import { isKxmError } from "@kxm/contract";
import { Command, Flags, type Interfaces } from "@oclif/core";
import { readEnv } from "./env.js";

/** Exit codes of every kxm command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof KxmCommand)["baseFlags"] & T["flags"]
>;

/**
 * The base of every kxm command: `--cwd` and `--json`, project-root discovery, and one way to fail. An expected
 * failure (a `KxmError`) prints one line, `<topic> <command> failed: <message>`, on stderr and exits 1; a usage
 * error exits 2; nothing prints a stack trace unless KXM_DEBUG=1.
 */
export abstract class KxmCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    cwd: Flags.directory({
      description: "Folder to run in; the project root is the nearest folder above it holding .kxm/ or .git",
      helpGroup: "GLOBAL",
    }),
  };

  /** The command as typed: `memory sync`. */
  protected get commandName(): string {
    return (this.id ?? "kxm").split(":").join(" ");
  }

  /** The project root for `--cwd` (or the current folder). */
  protected async projectRoot(cwd: string | undefined): Promise<string> {
    const { findProjectRoot } = await import("@kxm/memory-git");
    return findProjectRoot(cwd ?? process.cwd());
  }

  /** Who the command acts as: KXM_ACTOR, else git's user.email, else the operating system's user name. */
  protected async actor(root: string): Promise<string> {
    const env = readEnv();
    if (env.KXM_ACTOR) return env.KXM_ACTOR;
    const { execFile } = await import("node:child_process");
    const email = await new Promise<string>((resolve) => {
      execFile("git", ["-C", root, "config", "user.email"], { timeout: 5000 }, (error, stdout) =>
        resolve(error ? "" : stdout.trim()),
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
  protected fail(message: string, code = "command_failed"): never {
    if (this.jsonEnabled()) this.logJson({ error: { code, message } });
    else process.stderr.write(`${this.commandName} failed: ${message}\n`);
    return this.exit(EXIT.failed);
  }

  override async catch(error: Error & { oclif?: { exit?: number }; parse?: unknown }): Promise<unknown> {
    if (isKxmError(error)) return this.fail(error.message, error.code);
    if (error.parse !== undefined || error.oclif?.exit === EXIT.usage) {
      const message = usageLine(error.message);
      if (this.jsonEnabled()) this.logJson({ error: { code: "usage", message } });
      else process.stderr.write(`${message}\nSee: kxm ${this.commandName} --help\n`);
      return this.exit(EXIT.usage);
    }
    if (error.oclif?.exit !== undefined) throw error;
    if (readEnv().KXM_DEBUG === "1") process.stderr.write(`${error.stack}\n`);
    return this.fail(`unexpected error: ${error.message.split("\n")[0]}`, "internal_error");
  }
}

/** oclif's usage errors span several lines (the problem, then the argument list and a help hint): keep one. */
function usageLine(message: string): string {
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("See more help with"));
  return lines.join(" ").replace(/\s+/g, " ") || "invalid usage";
}
