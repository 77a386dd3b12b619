// Config resolution: no vendor fallback, pass-cli only for a configured vault and item, bad values refused
// with browser_not_configured naming the variable, never its value.
import { expectKxmRejection } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import { DEFAULT_PASS_FIELD, DEFAULT_REQUEST_TIMEOUT_MS } from "../src/config.js";
import { resolveConfig, type SteelConfig } from "../src/index.js";

const BASE = { STEEL_API_URL: "https://steel.example.com", STEEL_API_KEY: "k-123", HOME: "/home/op" };

/** A lookup that records its calls and answers `key`. */
function lookup(key = "from-pass") {
  const calls: string[][] = [];
  const fn = async (vault: string, item: string, field: string) => {
    calls.push([vault, item, field]);
    return key;
  };
  return { fn, calls };
}

describe("resolveConfig", () => {
  test("STEEL_API_URL and STEEL_API_KEY are enough", async () => {
    const expected: SteelConfig = {
      apiUrl: "https://steel.example.com",
      key: "k-123",
      stateDir: "/home/op/.local/state/kxm/browser",
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    };
    await expect(resolveConfig(BASE)).resolves.toEqual(expected);
  });

  test.each([undefined, "", "   "])(
    "STEEL_API_URL unset (%j) is browser_not_configured: no default deployment",
    async (url) => {
      const lookups = lookup();
      const error = await expectKxmRejection(
        resolveConfig(
          { ...BASE, STEEL_API_URL: url, STEEL_PASS_VAULT: "v", STEEL_PASS_ITEM: "i" },
          lookups.fn,
        ),
        "browser_not_configured",
        400,
      );
      expect(error.message).toContain("STEEL_API_URL is unset");
      expect(lookups.calls).toEqual([]);
    },
  );

  test.each([
    "steel.example.com",
    "ftp://steel.example.com",
    "file:///tmp/x",
    "https://user:pass@steel.example.com",
    "https://steel.example.com/?apiKey=secret",
    "https://steel.example.com/#x",
    "http://",
  ])("STEEL_API_URL %s is refused, and the message does not repeat it", async (url) => {
    const error = await expectKxmRejection(
      resolveConfig({ ...BASE, STEEL_API_URL: url }),
      "browser_not_configured",
    );
    expect(error.message).toBe(
      "STEEL_API_URL must be an http:// or https:// URL without credentials, query or fragment",
    );
  });

  test("a trailing slash is dropped and a path prefix kept", async () => {
    const config = await resolveConfig({ ...BASE, STEEL_API_URL: "http://127.0.0.1:3000/steel/" });
    expect(config.apiUrl).toBe("http://127.0.0.1:3000/steel");
  });

  test("STEEL_UI_URL is checked like the API URL", async () => {
    expect((await resolveConfig({ ...BASE, STEEL_UI_URL: "https://ui.example.com/view/" })).uiUrl).toBe(
      "https://ui.example.com/view",
    );
    await expectKxmRejection(
      resolveConfig({ ...BASE, STEEL_UI_URL: "javascript:alert(1)" }),
      "browser_not_configured",
    );
  });

  test("STEEL_API_KEY wins over pass-cli: no lookup runs", async () => {
    const lookups = lookup();
    const config = await resolveConfig({ ...BASE, STEEL_PASS_VAULT: "v", STEEL_PASS_ITEM: "i" }, lookups.fn);
    expect(config.key).toBe("k-123");
    expect(lookups.calls).toEqual([]);
  });

  test("with no key, pass-cli runs for the configured vault and item, field STEEL_API_KEY by default", async () => {
    const lookups = lookup("  looked-up  ");
    const config = await resolveConfig(
      { ...BASE, STEEL_API_KEY: undefined, STEEL_PASS_VAULT: "Ops", STEEL_PASS_ITEM: "Steel prod" },
      lookups.fn,
    );
    expect(config.key).toBe("looked-up");
    expect(lookups.calls).toEqual([["Ops", "Steel prod", DEFAULT_PASS_FIELD]]);
  });

  test("STEEL_PASS_FIELD names another field", async () => {
    const lookups = lookup();
    await resolveConfig(
      {
        ...BASE,
        STEEL_API_KEY: "",
        STEEL_PASS_VAULT: "Ops",
        STEEL_PASS_ITEM: "Steel",
        STEEL_PASS_FIELD: "token",
      },
      lookups.fn,
    );
    expect(lookups.calls).toEqual([["Ops", "Steel", "token"]]);
  });

  test.each([
    ["neither", {}],
    ["only the vault", { STEEL_PASS_VAULT: "Ops" }],
    ["only the item", { STEEL_PASS_ITEM: "Steel" }],
  ])(
    "no key and %s configured: browser_not_configured, and no lookup of any built-in item",
    async (_what, pass) => {
      const lookups = lookup();
      const error = await expectKxmRejection(
        resolveConfig({ ...BASE, STEEL_API_KEY: undefined, ...pass }, lookups.fn),
        "browser_not_configured",
      );
      expect(error.message).toBe(
        "STEEL_API_KEY is unset: export it, or set STEEL_PASS_VAULT and STEEL_PASS_ITEM for a pass-cli lookup",
      );
      expect(lookups.calls).toEqual([]);
    },
  );

  test.each(["false", "0", "FALSE", " False "])("USE_PASS_CLI=%j turns the lookup off", async (flag) => {
    const lookups = lookup();
    const error = await expectKxmRejection(
      resolveConfig(
        {
          ...BASE,
          STEEL_API_KEY: undefined,
          USE_PASS_CLI: flag,
          STEEL_PASS_VAULT: "v",
          STEEL_PASS_ITEM: "i",
        },
        lookups.fn,
      ),
      "browser_not_configured",
    );
    expect(error.message).toBe("STEEL_API_KEY is unset and USE_PASS_CLI is false: export STEEL_API_KEY");
    expect(lookups.calls).toEqual([]);
  });

  test.each(["true", "1"])("USE_PASS_CLI=%s keeps it on", async (flag) => {
    const lookups = lookup();
    await resolveConfig(
      { ...BASE, STEEL_API_KEY: undefined, USE_PASS_CLI: flag, STEEL_PASS_VAULT: "v", STEEL_PASS_ITEM: "i" },
      lookups.fn,
    );
    expect(lookups.calls).toHaveLength(1);
  });

  test("USE_PASS_CLI must be a boolean", async () => {
    const error = await expectKxmRejection(
      resolveConfig({ ...BASE, USE_PASS_CLI: "maybe" }),
      "browser_not_configured",
    );
    expect(error.message).toBe("USE_PASS_CLI must be true, false, 1 or 0");
  });

  test("no lookup function given: browser_not_configured rather than a guess", async () => {
    await expectKxmRejection(
      resolveConfig({ ...BASE, STEEL_API_KEY: undefined, STEEL_PASS_VAULT: "v", STEEL_PASS_ITEM: "i" }),
      "browser_not_configured",
    );
  });

  test("a lookup that gives nothing usable is browser_key_lookup_failed", async () => {
    const env = { ...BASE, STEEL_API_KEY: undefined, STEEL_PASS_VAULT: "v", STEEL_PASS_ITEM: "i" };
    await expectKxmRejection(resolveConfig(env, lookup("   ").fn), "browser_key_lookup_failed", 503);
    const error = await expectKxmRejection(
      resolveConfig(env, lookup("two words").fn),
      "browser_key_lookup_failed",
    );
    expect(error.message).not.toContain("two words");
  });

  test("a key that cannot go into a header is refused without repeating it", async () => {
    const error = await expectKxmRejection(
      resolveConfig({ ...BASE, STEEL_API_KEY: "abc\r\nx-evil: 1" }),
      "browser_not_configured",
    );
    expect(error.message).not.toContain("abc");
    expect(error.message).toBe(
      "STEEL_API_KEY must be printable ASCII without spaces (it goes into an HTTP header)",
    );
  });

  test("the state folder: KXM_BROWSER_STATE_DIR, else XDG_STATE_HOME, else HOME", async () => {
    expect(
      (await resolveConfig({ ...BASE, KXM_BROWSER_STATE_DIR: "/srv/kxm", XDG_STATE_HOME: "/x" })).stateDir,
    ).toBe("/srv/kxm");
    expect((await resolveConfig({ ...BASE, XDG_STATE_HOME: "/x/state/" })).stateDir).toBe(
      "/x/state/kxm/browser",
    );
    expect((await resolveConfig({ ...BASE, XDG_STATE_HOME: "relative" })).stateDir).toBe(
      "/home/op/.local/state/kxm/browser",
    );
    await expectKxmRejection(
      resolveConfig({ ...BASE, KXM_BROWSER_STATE_DIR: "rel/dir" }),
      "browser_not_configured",
    );
    const error = await expectKxmRejection(
      resolveConfig({ ...BASE, HOME: undefined }),
      "browser_not_configured",
    );
    expect(error.message).toContain("KXM_BROWSER_STATE_DIR");
  });

  test.each(["99", "600001", "abc", "1e4", "-5", "30000.5"])(
    "KXM_BROWSER_TIMEOUT_MS=%s is refused",
    async (raw) => {
      const error = await expectKxmRejection(
        resolveConfig({ ...BASE, KXM_BROWSER_TIMEOUT_MS: raw }),
        "browser_not_configured",
      );
      expect(error.message).toBe(
        "KXM_BROWSER_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000",
      );
    },
  );

  test("KXM_BROWSER_TIMEOUT_MS sets the request timeout", async () => {
    expect((await resolveConfig({ ...BASE, KXM_BROWSER_TIMEOUT_MS: "2500" })).requestTimeoutMs).toBe(2500);
  });
});
