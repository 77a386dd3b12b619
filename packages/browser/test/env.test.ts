// readBrowserEnv: the STEEL_* and KXM_BROWSER_* variables from the process, and nothing else.
import { afterEach, expect, test } from "vitest";
import { readBrowserEnv } from "../src/index.js";

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

test("reads the browser variables, and only those", () => {
  process.env.STEEL_API_URL = "https://steel.example.com";
  process.env.STEEL_PASS_VAULT = "Ops";
  process.env.KXM_BROWSER_TIMEOUT_MS = "5000";
  process.env.UNRELATED_SECRET = "x";
  const env = readBrowserEnv();
  expect(env.STEEL_API_URL).toBe("https://steel.example.com");
  expect(env.STEEL_PASS_VAULT).toBe("Ops");
  expect(env.KXM_BROWSER_TIMEOUT_MS).toBe("5000");
  expect(Object.keys(env).sort()).toEqual([
    "HOME",
    "KXM_BROWSER_STATE_DIR",
    "KXM_BROWSER_TIMEOUT_MS",
    "STEEL_API_KEY",
    "STEEL_API_URL",
    "STEEL_PASS_FIELD",
    "STEEL_PASS_ITEM",
    "STEEL_PASS_VAULT",
    "STEEL_UI_URL",
    "USE_PASS_CLI",
    "XDG_STATE_HOME",
  ]);
});
