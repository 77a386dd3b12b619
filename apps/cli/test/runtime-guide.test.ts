import { execFile } from "node:child_process";
import { chmod, copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { BIN, baseEnv, commitAll, gitRepo, put, STACK_FRAME, tempDir } from "./support/cli.js";

// The Runtime guide's walkthrough, replayed: its workflow, agent configuration and toy agent are the files under
// docs/examples/runtime (the docs' `file=` blocks keep the guide equal to them), and every `$ kxm run ...` command
// of its transcript must print what the guide shows, durations aside.

const DOCS = fileURLToPath(new URL("../../../docs/", import.meta.url));
const GUIDE = join(DOCS, "guides", "runtime.md");
const EXAMPLES = join(DOCS, "examples", "runtime");

/** The guide's transcript: the fenced block holding `$ kxm run prompt`, split into commands and their output. */
async function transcript(): Promise<Array<{ command: string; output: string }>> {
  const guide = await readFile(GUIDE, "utf8");
  const block = [...guide.matchAll(/^```text[^\n]*\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1]!)
    .find((body) => body.startsWith("$ kxm run prompt"));
  expect(block, "the guide has no kxm run transcript").toBeDefined();
  const steps: Array<{ command: string; output: string }> = [];
  for (const line of block!.split("\n").slice(0, -1)) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: "" });
    else steps[steps.length - 1]!.output += `${line}\n`;
  }
  return steps;
}

/** Durations vary from run to run. */
function normalise(text: string): string {
  return text.replace(/ in \d+\.\d s/g, " in <t> s");
}

function sh(
  cwd: string,
  shim: string,
  line: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = baseEnv({ PATH: `${shim}:${process.env.PATH ?? ""}` });
    execFile("/bin/sh", ["-c", line], { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe("docs/guides/runtime.md", () => {
  test("the walkthrough prints what the guide shows", async () => {
    const root = await gitRepo("kxm-runtime-guide-");
    await copyFile(join(EXAMPLES, "fix-bug.yaml"), await put(root, ".kxm/workflows/fix-bug.yaml", ""));
    await copyFile(join(EXAMPLES, "use-pnpm.md"), await put(root, ".kxm/memory/use-pnpm.md", ""));
    await copyFile(join(EXAMPLES, "agents.yaml"), await put(root, ".kxm/agents.yaml", ""));
    await copyFile(join(EXAMPLES, "agent.mjs"), join(root, "agent.mjs"));
    await commitAll(root, "workflow, memory, agents");
    const shim = tempDir("kxm-runtime-guide-shim-");
    await writeFile(join(shim, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(shim, "kxm"), 0o755);

    const steps = await transcript();
    expect(steps.map((step) => step.command.split(" ").slice(0, 3).join(" "))).toEqual([
      "kxm run prompt",
      "kxm run start",
    ]);
    // The preview of the first step, taken before the run (after it, the run's own episodes would be in it)...
    const preview = await sh(
      root,
      shim,
      'kxm run prompt fix-bug --step plan --prompt "Fix the flaky release test." --project demo',
    );
    for (const step of steps) {
      const result = await sh(root, shim, step.command);
      expect(result.stderr, step.command).toBe("");
      expect(result.stdout).not.toMatch(STACK_FRAME);
      expect(result.code, step.command).toBe(0);
      expect(normalise(result.stdout), step.command).toBe(normalise(step.output));
    }
    // ...is exactly what its agent then received.
    const received = await readFile(join(root, ".kxm/runs/run_3f2a9c1d7e44/plan.1.prompt.md"), "utf8");
    expect(preview.stdout.replace("[preview:plan:1]", "[run_3f2a9c1d7e44:plan:1]")).toBe(received);
  }, 60_000);

  test("quotes the real message for a mistake in .kxm/agents.yaml", async () => {
    const root = await gitRepo("kxm-runtime-guide-bad-");
    await copyFile(join(EXAMPLES, "fix-bug.yaml"), await put(root, ".kxm/workflows/fix-bug.yaml", ""));
    await put(root, ".kxm/agents.yaml", "agents:\n  planner:\n    profile: cursor\n");
    const shim = tempDir("kxm-runtime-guide-shim-");
    await writeFile(join(shim, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(shim, "kxm"), 0o755);
    const result = await sh(root, shim, 'kxm run start fix-bug --prompt "x"');
    expect(result.code).toBe(1);
    const message = result.stderr.replace(/^run start failed: /, "").trim();
    const guide = (await readFile(GUIDE, "utf8")).replace(/\s+/g, " ");
    expect(guide).toContain(`\`${message}\``);
  });
});
