// The Steel REST client: fetch with the key in the `steel-api-key` header (decision 0015), a timeout per call,
// and every failure a KxmError whose message names the origin, the method and the path, never the key.
import { KxmError } from "@kxm/contract";
import { unreachableReason } from "@kxm/contract/client";
import type { SteelConfig } from "./config.js";
import { redactSecret } from "./redact.js";
import { parseSession, parseSessionList } from "./schema.js";
import type { SteelSession } from "./types.js";
import { deploymentOf, endpointUrl, sessionPath } from "./urls.js";

/** The header Steel reads the API key from (docs.steel.dev/overview/authentication). */
export const STEEL_KEY_HEADER = "steel-api-key";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface Call {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** A 404 here means this session is not on the server. */
  sessionId?: string;
}

/** A client of one Steel deployment's REST API. It tracks nothing: `openBrowser` adds the tracker. */
export class SteelClient {
  readonly #apiUrl: string;
  readonly #key: string;
  readonly #timeoutMs: number;

  constructor(config: Pick<SteelConfig, "apiUrl" | "key" | "requestTimeoutMs">) {
    this.#apiUrl = config.apiUrl;
    this.#key = config.key;
    this.#timeoutMs = config.requestTimeoutMs;
  }

  /** The error for `message`, with the key removed should any text from outside have carried it. */
  #error(code: ConstructorParameters<typeof KxmError>[0], message: string): KxmError {
    return new KxmError(code, redactSecret(message, this.#key).replace(/\s*\n\s*/g, " "));
  }

  async #send(call: Call): Promise<Response> {
    const url = endpointUrl(this.#apiUrl, call.path);
    const origin = deploymentOf(this.#apiUrl);
    const headers: Record<string, string> = { [STEEL_KEY_HEADER]: this.#key, accept: "application/json" };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers,
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: "error",
      });
    } catch (error) {
      throw this.#error(
        "browser_unreachable",
        `Steel at ${origin} could not be reached (${call.method} ${url.pathname}): ${unreachableReason(error, this.#timeoutMs)}`,
      );
    }
    if (response.ok) return response;
    await response.body?.cancel().catch(() => undefined);
    const what = `${call.method} ${url.pathname}`;
    if (response.status === 401 || response.status === 403) {
      throw this.#error(
        "browser_auth_failed",
        `Steel at ${origin} refused the API key (${response.status} on ${what}): check STEEL_API_KEY`,
      );
    }
    if (response.status === 404 && call.sessionId !== undefined) {
      throw this.#error("browser_session_not_found", `Steel at ${origin} has no session ${call.sessionId}`);
    }
    throw this.#error(
      "browser_request_failed",
      `Steel at ${origin} answered ${what} with ${response.status}`,
    );
  }

  async #json(call: Call): Promise<unknown> {
    const response = await this.#send(call);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.#error(
        "browser_unreachable",
        `${this.#context(call)}, then broke off: ${unreachableReason(error, this.#timeoutMs)}`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.#error("browser_answer_invalid", `${this.#context(call)} with a body that is not JSON`);
    }
  }

  #context(call: Call): string {
    return `Steel at ${deploymentOf(this.#apiUrl)} answered ${call.method} ${endpointUrl(this.#apiUrl, call.path).pathname}`;
  }

  /** POST /v1/sessions with `{timeout}` (milliseconds) when given. */
  async create(options: { timeoutMs?: number } = {}): Promise<SteelSession> {
    const call: Call = {
      method: "POST",
      path: "/v1/sessions",
      body: options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs },
    };
    return parseSession(await this.#json(call), this.#context(call));
  }

  /** GET /v1/sessions/<id>; `browser_session_not_found` on 404. */
  async get(id: string): Promise<SteelSession> {
    const call: Call = { method: "GET", path: sessionPath(id), sessionId: id };
    const session = parseSession(await this.#json(call), this.#context(call));
    if (session.id !== id) {
      throw this.#error("browser_answer_invalid", `${this.#context(call)} with another session's id`);
    }
    return session;
  }

  /** GET /v1/sessions: every session the server lists (live or not, as it says). */
  async list(): Promise<SteelSession[]> {
    const call: Call = { method: "GET", path: "/v1/sessions" };
    return parseSessionList(await this.#json(call), this.#context(call));
  }

  /** POST /v1/sessions/<id>/release; `browser_session_not_found` on 404. */
  async release(id: string): Promise<void> {
    const response = await this.#send({
      method: "POST",
      path: sessionPath(id, "/release"),
      body: {},
      sessionId: id,
    });
    // Read to the end rather than cancelled: a cancelled body closes the connection, and a sweep's next release
    // would pay for a new one.
    await response.arrayBuffer().catch(() => undefined);
  }

  /** POST /v1/scrape: one page fetched without a session; Steel's JSON answer as it is. */
  async scrape(input: { url: string; format?: "html" | "markdown" | "text" }): Promise<unknown> {
    const call: Call = {
      method: "POST",
      path: "/v1/scrape",
      body: { url: input.url, format: [input.format ?? "html"] },
    };
    const body = await this.#json(call);
    if (typeof body !== "object" || body === null) {
      throw this.#error("browser_answer_invalid", `${this.#context(call)} with JSON that is not an object`);
    }
    return body;
  }

  /** POST /v1/screenshot: PNG bytes of one page, without a session. */
  async screenshot(input: { url: string; fullPage?: boolean }): Promise<Uint8Array> {
    const call: Call = {
      method: "POST",
      path: "/v1/screenshot",
      body: { url: input.url, fullPage: input.fullPage ?? false },
    };
    const response = await this.#send(call);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length < PNG_SIGNATURE.length || PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte)) {
      throw this.#error(
        "browser_answer_invalid",
        `${this.#context(call)} with something that is not a PNG image`,
      );
    }
    return bytes;
  }
}
