#!/usr/bin/env node
// The one entry point behind the README's commands (`npm run demo`, `npm test`, `npm run bench`,
// `npm run reliability`).
// It works on a machine with only Node and npm: it runs the pnpm version pinned in package.json (through npx
// when that version is not on PATH, so nothing is installed globally), installs the workspace, then runs the task.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { packageManager } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpmVersion = packageManager.replace(/^pnpm@/, "");
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  TURBO_NO_UPDATE_NOTIFIER: "1",
};
const shell = process.platform === "win32";

function pnpm() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8", shell });
  if (probe.status === 0 && probe.stdout.trim() === pnpmVersion) return ["pnpm"];
  return ["npx", "--yes", `pnpm@${pnpmVersion}`];
}

const pnpmCmd = pnpm();

function run(label, args, options = {}) {
  const [cmd, ...rest] = [...pnpmCmd, ...args];
  const result = spawnSync(cmd, rest, { cwd: root, env, stdio: "inherit", shell, ...options });
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status || 1);
  }
}

function install() {
  run("install", ["install", "--frozen-lockfile", "--reporter=append-only"]);
}

/**
 * Puts the built `kxm` on PATH for every new shell, hook and MCP server: `npm install -g ./apps/cli` links this
 * checkout's CLI into npm's global folder (a symlink: later builds are picked up, nothing is copied or fetched).
 * A refusal (a global folder the user cannot write) is reported with what to do, and the demo goes on.
 */
function installCli() {
  const cli = join(root, "apps", "cli");
  const npmArgs = ["install", "--global", "--no-audit", "--no-fund", "--loglevel=error", cli];
  const result = spawnSync("npm", npmArgs, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"], shell });
  const prefix = spawnSync("npm", ["prefix", "--global"], { cwd: root, env, encoding: "utf8", shell });
  const bin = process.platform === "win32" ? prefix.stdout.trim() : join(prefix.stdout.trim(), "bin");
  if (result.status !== 0) {
    const reason =
      String(result.stderr ?? "")
        .split("\n")
        .find((line) => line.trim() !== "") ?? "";
    console.error(
      `\nkxm was not installed into npm's global folder ${bin} (${reason.trim() || `exit ${result.status}`}).\n` +
        "Give npm a global folder you own (npm config set prefix ~/.npm-global, then put ~/.npm-global/bin on " +
        "PATH) and run npm run demo again, or run the CLI as node apps/cli/bin/run.js.\n",
    );
    return;
  }
  const onPath = (process.env.PATH ?? "").split(delimiter).some((dir) => resolve(dir) === resolve(bin));
  console.log(
    `\nInstalled kxm from this checkout into npm's global folder: ${join(bin, "kxm")} (undo: npm uninstall -g @kxm/cli).`,
  );
  if (!onPath) console.log(`${bin} is not on your PATH: add it to run kxm by name.`);
  console.log("");
}

/** The agent-browser release the browser tests drive (its CLI ships its native binary inside the npm package). */
const AGENT_BROWSER = "agent-browser@0.41.2";

/**
 * Installs agent-browser outside the pnpm workspace, into node_modules/.cache/kxm/agent-browser, and returns the
 * environment that names it for the browser tests. Its engines field asks for Node 24 although it runs on Node 20,
 * so it is kept out of the workspace rather than weakening engine-strict. Its install script only downloads a
 * binary the package already holds, so it is skipped. KXM_AGENT_BROWSER_BIN set by the caller wins.
 */
function agentBrowserEnv(cacheDir) {
  if (process.env.KXM_AGENT_BROWSER_BIN) return {};
  const prefix = join(cacheDir, "agent-browser");
  const bin = join(prefix, "node_modules", "agent-browser", "bin", "agent-browser.js");
  const probe = spawnSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
  if (probe.status !== 0 || !probe.stdout.includes(AGENT_BROWSER.split("@")[1])) {
    mkdirSync(prefix, { recursive: true });
    const npmArgs = ["install", "--prefix", prefix, "--no-save", "--ignore-scripts", "--engine-strict=false"];
    const args = [...npmArgs, "--no-audit", "--no-fund", "--loglevel=error", AGENT_BROWSER];
    const result = spawnSync("npm", args, { cwd: root, env, stdio: "inherit", shell });
    if (result.status !== 0) {
      console.error(`\ninstalling ${AGENT_BROWSER} for the browser tests failed (exit ${result.status}).`);
      process.exit(1);
    }
  }
  return { KXM_AGENT_BROWSER_BIN: bin };
}

/** The browser tests drive a real Chromium: Debian's package, never a downloaded one. */
function checkChromium() {
  const path = "/usr/bin/chromium";
  const probe = spawnSync(path, ["--version"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.error(
      `\nThe browser tests need Chromium at ${path}: install it (sudo apt-get install chromium on Debian or ` +
        "Ubuntu; .ci/run does this).",
    );
    process.exit(1);
  }
}

function summarizeVitest(file) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  const skipped = report.numPendingTests + report.numTodoTests;
  // A plain closing line that any CI reader understands, whatever the runner prints above it.
  console.log(
    `\ntests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
  );
  return report.numTotalTests > 0 && report.numFailedTests === 0 && report.success;
}

const tasks = {
  demo() {
    install();
    run("build", [
      "exec",
      "turbo",
      "run",
      "build",
      "--filter=@kxm/examples...",
      "--filter=@kxm/cli...",
      "--output-logs=errors-only",
    ]);
    installCli();
    run("demo", ["--filter", "@kxm/examples", "run", "demo"]);
  },
  test() {
    install();
    run("build and typecheck", ["exec", "turbo", "run", "build", "typecheck", "--output-logs=errors-only"]);
    run("typecheck of root scripts and docs", ["exec", "tsc", "-p", "tsconfig.json"]);
    run("lint", ["exec", "biome", "ci", "."]);
    run("layer check", ["run", "layers"]);
    run("unused files, exports and dependencies check (pnpm knip, knip.jsonc)", ["run", "knip"]);
    const reportDir = join(root, "node_modules", ".cache", "kxm");
    mkdirSync(reportDir, { recursive: true });
    checkChromium();
    const testEnv = { ...env, ...agentBrowserEnv(reportDir) };
    const reportFile = join(reportDir, "vitest-report.json");
    const [cmd, ...rest] = [
      ...pnpmCmd,
      "exec",
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${reportFile}`,
    ];
    const result = spawnSync(cmd, rest, { cwd: root, env: testEnv, stdio: "inherit", shell });
    const ok = summarizeVitest(reportFile);
    process.exit(result.status === 0 && ok ? 0 : 1);
  },
  bench() {
    install();
    run("build", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
    run("bench", ["--filter", "@kxm/bench", "run", "bench", "--", ...process.argv.slice(3)]);
  },
  reliability() {
    install();
    run("build", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
    run("reliability", [
      "--filter",
      "@kxm/reliability",
      "run",
      "reliability",
      "--",
      ...process.argv.slice(3),
    ]);
  },
};

const task = tasks[process.argv[2]];
if (!task) {
  console.error(`usage: node scripts/dev.mjs <${Object.keys(tasks).join("|")}>`);
  process.exit(2);
}
task();
