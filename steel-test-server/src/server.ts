// The Steel-compatible server: REST on node:http, the CDP WebSocket proxied with `ws` to each session's own
// Chromium. See index.ts for what it stands in for and what it does not prove.
import { randomUUID, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { type ChromiumProcess, launchChromium } from "./chromium.js";
import { PageWorker, type ScrapeFormat } from "./pages.js";

export type Flavour = "cloud" | "open-source";
export type SessionStatus = "idle" | "live" | "released" | "failed";

export interface SteelTestServerOptions {
  /**
   * The key the cloud flavour requires: the `steel-api-key` header on REST, the `apiKey` query parameter on CDP.
   * Undefined: no key is checked. The open-source flavour never checks one (decision 9), whatever is given here.
   */
  apiKey?: string;
  /** Default: "cloud" when apiKey is set, else "open-source". */
  flavour?: Flavour;
  /** Default /usr/bin/chromium. */
  chromiumPath?: string;
  /** Cloud flavour: live sessions at once before POST /v1/sessions answers 429. Default 200. */
  maxSessions?: number;
  /**
   * "eager" (default): a create starts the session's Chromium before it answers, as Steel does.
   * "lazy": the Chromium starts at the first CDP connection, so a hundred sessions cost nothing.
   */
  launch?: "eager" | "lazy";
  /** The timeout a create without `timeout` gets, in ms. Default 300000 (Steel's default). */
  defaultTimeoutMs?: number;
  /**
   * Test hook: the server's clock, in ms since the epoch, read for each session's createdAt, its release time and
   * its duration, so a test whose client runs on a fake clock sees times consistent with it. Timeouts still run
   * on real timers. Default Date.now.
   */
  now?: () => number;
  /**
   * Test hook, cloud flavour: a release (POST /v1/sessions/:id/release) releases every live session, whatever id
   * it names (an unknown id is still 404), so a client can be shown a release that hit other sessions. The
   * open-source flavour ignores the id anyway (its one session). Default false.
   */
  releaseIgnoresId?: boolean;
}

/** A session a test puts on the server as if someone else had created it: see SteelTestServer.addSession. */
export interface ForeignSession {
  id: string;
  /** An ISO time; undefined: the session's answers carry no createdAt at all. */
  createdAt?: string | undefined;
  status: SessionStatus;
  /** Default: the server's defaultTimeoutMs. Reported only: a foreign session never times out. */
  timeoutMs?: number;
}

export interface RecordedRequest {
  method: string;
  /** The path without the query string (so no CDP key is ever recorded). */
  path: string;
  /** The request carried a key where Steel reads it: the `steel-api-key` header (REST) or `apiKey` (CDP). */
  hadKey: boolean;
  /** The answer's status: 101 for an accepted CDP upgrade. */
  status: number;
}

export interface TestSessionView {
  id: string;
  status: SessionStatus;
  /** Undefined only for a session added by addSession without one. */
  createdAt?: string;
  timeoutMs: number;
  /** Why it ended: "released", "timeout", "expired", "replaced by a new session", "server closed". */
  releaseCause?: string;
  /** The pid of its Chromium while one runs. */
  chromiumPid?: number;
  cdpConnections: number;
}

export interface SteelTestServer {
  /** http://127.0.0.1:<port>: what STEEL_API_URL (or steel-sdk's baseURL) is set to. */
  readonly url: string;
  readonly flavour: Flavour;
  /** Every request in order, REST and CDP upgrades alike. */
  readonly requests: RecordedRequest[];
  /** The folder holding every Chromium profile of this server; removed by close(). */
  readonly tempRoot: string;
  /** All sessions the server knows, oldest first (released ones included). */
  sessions(): TestSessionView[];
  /** Ends a session now as its timeout would (cause "expired"): its Chromium is killed, CDP clients cut off. */
  expire(id: string): Promise<void>;
  /**
   * Test hook: the server no longer knows the session, as if it had ended and been purged: GET /v1/sessions/:id
   * answers 404 (open-source: "released", as for any id it does not hold), the list leaves it out, CDP to it is
   * 404. Its Chromium is killed and its CDP clients cut off first. Throws for an id the server does not know.
   */
  forget(id: string): Promise<void>;
  /**
   * Test hook: a session KXM did not create (made by another client, or left by an earlier run), listed and
   * answered like any other, released by a release naming it. It has no Chromium: CDP to it is refused (409), so
   * use it for REST-only checks. Throws if the id is taken. Cloud flavour only (open-source holds one session).
   */
  addSession(session: ForeignSession): void;
  /** Pids of the Chromium processes the server runs now (sessions and the scrape/screenshot browser). */
  chromiumPids(): number[];
  /** Releases every session, kills every Chromium, removes the temp folder, stops listening. */
  close(): Promise<void>;
}

interface SessionRecord {
  id: string;
  /** Undefined only for a foreign session added without a createdAt. */
  createdAtMs: number | undefined;
  status: SessionStatus;
  timeoutMs: number;
  releaseCause?: string;
  releasedAtMs?: number;
  chromium?: ChromiumProcess;
  launching?: Promise<ChromiumProcess>;
  timer?: NodeJS.Timeout;
  sockets: Set<WebSocket>;
  /** Added by addSession: no Chromium is ever started for it. */
  foreign?: boolean;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

const MAX_TIMER_MS = 2_147_483_647;
const MAX_BODY_BYTES = 1_000_000;
const MAX_CDP_MESSAGE = 256 * 1024 * 1024;

function keyMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(400, "Body is larger than 1 MB");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError(400, "Body is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HttpError(400, "Body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

function loopbackUrl(value: unknown): string {
  if (typeof value !== "string" || value === "")
    throw new HttpError(400, "body.url must be a non-empty string");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HttpError(400, "body.url must be an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:" && url.protocol !== "data:") {
    throw new HttpError(400, "body.url must be an http(s) URL");
  }
  return url.href;
}

function scrapeFormats(value: unknown): ScrapeFormat[] {
  const allowed: readonly ScrapeFormat[] = ["html", "markdown", "text"];
  if (value === undefined) return ["html"];
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((item) => !allowed.includes(item as ScrapeFormat))) {
    throw new HttpError(400, "body.format must be html, markdown or text (or a list of them)");
  }
  return list as ScrapeFormat[];
}

export async function startSteelTestServer(options: SteelTestServerOptions = {}): Promise<SteelTestServer> {
  const flavour: Flavour = options.flavour ?? (options.apiKey === undefined ? "open-source" : "cloud");
  const apiKey = flavour === "cloud" ? options.apiKey : undefined;
  const chromiumPath = options.chromiumPath ?? "/usr/bin/chromium";
  const maxSessions = options.maxSessions ?? 200;
  const lazy = options.launch === "lazy";
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 300_000;
  const now = options.now ?? Date.now;
  const releaseIgnoresId = options.releaseIgnoresId === true;
  if (!Number.isInteger(maxSessions) || maxSessions < 1)
    throw new Error("maxSessions must be a positive integer");
  if (!Number.isInteger(defaultTimeoutMs) || defaultTimeoutMs < 1) {
    throw new Error("defaultTimeoutMs must be a positive integer");
  }

  const tempRoot = await mkdtemp(join(tmpdir(), "kxm-steel-test-"));
  const pages = new PageWorker(chromiumPath, tempRoot);
  const records = new Map<string, SessionRecord>();
  const requests: RecordedRequest[] = [];
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_CDP_MESSAGE });
  let closing = false;
  let active: SessionRecord | undefined; // open-source flavour: the one current session
  let base = "";

  const view = (record: SessionRecord): TestSessionView => ({
    id: record.id,
    status: record.status,
    ...(record.createdAtMs === undefined ? {} : { createdAt: new Date(record.createdAtMs).toISOString() }),
    timeoutMs: record.timeoutMs,
    ...(record.releaseCause === undefined ? {} : { releaseCause: record.releaseCause }),
    ...(record.chromium === undefined || record.chromium.exited()
      ? {}
      : { chromiumPid: record.chromium.pid }),
    cdpConnections: record.sockets.size,
  });

  /** The session object, shaped like Steel's (sessions.schema.ts of steel-browser, steel-sdk's Session). */
  const details = (record: SessionRecord) => {
    const ws = base.replace(/^http/, "ws");
    const end = record.releasedAtMs ?? now();
    return {
      id: record.id,
      ...(record.createdAtMs === undefined ? {} : { createdAt: new Date(record.createdAtMs).toISOString() }),
      status: record.status,
      duration: record.createdAtMs === undefined ? 0 : Math.max(0, end - record.createdAtMs),
      eventCount: 0,
      timeout: record.timeoutMs,
      creditsUsed: 0,
      websocketUrl: `${ws}/v1/devtools?sessionId=${record.id}`,
      debugUrl: `${base}/v1/sessions/debug?sessionId=${record.id}`,
      debuggerUrl: `${base}/v1/devtools/inspector.html`,
      sessionViewerUrl: `${base}/v1/sessions/debug?sessionId=${record.id}`,
      dimensions: { width: 1280, height: 720 },
      proxyBytesUsed: 0,
      proxySource: null,
      proxyTxBytes: 0,
      proxyRxBytes: 0,
      userAgent: "",
      solveCaptcha: false,
      isSelenium: false,
    };
  };

  const ensureChromium = (record: SessionRecord): Promise<ChromiumProcess> => {
    if (record.foreign === true) {
      return Promise.reject(
        new HttpError(409, `Session ${record.id} was added by the test: it has no browser`),
      );
    }
    if (record.chromium !== undefined && !record.chromium.exited()) return Promise.resolve(record.chromium);
    if (record.launching !== undefined) return record.launching;
    const launching = launchChromium({ executablePath: chromiumPath, parentDir: tempRoot }).then(
      async (process) => {
        record.launching = undefined;
        // Released (or the server closed) while it started: it must not outlive the session.
        if (record.status === "released" || record.status === "failed" || closing) {
          await process.kill();
          throw new HttpError(410, `Session ${record.id} was released`);
        }
        record.chromium = process;
        return process;
      },
      (error: unknown) => {
        record.launching = undefined;
        throw error;
      },
    );
    record.launching = launching;
    return launching;
  };

  const endSession = async (record: SessionRecord, cause: string): Promise<void> => {
    if (record.status === "released" || record.status === "failed") return;
    record.status = "released";
    record.releaseCause = cause;
    record.releasedAtMs = now();
    if (record.timer !== undefined) clearTimeout(record.timer);
    // The browser goes first, so a client that sees its connection drop finds the browser gone already.
    await record.launching?.catch(() => undefined);
    await record.chromium?.kill();
    for (const socket of record.sockets) socket.terminate();
    record.sockets.clear();
  };

  const newRecord = (timeoutMs: number, status: SessionStatus): SessionRecord => {
    const record: SessionRecord = {
      id: randomUUID(),
      createdAtMs: now(),
      status,
      timeoutMs,
      sockets: new Set(),
    };
    records.set(record.id, record);
    return record;
  };

  /** Open-source Steel starts an idle session after each release (and at boot); its Chromium starts lazily. */
  const startPlaceholder = (): void => {
    if (closing) return;
    active = newRecord(defaultTimeoutMs, "idle");
  };
  if (flavour === "open-source") startPlaceholder();

  const parseTimeout = (body: Record<string, unknown>): number => {
    const value = body.timeout;
    if (value === undefined) return defaultTimeoutMs;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
      throw new HttpError(400, "body.timeout must be a positive integer of milliseconds");
    }
    return value;
  };

  const createSession = async (body: Record<string, unknown>) => {
    const timeoutMs = parseTimeout(body);
    if (flavour === "open-source") {
      // One session at a time: a create releases the current one (placeholder or not). Timeout kept, not enforced.
      if (active !== undefined) await endSession(active, "replaced by a new session");
      const record = newRecord(timeoutMs, "live");
      active = record;
      if (!lazy) await launchOrFail(record);
      return details(record);
    }
    const liveCount = [...records.values()].filter((record) => record.status === "live").length;
    if (liveCount >= maxSessions) throw new HttpError(429, `At most ${maxSessions} live sessions at once`);
    const record = newRecord(timeoutMs, "live");
    record.timer = setTimeout(() => void endSession(record, "timeout"), Math.min(timeoutMs, MAX_TIMER_MS));
    record.timer.unref();
    if (!lazy) await launchOrFail(record);
    return details(record);
  };

  const launchOrFail = async (record: SessionRecord): Promise<void> => {
    try {
      await ensureChromium(record);
    } catch (error) {
      if (record.timer !== undefined) clearTimeout(record.timer);
      record.status = "failed";
      record.releaseCause = "browser failed to start";
      record.releasedAtMs = now();
      throw new HttpError(500, `Failed to launch the session's browser: ${(error as Error).message}`);
    }
  };

  const listSessions = (url: URL) => {
    if (flavour === "open-source") {
      const past = [...records.values()].filter((record) => record !== active).reverse();
      return { sessions: [...(active === undefined ? [] : [active]), ...past].map(details) };
    }
    const status = url.searchParams.get("status");
    if (status !== null && !["live", "released", "failed"].includes(status)) {
      throw new HttpError(400, "status must be live, released or failed");
    }
    const limitText = url.searchParams.get("limit");
    const limit = limitText === null ? undefined : Number(limitText);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new HttpError(400, "limit must be a positive integer");
    }
    // Newest first; cursorId is the last id of the previous page (steel-sdk's SessionsCursor).
    let list = [...records.values()]
      .reverse()
      .filter((record) => status === null || record.status === status);
    const cursor = url.searchParams.get("cursorId");
    if (cursor !== null) {
      const at = list.findIndex((record) => record.id === cursor);
      list = at === -1 ? [] : list.slice(at + 1);
    }
    const page = limit === undefined ? list : list.slice(0, limit);
    const nextCursor = limit !== undefined && list.length > limit ? (page.at(-1)?.id ?? null) : null;
    return { sessions: page.map(details), nextCursor };
  };

  const getSession = (id: string) => {
    const record = records.get(id);
    if (flavour === "open-source" && (record === undefined || record !== active)) {
      // steel-browser answers any id that is not its current session as released, known or not.
      if (record !== undefined) return details(record);
      const at = now();
      return {
        ...details({
          id,
          createdAtMs: at,
          status: "released",
          timeoutMs: 0,
          releasedAtMs: at,
          sockets: new Set(),
        }),
      };
    }
    if (record === undefined) throw new HttpError(404, `Session ${id} not found`);
    return details(record);
  };

  const releaseSession = async (id: string | undefined) => {
    if (flavour === "open-source") {
      // The id is ignored: whatever is current is released, and an idle placeholder takes its place.
      const released = active;
      if (released !== undefined) await endSession(released, "released");
      startPlaceholder();
      return { success: true, ...(released === undefined ? {} : details(released)) };
    }
    if (id === undefined) {
      const live = [...records.values()].filter((record) => record.status === "live");
      await Promise.all(live.map((record) => endSession(record, "released")));
      return { success: true, message: `Released ${live.length} sessions` };
    }
    const record = records.get(id);
    if (record === undefined) throw new HttpError(404, `Session ${id} not found`);
    if (releaseIgnoresId) {
      const live = [...records.values()].filter((other) => other.status === "live");
      await Promise.all(live.map((other) => endSession(other, "released")));
    }
    await endSession(record, "released");
    return { success: true, message: `Session ${id} released`, ...details(record) };
  };

  const viewerPage = async (id: string | null): Promise<string> => {
    const record = id === null ? undefined : records.get(id);
    if (record === undefined) throw new HttpError(404, `Session ${id ?? "(no sessionId)"} not found`);
    let tabs: Array<{ title: string; url: string }> = [];
    if (record.chromium !== undefined && !record.chromium.exited()) {
      try {
        const answer = await fetch(`${record.chromium.httpOrigin}/json/list`, {
          signal: AbortSignal.timeout(5_000),
        });
        const targets = (await answer.json()) as Array<{ type: string; title: string; url: string }>;
        tabs = targets.filter((target) => target.type === "page");
      } catch {
        tabs = [];
      }
    }
    const rows = tabs
      .map((tab) => `<li><b>${escapeHtml(tab.title)}</b> ${escapeHtml(tab.url)}</li>`)
      .join("");
    return [
      "<!doctype html><html><head><meta charset=utf-8><meta http-equiv=refresh content=2>",
      `<title>Session ${escapeHtml(record.id)}</title></head><body>`,
      `<h1>Session ${escapeHtml(record.id)}</h1><p id=status>${escapeHtml(record.status)}</p>`,
      `<ul id=pages>${rows}</ul>`,
      "<p>Steel test server viewer: a list of the session's pages, not Steel's interactive screencast.</p>",
      "</body></html>",
    ].join("");
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown): number => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
    return status;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<number> => {
    const method = req.method ?? "GET";
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (method === "GET" && path === "/health") return sendJson(res, 200, { status: "ok" });
    if (method === "GET" && path === "/v1/sessions/debug") {
      const html = await viewerPage(url.searchParams.get("sessionId"));
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
      return 200;
    }
    if (apiKey !== undefined && !keyMatches(headerKey(req), apiKey)) {
      throw new HttpError(401, "Missing or invalid API key: send it in the steel-api-key header");
    }
    if (method === "POST" && path === "/v1/sessions")
      return sendJson(res, 200, await createSession(await readJson(req)));
    if (method === "GET" && path === "/v1/sessions") return sendJson(res, 200, listSessions(url));
    if (method === "POST" && path === "/v1/sessions/release")
      return sendJson(res, 200, await releaseSession(undefined));
    const release = /^\/v1\/sessions\/([^/]+)\/release$/.exec(path);
    if (method === "POST" && release?.[1] !== undefined) {
      return sendJson(res, 200, await releaseSession(decodeURIComponent(release[1])));
    }
    const one = /^\/v1\/sessions\/([^/]+)$/.exec(path);
    if (method === "GET" && one?.[1] !== undefined)
      return sendJson(res, 200, getSession(decodeURIComponent(one[1])));
    if (method === "POST" && path === "/v1/scrape") {
      const body = await readJson(req);
      const target = loopbackUrl(body.url);
      const answer = await pages.scrape(target, scrapeFormats(body.format), new Date());
      return sendJson(res, 200, answer);
    }
    if (method === "POST" && path === "/v1/screenshot") {
      const body = await readJson(req);
      const target = loopbackUrl(body.url);
      if (body.fullPage !== undefined && typeof body.fullPage !== "boolean") {
        throw new HttpError(400, "body.fullPage must be a boolean");
      }
      const png = await pages.screenshot(target, body.fullPage === true);
      res.writeHead(200, { "content-type": "image/png", "content-length": png.length });
      res.end(png);
      return 200;
    }
    throw new HttpError(404, `Route ${method}:${path} not found`);
  };

  const headerKey = (req: IncomingMessage): string | undefined => {
    const value = req.headers["steel-api-key"];
    return Array.isArray(value) ? value[0] : value;
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", base);
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      hadKey: headerKey(req) !== undefined,
      status: 0,
    };
    requests.push(record);
    route(req, res, url).then(
      (status) => {
        record.status = status;
      },
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        record.status = status;
        if (res.headersSent) {
          res.destroy();
          return;
        }
        // Fastify's error shape, which Steel's API answers with.
        sendJson(res, status, { statusCode: status, error: REASONS[status] ?? "Error", message });
      },
    );
  });

  const refuse = (socket: Duplex, status: number, message: string): void => {
    const body = JSON.stringify({ statusCode: status, error: REASONS[status] ?? "Error", message });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", base);
    const given = url.searchParams.get("apiKey");
    const entry: RecordedRequest = { method: "GET", path: url.pathname, hadKey: given !== null, status: 0 };
    requests.push(entry);
    socket.on("error", () => socket.destroy());
    const fail = (status: number, message: string) => {
      entry.status = status;
      refuse(socket, status, message);
    };
    if (closing) return fail(410, "Server is closing");
    if (url.pathname.replace(/\/+$/, "") !== "/v1/devtools")
      return fail(404, `No WebSocket at ${url.pathname}`);
    if (apiKey !== undefined && !keyMatches(given ?? undefined, apiKey)) {
      return fail(401, "Missing or invalid apiKey query parameter");
    }
    const id = url.searchParams.get("sessionId");
    let record: SessionRecord | undefined;
    if (id === null) {
      if (flavour === "cloud") return fail(400, "sessionId query parameter is required");
      record = active; // open-source: the one browser
    } else {
      record = records.get(id);
    }
    if (record === undefined) return fail(404, `Session ${id ?? "(none)"} not found`);
    if (record.status === "released" || record.status === "failed")
      return fail(410, `Session ${record.id} was released`);
    const session = record;
    ensureChromium(session).then(
      (chromium) => {
        const upstream = new WebSocket(chromium.wsEndpoint, {
          perMessageDeflate: false,
          maxPayload: MAX_CDP_MESSAGE,
        });
        upstream.once("error", (error) =>
          fail(502, `Session browser refused the connection: ${error.message}`),
        );
        upstream.once("open", () => {
          upstream.removeAllListeners("error");
          if (session.status === "released" || closing) {
            upstream.terminate();
            return fail(410, `Session ${session.id} was released`);
          }
          wss.handleUpgrade(req, socket, head, (client) => {
            entry.status = 101;
            if (session.status === "idle") session.status = "live";
            session.sockets.add(client);
            const forward = (to: WebSocket) => (data: RawData, isBinary: boolean) => {
              if (to.readyState === WebSocket.OPEN) to.send(data, { binary: isBinary });
            };
            client.on("message", forward(upstream));
            upstream.on("message", forward(client));
            const finish = () => {
              session.sockets.delete(client);
              if (client.readyState !== WebSocket.CLOSED) client.terminate();
              if (upstream.readyState !== WebSocket.CLOSED) upstream.terminate();
            };
            client.on("close", finish);
            client.on("error", finish);
            // While the session ends, endSession cuts the client off once the browser is gone, not before.
            const upstreamGone = () => {
              if (session.status !== "released") finish();
            };
            upstream.on("close", upstreamGone);
            upstream.on("error", upstreamGone);
          });
        });
      },
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        fail(status, `Session browser did not start: ${(error as Error).message}`);
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let closed: Promise<void> | undefined;
  return {
    url: base,
    flavour,
    requests,
    tempRoot,
    sessions: () => [...records.values()].map(view),
    expire: async (id: string) => {
      const record = records.get(id);
      if (record === undefined) throw new Error(`no session ${id}`);
      await endSession(record, "expired");
      if (flavour === "open-source" && record === active) startPlaceholder();
    },
    forget: async (id: string) => {
      const record = records.get(id);
      if (record === undefined) throw new Error(`no session ${id}`);
      await endSession(record, "forgotten");
      records.delete(id);
      if (flavour === "open-source" && record === active) startPlaceholder();
    },
    addSession: (session: ForeignSession) => {
      if (flavour !== "cloud") throw new Error("addSession is for the cloud flavour only");
      if (records.has(session.id)) throw new Error(`session ${session.id} exists already`);
      let createdAtMs: number | undefined;
      if (session.createdAt !== undefined) {
        createdAtMs = Date.parse(session.createdAt);
        if (!Number.isFinite(createdAtMs)) throw new Error(`createdAt is not a time: ${session.createdAt}`);
      }
      const ended = session.status === "released" || session.status === "failed";
      records.set(session.id, {
        id: session.id,
        createdAtMs,
        status: session.status,
        timeoutMs: session.timeoutMs ?? defaultTimeoutMs,
        ...(ended ? { releaseCause: "added as ended", releasedAtMs: now() } : {}),
        sockets: new Set(),
        foreign: true,
      });
    },
    chromiumPids: () =>
      [...records.values()]
        .flatMap((record) =>
          record.chromium === undefined || record.chromium.exited() ? [] : [record.chromium.pid],
        )
        .concat(pages.pid() ?? []),
    close: () => {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await Promise.all([...records.values()].map((record) => endSession(record, "server closed")));
        for (const client of wss.clients) client.terminate();
        await pages.close();
        await stopped;
        await rm(tempRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      })();
      return closed;
    },
  };
}
