// The pass-cli lookup, against a fake `pass-cli` script put first on PATH in a temp folder. The script stands in
// for the real pass-cli (Proton Pass's CLI, not installable here): it records its argv and answers as told.
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expectKxmRejection, tempDir } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import { passCliLookup, resolveConfig } from "../src/index.js";
import { PASS_CLI_TIMEOUT_MS } from "../src/pass-cli.js";

/** A folder holding an executable `pass-cli` with `body` as its shell script, and the PATH that finds it first. */
async function fakePassCli(body: string): Promise<{ env: Record<string, string>; argvFile: string }> {
  const dir = await tempDir("kxm-pass-cli-");
  const argvFile = join(dir, "argv");
  await writeFile(
    join(dir, "pass-cli"),
    `#!/bin/sh\n# Stands in for the real pass-cli in tests.\nprintf '%s\\n' "$@" > "${argvFile}"\n${body}\n`,
  );
  await chmod(join(dir, "pass-cli"), 0o755);
  return { env: { PATH: `${dir}:/usr/bin:/bin` }, argvFile };
}

describe("passCliLookup", () => {
  test("runs pass-cli item view with the vault, item and field as separate arguments, and trims stdout", async () => {
    const fake = await fakePassCli("printf '  sk-live-123\\n'");
    await expect(
      passCliLookup("Ops vault", "Steel; rm -rf /", "STEEL_API_KEY", { env: fake.env }),
    ).resolves.toBe("sk-live-123");
    expect((await readFile(fake.argvFile, "utf8")).split("\n").slice(0, -1)).toEqual([
      "item",
      "view",
      "--vault-name",
      "Ops vault",
      "--item-title",
      "Steel; rm -rf /",
      "--field",
      "STEEL_API_KEY",
    ]);
  });

  test("pass-cli not on PATH: browser_key_lookup_failed saying so", async () => {
    const dir = await tempDir();
    const error = await expectKxmRejection(
      passCliLookup("v", "i", "f", { env: { PATH: dir } }),
      "browser_key_lookup_failed",
      503,
    );
    expect(error.message).toBe(
      'pass-cli item view (vault "v", item "i", field "f"): pass-cli is not installed (not on PATH)',
    );
  });

  test("a failing pass-cli: its status and the first line of its stderr", async () => {
    const fake = await fakePassCli("echo 'item not found' >&2; echo 'second line' >&2; exit 3");
    const error = await expectKxmRejection(
      passCliLookup("v", "i", "f", { env: fake.env }),
      "browser_key_lookup_failed",
    );
    expect(error.message).toBe(
      'pass-cli item view (vault "v", item "i", field "f") exited with status 3: item not found',
    );
  });

  test("a failing pass-cli that printed the key on stdout does not leak it through stderr", async () => {
    const fake = await fakePassCli("echo 'sk-leak-999'; echo 'bad sk-leak-999' >&2; exit 1");
    const error = await expectKxmRejection(
      passCliLookup("v", "i", "f", { env: fake.env }),
      "browser_key_lookup_failed",
    );
    expect(error.message).not.toContain("sk-leak-999");
  });

  test("pass-cli that prints nothing", async () => {
    const fake = await fakePassCli("exit 0");
    const error = await expectKxmRejection(
      passCliLookup("v", "i", "f", { env: fake.env }),
      "browser_key_lookup_failed",
    );
    expect(error.message).toContain("printed nothing");
  });

  test("pass-cli that hangs is killed after the timeout (10 s unless told otherwise)", async () => {
    expect(PASS_CLI_TIMEOUT_MS).toBe(10_000);
    const fake = await fakePassCli("exec sleep 30");
    const started = Date.now();
    const error = await expectKxmRejection(
      passCliLookup("v", "i", "f", { env: fake.env, timeoutMs: 300 }),
      "browser_key_lookup_failed",
    );
    expect(error.message).toContain("no answer within 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("resolveConfig with the real lookup reads the key from the fake pass-cli", async () => {
    const fake = await fakePassCli("echo sk-from-pass");
    const config = await resolveConfig(
      {
        STEEL_API_URL: "http://127.0.0.1:1",
        STEEL_PASS_VAULT: "Ops",
        STEEL_PASS_ITEM: "Steel",
        HOME: "/home/x",
      },
      (vault, item, field) => passCliLookup(vault, item, field, { env: fake.env }),
    );
    expect(config.key).toBe("sk-from-pass");
  });
});
