#!/usr/bin/env node
// Start-up is what the SessionStart hook pays at every session start, so the commonest calls skip oclif:
// `kxm --version` reads package.json only, and `kxm memory brief` and `kxm memory revision` in their plain forms
// (only --json and --cwd) run from a bundle that holds just what they need (src/fast/). Everything else, and
// anything these paths do not handle exactly as oclif would, goes to oclif.
import { readFileSync } from "node:fs";
import { arch, release } from "node:os";

const argv = process.argv.slice(2);
// oclif prints its user agent when the first argument is --version; on WSL its platform reads "wsl", so leave
// that case (and any doubt) to oclif.
if (argv[0] === "--version" && !(process.platform === "linux" && /microsoft/i.test(release()))) {
  const { name, version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const cpu = arch() === "ia32" ? "x86" : arch();
  process.stdout.write(`${name}/${version} ${process.platform}-${cpu} node-${process.version}\n`);
} else if (!(argv[0] === "memory" && (await fastMemory(argv)))) {
  const { execute } = await import("@oclif/core");
  await execute({ dir: import.meta.url });
}

/** Runs `memory brief` or `memory revision` without oclif; false when it is not a call the fast path takes. */
async function fastMemory(args) {
  let fast;
  try {
    fast = await import("../dist/fast/memory.js");
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") return false;
    throw error;
  }
  return fast.runMemoryFast(args);
}
