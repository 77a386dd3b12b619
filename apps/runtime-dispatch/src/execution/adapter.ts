import { spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { PROMPT_FILE_PLACEHOLDER, type ResolvedAdapter } from "../definitions/agents.js";

/** How long a timed-out or cancelled agent gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** How much of the agent's standard output is kept in memory (the rest is only in the output file). */
export const OUTPUT_TAIL_BYTES = 64 * 1024;

export interface AgentInvocation {
  adapter: ResolvedAdapter;
  prompt: string;
  /** Absolute path of the prompt file, already written; substituted for `{promptFile}`. */
  promptFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard output is written here as it arrives. */
  outputFile: string;
  /** Standard error is written here as it arrives. */
  errorFile: string;
  /** Aborting stops the agent (SIGTERM to its process group, SIGKILL after the grace period). */
  signal?: AbortSignal;
}

type AgentExitStatus = "exited" | "timed_out" | "cancelled" | "not_started";

export interface AgentExit {
  status: AgentExitStatus;
  /** The exit code when the agent exited by itself. */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal: string | null;
  durationMs: number;
  /** The last {@link OUTPUT_TAIL_BYTES} bytes of standard output, as UTF-8. */
  outputTail: string;
  /** Why the agent could not start (`command not found: claude`), or why its output could not be saved. */
  reason?: string;
}

/** The command line with `{promptFile}` replaced. */
function commandLine(adapter: ResolvedAdapter, promptFile: string): string[] {
  return adapter.argv.map((part) => part.split(PROMPT_FILE_PLACEHOLDER).join(promptFile));
}

class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= OUTPUT_TAIL_BYTES) {
      this.size -= this.chunks.shift()!.length;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - OUTPUT_TAIL_BYTES)).toString("utf8");
  }
}

function startReason(error: NodeJS.ErrnoException, program: string): string {
  if (error.code === "ENOENT") return `command not found: ${program}`;
  if (error.code === "EACCES") return `cannot execute ${program} (permission denied)`;
  return `cannot start ${program} (${error.code ?? error.message})`;
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await finished(stream).catch(() => undefined);
}

/**
 * Runs one agent: the prompt on its standard input (or as a file), standard output and error streamed to files,
 * the whole process group stopped at the adapter's time limit or when `signal` aborts. Never throws for anything
 * the agent does; a program that cannot start is `not_started` with a reason.
 */
export async function runAgent(invocation: AgentInvocation): Promise<AgentExit> {
  const argv = commandLine(invocation.adapter, invocation.promptFile);
  const program = argv[0]!;
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const out = createWriteStream(invocation.outputFile);
  const err = createWriteStream(invocation.errorFile);
  const tail = new Tail();
  // A file that cannot be written fails the step instead of the process.
  let saveError: string | undefined;
  const onSaveError = (error: NodeJS.ErrnoException) => {
    saveError ??= `cannot save the agent's output (${error.code ?? error.message})`;
  };
  out.on("error", onSaveError);
  err.on("error", onSaveError);
  if (invocation.signal?.aborted) {
    await Promise.all([close(out), close(err)]);
    return { status: "cancelled", exitCode: null, signal: null, durationMs: 0, outputTail: "" };
  }
  const child = spawn(program, argv.slice(1), {
    cwd: invocation.cwd,
    env: invocation.env,
    stdio: [invocation.adapter.input === "stdin" ? "pipe" : "ignore", "pipe", "pipe"],
    // Its own process group, so that a time-out stops the agent and everything it started.
    detached: true,
  });
  let stopping: "timed_out" | "cancelled" | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (why: "timed_out" | "cancelled") => {
    // Not skipped when the agent itself has exited: what it started may still hold its output open.
    if (stopping !== undefined || child.pid === undefined) return;
    stopping = why;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // The group is already gone.
      }
    };
    kill("SIGTERM");
    killTimer = setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
    killTimer.unref();
  };
  const timer = setTimeout(() => stop("timed_out"), invocation.adapter.timeoutMs);
  const onAbort = () => stop("cancelled");
  invocation.signal?.addEventListener("abort", onAbort, { once: true });
  // The group is the agent's own, so a terminal's Ctrl-C does not reach it: if this process exits while the agent
  // runs (a second Ctrl-C, process.exit), the group goes with it.
  const onExit = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  process.on("exit", onExit);

  child.stdout!.on("data", (chunk: Buffer) => {
    tail.push(chunk);
    out.write(chunk);
  });
  child.stderr!.on("data", (chunk: Buffer) => err.write(chunk));
  if (child.stdin) {
    // An agent that exits without reading its input is not an error of ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(invocation.prompt);
  }

  const result = await new Promise<AgentExit>((done) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      done({
        status: "not_started",
        exitCode: null,
        signal: null,
        durationMs: elapsed(),
        outputTail: "",
        reason: startReason(error, program),
      });
    });
    child.once("close", (code, signal) => {
      done({
        status: stopping ?? "exited",
        exitCode: stopping === undefined ? code : null,
        signal,
        durationMs: elapsed(),
        outputTail: tail.text(),
      });
    });
  });
  clearTimeout(timer);
  if (killTimer !== undefined) {
    // A stopped agent is gone; anything it started that ignored SIGTERM is not spared the SIGKILL.
    clearTimeout(killTimer);
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  }
  invocation.signal?.removeEventListener("abort", onAbort);
  process.off("exit", onExit);
  await Promise.all([close(out), close(err)]);
  if (saveError !== undefined && result.status === "exited") {
    return { ...result, reason: saveError };
  }
  return result;
}
