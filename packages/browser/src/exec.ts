// Running work inside a session and releasing it in every case: a normal end, a failure, a signal.
import { spawn } from "node:child_process";
import { KxmError } from "@kxm/contract";
import { childEnv } from "./env.js";
import { startCdpRelay } from "./relay.js";
import type { Browser } from "./service.js";
import type { TrackedSession } from "./types.js";

/** The signals that end a session's work early: the session is released before the process goes. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 };

/**
 * Creates a session, gives it to `fn`, and releases it when `fn` settles, whether it resolved or threw. A
 * SIGINT, SIGTERM or SIGHUP meanwhile releases the session first, then ends the process with that signal.
 */
export async function withSession<T>(
  browser: Browser,
  options: { timeoutMs?: number },
  fn: (session: TrackedSession) => Promise<T>,
): Promise<T> {
  const { session } = await browser.create(
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  const onSignal = (signal: NodeJS.Signals) => {
    for (const name of SIGNALS) process.off(name, onSignal);
    void browser
      .release(session.id, "agent")
      .catch(() => undefined)
      .finally(() => process.kill(process.pid, signal));
  };
  for (const name of SIGNALS) process.on(name, onSignal);
  try {
    return await fn(session);
  } finally {
    for (const name of SIGNALS) process.off(name, onSignal);
    await browser.release(session.id, "agent");
  }
}

export interface RunInSessionOptions {
  /** The session timeout when a session is created (milliseconds). */
  timeoutMs?: number;
  /** The command's environment before KXM adds its two variables; this process's, less STEEL_API_KEY, by default. */
  env?: Record<string, string>;
  cwd?: string;
  stdio?: "inherit" | "ignore" | "pipe";
  /** Release the session afterwards: true for a session created here, false for one given by id. */
  release?: boolean;
  /** How often the relay checks the tracker for a person holding the session. */
  pollMs?: number;
}

export interface RunInSessionResult {
  sessionId: string;
  /** The command's exit status; 128 + the signal's number when a signal ended it. */
  exitCode: number;
  released: boolean;
  /** The signal this process received while the command ran, if any (it was forwarded to the command). */
  signal?: NodeJS.Signals;
}

/**
 * Runs `command` (no shell) with `KXM_BROWSER_CDP_URL` (a loopback relay, no key in it) and
 * `KXM_BROWSER_SESSION_ID` in its environment. With `id` undefined it creates a session and releases it in every
 * case: the command's exit, a signal to this process (forwarded to the command, then released), an error.
 */
export async function runInSession(
  browser: Browser,
  id: string | undefined,
  command: string[],
  options: RunInSessionOptions = {},
): Promise<RunInSessionResult> {
  const [program, ...args] = command;
  if (program === undefined || program === "")
    throw new KxmError("invalid_usage", "exec needs a command to run");
  const sessionId =
    id ??
    (await browser.create(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })).session
      .id;
  const release = options.release ?? id === undefined;
  let received: NodeJS.Signals | undefined;
  let relay: Awaited<ReturnType<typeof startCdpRelay>> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    received = signal;
    child?.kill(signal);
  };
  let child: ReturnType<typeof spawn> | undefined;
  for (const name of SIGNALS) process.on(name, onSignal);
  try {
    if (id !== undefined) await browser.cdpUrl(sessionId); // refuses a session a person holds, or a released one
    relay = await startCdpRelay({
      upstream: () => browser.cdpUrl(sessionId),
      allowed: () => {
        const row = browser.tracked(sessionId);
        return row === undefined || row.state === "AGENT_CONTROL" || row.state === "VERIFY_AUTHENTICATION";
      },
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
    const env = {
      ...(options.env ?? childEnv()),
      KXM_BROWSER_CDP_URL: relay.url,
      KXM_BROWSER_SESSION_ID: sessionId,
    };
    const started = spawn(program, args, {
      env,
      stdio: options.stdio ?? "inherit",
      shell: false,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    child = started;
    if (received !== undefined) started.kill(received);
    const exitCode = await new Promise<number>((resolve, reject) => {
      started.once("error", (error: NodeJS.ErrnoException) => {
        reject(
          new KxmError(
            "invalid_usage",
            error.code === "ENOENT"
              ? `command not found: ${program}`
              : `cannot run ${program}: ${error.code ?? error.message}`,
          ),
        );
      });
      started.once("close", (code, signal) => {
        resolve(code ?? 128 + (SIGNAL_NUMBERS[signal ?? ""] ?? 0));
      });
    });
    return {
      sessionId,
      exitCode,
      released: release,
      ...(received === undefined ? {} : { signal: received }),
    };
  } finally {
    for (const name of SIGNALS) process.off(name, onSignal);
    await relay?.close();
    if (release) await browser.release(sessionId, "agent");
  }
}
