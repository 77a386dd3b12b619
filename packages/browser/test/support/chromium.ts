// One real headless Chromium (Debian's /usr/bin/chromium) for the relay, verify and service tests: the Steel
// test server's own launcher (a fresh profile, a free DevTools port, its own process group), so that both start
// Chromium with the same flags and stop every process it forks.
import { tmpdir } from "node:os";
import { type ChromiumProcess, launchChromium as launch } from "@kxm/steel-test-server";

export type Chromium = ChromiumProcess;

export function launchChromium(): Promise<Chromium> {
  return launch({ executablePath: "/usr/bin/chromium", parentDir: tmpdir() });
}
