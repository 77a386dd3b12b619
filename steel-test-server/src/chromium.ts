// One real, headless Chromium per call: its own process group and its own fresh profile folder, its DevTools
// WebSocket read from its standard error. kill() ends the whole group (renderers, zygotes, crash handler) and
// removes the profile; killAllSync() is the last guard when the Node process exits without closing the server.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * The flags every Chromium of the server gets, and that a local launch should get to compare with it (headless,
 * no GPU, no background networking, updates, sync or QUIC: without them it stalls on a closed network), plus
 * --no-sandbox as root, where Chromium refuses its sandbox (containers, CI).
 */
export function chromiumFlags(): string[] {
  const flags = [
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--password-store=basic",
  ];
  return process.getuid?.() === 0 ? ["--no-sandbox", ...flags] : flags;
}

function chromiumArgs(userDataDir: string): string[] {
  return [
    ...chromiumFlags(),
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    `--user-data-dir=${userDataDir}`,
    "about:blank",
  ];
}

export interface ChromiumProcess {
  readonly pid: number;
  /** ws://127.0.0.1:<port>/devtools/browser/<uuid>: the browser-level CDP endpoint. */
  readonly wsEndpoint: string;
  /** http://127.0.0.1:<port>: DevTools' HTTP side (/json/list). */
  readonly httpOrigin: string;
  readonly userDataDir: string;
  exited(): boolean;
  kill(): Promise<void>;
}

const live = new Set<{ pid: number; userDataDir: string }>();

/** Every process whose command line names `marker` (Linux /proc); empty elsewhere. */
export function pidsMentioning(marker: string): number[] {
  if (!existsSync("/proc")) return [];
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(join("/proc", entry, "cmdline"), "utf8");
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function killGroupAndStragglers(pid: number, userDataDir: string): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
  // A helper that left the group (Chromium's crash handler double-forks) still names the profile folder.
  for (const other of pidsMentioning(userDataDir)) {
    try {
      process.kill(other, "SIGKILL");
    } catch {
      // gone
    }
  }
}

function killAllSync(): void {
  for (const entry of live) {
    killGroupAndStragglers(entry.pid, entry.userDataDir);
    rmSync(entry.userDataDir, { recursive: true, force: true, maxRetries: 3 });
  }
  live.clear();
}

process.on("exit", killAllSync);

function waitForExit(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function launchChromium(options: {
  executablePath: string;
  parentDir: string;
  launchTimeoutMs?: number;
}): Promise<ChromiumProcess> {
  const userDataDir = await mkdtemp(join(options.parentDir, "profile-"));
  const child = spawn(options.executablePath, chromiumArgs(userDataDir), {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) {
    await rm(userDataDir, { recursive: true, force: true });
    const reason = await new Promise<string>((resolve) =>
      child.once("error", (error) => resolve(error.message)),
    );
    throw new Error(`Chromium did not start (${options.executablePath}): ${reason}`);
  }
  const entry = { pid, userDataDir };
  live.add(entry);
  let done = false;
  const kill = async () => {
    if (!live.has(entry)) return;
    live.delete(entry);
    killGroupAndStragglers(pid, userDataDir);
    await waitForExit(child, 5_000);
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  child.once("exit", () => {
    done = true;
  });
  try {
    const wsEndpoint = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      const timer = setTimeout(
        () =>
          reject(
            new Error(`Chromium printed no DevTools endpoint within ${options.launchTimeoutMs ?? 30_000} ms`),
          ),
        options.launchTimeoutMs ?? 30_000,
      );
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => {
        if (stderr.length < 64_000) stderr += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        const last = stderr.trim().split("\n").at(-1) ?? "";
        reject(new Error(`Chromium exited (${code ?? signal}) before its DevTools endpoint: ${last}`));
      });
    });
    // Keep draining standard error so a chatty Chromium never blocks on a full pipe.
    child.stderr?.removeAllListeners("data");
    child.stderr?.resume();
    const url = new URL(wsEndpoint);
    return {
      pid,
      wsEndpoint,
      httpOrigin: `http://${url.host}`,
      userDataDir,
      exited: () => done,
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
