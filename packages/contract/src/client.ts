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
  /** The hub's base URL, such as `http://127.0.0.1:7420`. */
  readonly baseUrl: string;
  /** The admin token or an agent key, sent as a Bearer token. */
  readonly token?: string;
  /** Milliseconds before a request is abandoned (default 30,000). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
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
  const url = new URL(filled, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/**
 * A client for the hub derived from the route table: a renamed field breaks every consumer's build. Errors come
 * back as `KxmError`s with the hub's catalogue code; an unreachable hub is `hub_unreachable`.
 */
export function createHubClient(options: HubClientOptions): HubClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  async function call(name: RouteName, input: { params?: object; query?: object; body?: unknown }) {
    const route = ROUTES[name];
    const url = buildUrl(options.baseUrl, route.path, { ...input.params }, { ...input.query });
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (input.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await doFetch(url, {
        method: route.method,
        headers,
        ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new KxmError("hub_unreachable", `cannot reach the hub at ${url.origin}: ${reason}`);
    }
    const text = await response.text();
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
      throw new KxmError("internal_error", `the hub answered ${response.status} without a problem document`);
    }
    const parsed = route.response.safeParse(payload);
    if (!parsed.success)
      throw new KxmError("internal_error", `the hub's answer to ${name} does not match its schema`);
    return parsed.data;
  }
  const client: Partial<Record<RouteName, (input: object) => Promise<unknown>>> = {};
  for (const name of Object.keys(ROUTES) as RouteName[]) client[name] = (input) => call(name, input ?? {});
  return client as HubClient;
}
