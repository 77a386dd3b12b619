// The `@kxm/contract/client` subpath: a typed client for the hub's routes. It is the contract's one module with side
// effects (fetch, timers, the clock for Retry-After), so it is kept off the root entry, which stays pure. Named
// exports only: every one is public.
import type { z } from "zod";
import { ERROR_CATALOGUE, type ErrorCode, KxmError } from "./errors.js";
import { ROUTES, type RouteName } from "./routes.js";

type Route<K extends RouteName> = (typeof ROUTES)[K];

/** What a route takes: its path parameters, query and body, typed from the route table. */
export type RouteInput<K extends RouteName> = (Route<K> extends { params: infer P extends z.ZodType }
  ? { params: z.input<P> }
  : { params?: undefined }) &
  (Route<K> extends { query: infer Q extends z.ZodType } ? { query?: z.input<Q> } : { query?: undefined }) &
  (Route<K> extends { body: infer B extends z.ZodType } ? { body: z.input<B> } : { body?: undefined });

/** What a route answers on success. */
export type RouteOutput<K extends RouteName> = z.output<Route<K>["response"]>;

/** A typed client for every route of the hub; a failure is thrown as the hub's `KxmError`. */
export type HubClient = { [K in RouteName]: (input: RouteInput<K>) => Promise<RouteOutput<K>> };

export interface HubClientOptions {
  /**
   * The hub's base URL, such as `http://127.0.0.1:7420`. A path is kept as a prefix: with `http://host/kxm`, health
   * is `http://host/kxm/v1/health`.
   */
  readonly baseUrl: string;
  /** The admin token or an agent key, sent as a Bearer token. */
  readonly token?: string;
  /** Milliseconds before a request is abandoned (default 30,000). */
  readonly timeoutMs?: number;
  /**
   * The longest `Retry-After` a 429 is waited out for, in milliseconds (default 5,000). A 429 is retried once,
   * after its `Retry-After`; one without that header, or asking for longer than this, is thrown as `rate_limited`
   * at once.
   */
  readonly maxRetryAfterMs?: number;
  readonly fetch?: typeof fetch;
}

/** The longest `Retry-After` the client waits out before retrying a 429 once, unless told otherwise: 5 seconds. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 5_000;

/** What a connection failure's system code means, in words. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
};

function systemCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && /^[A-Z][A-Z_]+$/.test(code)) return code;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = systemCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return systemCode(cause, depth + 1);
}

/**
 * Why a request never got an answer, in words with the system code: `connection refused (ECONNREFUSED)`, rather
 * than fetch's bare `fetch failed`.
 */
export function unreachableReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  const code = systemCode(error);
  if (code !== undefined) return `${NETWORK_REASONS[code] ?? "the connection failed"} (${code})`;
  const cause = error instanceof Error ? (error.cause as unknown) : undefined;
  if (cause instanceof Error && cause.message !== "") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** A `Retry-After` value (seconds, or an HTTP date) in milliseconds from `now`; `undefined` when absent or unreadable. */
function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_CATALOGUE, code);
}

function buildUrl(
  baseUrl: string,
  path: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
) {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? "")));
  // Relative to the base with its trailing slash, so that a base path (`http://host/kxm`) stays a prefix.
  const url = new URL(filled.replace(/^\/+/, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/**
 * A client for the hub derived from the route table: a renamed field breaks every consumer's build. Errors come
 * back as `KxmError`s with the hub's catalogue code; an unreachable hub is `hub_unreachable`, naming the system code
 * (`connection refused (ECONNREFUSED)`). A 429 is retried once after its `Retry-After`, if that is at most
 * `maxRetryAfterMs`.
 */
export function createHubClient(options: HubClientOptions): HubClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const hubUrl = options.baseUrl.replace(/\/+$/, "");
  async function call(name: RouteName, input: { params?: object; query?: object; body?: unknown }) {
    const route = ROUTES[name];
    const url = buildUrl(options.baseUrl, route.path, { ...input.params }, { ...input.query });
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (input.body !== undefined) headers["content-type"] = "application/json";
    const timeoutMs = options.timeoutMs ?? 30_000;
    const send = async (): Promise<Response> => {
      try {
        return await doFetch(url, {
          method: route.method,
          headers,
          ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        // llhttp's parse errors (HPE_*): something answered, and it does not speak HTTP.
        const code = systemCode(error);
        if (code?.startsWith("HPE_")) {
          throw new KxmError(
            "hub_answer_invalid",
            `the server at ${hubUrl} did not answer in HTTP (${code}): is it a kxm hub?`,
          );
        }
        throw new KxmError(
          "hub_unreachable",
          `cannot reach the hub at ${hubUrl}: ${unreachableReason(error, timeoutMs)}`,
        );
      }
    };
    let response = await send();
    if (response.status === 429) {
      // Once, and only for a wait the caller allows: a missing or long Retry-After is the hub's 429 at once.
      const wait = retryAfterMs(response.headers.get("retry-after"));
      if (wait !== undefined && wait <= maxRetryAfterMs) {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, wait));
        response = await send();
      }
    }
    // A hub that sends its headers and then stalls (or drops the connection) mid-body is as unreachable as one that
    // never answers: the timeout covers the body too.
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new KxmError(
        "hub_unreachable",
        `cannot reach the hub at ${hubUrl}: ${unreachableReason(error, timeoutMs)}`,
      );
    }
    let payload: unknown;
    try {
      payload = text === "" ? undefined : JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (!response.ok) {
      const problem = payload as { code?: unknown; detail?: unknown } | undefined;
      if (isCode(problem?.code)) {
        throw new KxmError(problem.code, typeof problem.detail === "string" ? problem.detail : problem.code);
      }
      throw new KxmError(
        "hub_answer_invalid",
        `the server at ${hubUrl} answered ${response.status} without a problem document: is it a kxm hub?`,
      );
    }
    if (payload === undefined && text !== "") {
      const type = response.headers.get("content-type")?.split(";")[0]?.trim() || "no content type";
      throw new KxmError(
        "hub_answer_invalid",
        `the server at ${hubUrl} answered ${response.status} with ${type}, not JSON: is it a kxm hub?`,
      );
    }
    const parsed = route.response.safeParse(payload);
    if (!parsed.success)
      throw new KxmError("hub_answer_invalid", `the hub's answer to ${name} does not match its schema`);
    return parsed.data;
  }
  const client: Partial<Record<RouteName, (input: object) => Promise<unknown>>> = {};
  for (const name of Object.keys(ROUTES) as RouteName[]) client[name] = (input) => call(name, input ?? {});
  return client as HubClient;
}
