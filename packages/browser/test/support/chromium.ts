// A real headless Chromium (Debian's /usr/bin/chromium) for the relay, verify and service tests: a fresh
// profile, a free DevTools port, its own process group so that stopping it ends every helper process too.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CHROMIUM = "/usr/bin/chromium";

export interface Chromium {
  /** ws://127.0.0.1:<port>/devtools/browser/<uuid> */
  wsEndpoint: string;
  stop(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), "kxm-browser-chromium-"));
  const args = [
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "about:blank",
  ];
  if (process.getuid?.() === 0) args.unshift("--no-sandbox");
  const child = spawn(CHROMIUM, args, { detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const wsEndpoint = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${seen.slice(-500)}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`Chromium exited with ${code}: ${seen.slice(-500)}`)));
  });
  return {
    wsEndpoint,
    stop: async () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await exited;
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
