// Resolving the Steel configuration from environment values: pure, except the key lookup the caller injects.
// There is no default deployment and no default vault item: what is not configured is an error that says what
// to set (decision 2 of the browser design).
import { KxmError } from "@kxm/contract";

/** The default time a REST call to Steel may take: 30 seconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The field `pass-cli` reads when STEEL_PASS_FIELD is unset. */
export const DEFAULT_PASS_FIELD = "STEEL_API_KEY";

export interface SteelConfig {
  /** The Steel API's base URL, without a trailing slash. */
  apiUrl: string;
  /** The session viewer's base URL, when set. */
  uiUrl?: string;
  /** The API key ("" never: a missing key is an error). */
  key: string;
  /** The folder of the session tracker's database. */
  stateDir: string;
  requestTimeoutMs: number;
}

/** The variables {@link resolveConfig} reads; `readBrowserEnv()` gives them from the process. */
export type BrowserEnv = Readonly<Record<string, string | undefined>>;

/** Looks the API key up in a secret manager: `pass-cli` in `passCliLookup`. */
export type KeyLookup = (vault: string, item: string, field: string) => Promise<string>;

function notConfigured(message: string): KxmError {
  return new KxmError("browser_not_configured", message);
}

/** The value of `name`, trimmed; empty counts as unset. */
function value(env: BrowserEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

/** An http(s) base URL without credentials, query or fragment, and without a trailing slash. */
function baseUrl(env: BrowserEnv, name: string): string | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const rule = `${name} must be an http:// or https:// URL without credentials, query or fragment`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw notConfigured(rule);
  }
  const bad =
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.username !== "" ||
    url.password !== "" ||
    raw.includes("?") ||
    raw.includes("#");
  if (bad) throw notConfigured(rule);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

function flag(env: BrowserEnv, name: string): boolean | undefined {
  const raw = value(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw notConfigured(`${name} must be true, false, 1 or 0`);
}

function wholeNumber(env: BrowserEnv, name: string, min: number, max: number): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw notConfigured(`${name} must be a whole number of milliseconds from ${min} to ${max}`);
  }
  return n;
}

/** A key usable in an HTTP header: printable ASCII, no spaces. */
function checkedKey(
  key: string,
  source: string,
  code: "browser_not_configured" | "browser_key_lookup_failed",
): string {
  const trimmed = key.trim();
  if (trimmed === "") throw new KxmError(code, `${source} is empty`);
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new KxmError(
      code,
      `${source} must be printable ASCII without spaces (it goes into an HTTP header)`,
    );
  }
  return trimmed;
}

/** Where the tracker lives: KXM_BROWSER_STATE_DIR, else $XDG_STATE_HOME/kxm/browser, else ~/.local/state/kxm/browser. */
function stateDir(env: BrowserEnv): string {
  const explicit = value(env, "KXM_BROWSER_STATE_DIR");
  if (explicit !== undefined) {
    if (!explicit.startsWith("/")) throw notConfigured("KXM_BROWSER_STATE_DIR must be an absolute path");
    return explicit;
  }
  const xdg = value(env, "XDG_STATE_HOME");
  if (xdg?.startsWith("/")) return `${xdg.replace(/\/+$/, "")}/kxm/browser`;
  const home = value(env, "HOME");
  if (home?.startsWith("/")) return `${home.replace(/\/+$/, "")}/.local/state/kxm/browser`;
  throw notConfigured("set KXM_BROWSER_STATE_DIR (HOME is not an absolute path, so there is no default)");
}

/**
 * The Steel configuration from environment values. `STEEL_API_URL` is required (no vendor fallback). The key is
 * `STEEL_API_KEY`; when that is unset, `lookupKey(STEEL_PASS_VAULT, STEEL_PASS_ITEM, STEEL_PASS_FIELD)` gives it,
 * but only when both the vault and the item are set and `USE_PASS_CLI` is not `false`/`0`. Anything missing or
 * invalid is `browser_not_configured`, naming the variable and its rule, never its value.
 */
export async function resolveConfig(env: BrowserEnv, lookupKey?: KeyLookup): Promise<SteelConfig> {
  const apiUrl = baseUrl(env, "STEEL_API_URL");
  if (apiUrl === undefined) {
    throw notConfigured(
      "STEEL_API_URL is unset: export the base URL of your Steel deployment (KXM has no default deployment)",
    );
  }
  const uiUrl = baseUrl(env, "STEEL_UI_URL");
  const usePassCli = flag(env, "USE_PASS_CLI") ?? true;
  const requestTimeoutMs =
    wholeNumber(env, "KXM_BROWSER_TIMEOUT_MS", 100, 600_000) ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const dir = stateDir(env);
  const vault = value(env, "STEEL_PASS_VAULT");
  const item = value(env, "STEEL_PASS_ITEM");
  const field = value(env, "STEEL_PASS_FIELD") ?? DEFAULT_PASS_FIELD;

  let key: string;
  const explicit = env.STEEL_API_KEY;
  if (explicit !== undefined && explicit.trim() !== "") {
    key = checkedKey(explicit, "STEEL_API_KEY", "browser_not_configured");
  } else if (!usePassCli) {
    throw notConfigured("STEEL_API_KEY is unset and USE_PASS_CLI is false: export STEEL_API_KEY");
  } else if (vault === undefined || item === undefined) {
    throw notConfigured(
      "STEEL_API_KEY is unset: export it, or set STEEL_PASS_VAULT and STEEL_PASS_ITEM for a pass-cli lookup",
    );
  } else if (lookupKey === undefined) {
    throw notConfigured("STEEL_API_KEY is unset and no key lookup is available here: export STEEL_API_KEY");
  } else {
    key = checkedKey(
      await lookupKey(vault, item, field),
      `the key pass-cli gave (field ${field})`,
      "browser_key_lookup_failed",
    );
  }
  return { apiUrl, ...(uiUrl === undefined ? {} : { uiUrl }), key, stateDir: dir, requestTimeoutMs };
}
