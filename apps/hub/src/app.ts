import { readFile } from "node:fs/promises";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import {
  type AssembledPacket,
  ERROR_CATALOGUE,
  type ErrorCode,
  JsonValueSchema,
  KxmError,
  ProblemSchema,
  ROUTES,
  type RouteDefinition,
  type RouteName,
} from "@kxm/contract";
import { DEFAULT_RETENTION_DAYS, type KxmStore, type PurgeCounts } from "@kxm/state-store";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from "fastify";
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";
import type { Logger, LoggerOptions } from "pino";
import { z } from "zod";
import { AdminToken, authorize, type Caller, credentialDigest, presentedCredential } from "./auth.js";
import { followChanges } from "./change-listener.js";
import { answerUnsupportedExpectation, createClientErrorHandler } from "./client-errors.js";
import { registerInspector } from "./inspector/routes.js";
import { createHubLogger, describeError } from "./logging.js";
import { createInProcessMark, registerMcp } from "./mcp.js";
import { RouteMethods } from "./methods.js";
import { assembledPacketJson } from "./packet-json.js";
import { classifyError, INTERNAL_ERROR, routeOf, sendProblem } from "./problems.js";
import { HANDLERS } from "./routes/index.js";
import type { RouteHandler } from "./routes/types.js";
import { HubServices } from "./services.js";

/** The largest request body the hub reads: 256 KiB. */
const BODY_LIMIT_BYTES = 262_144;

/** The default rate limit: 600 requests a minute per credential. */
const DEFAULT_RATE_LIMIT = { max: 600, timeWindowMs: 60_000 } as const;

export interface HubOptions {
  /** The open store. The hub never closes it: whoever opened it does (see `serveHub`). */
  readonly store: KxmStore;
  /** The admin (control-plane) token. Without one, every admin route answers 503 `admin_auth_not_configured`. */
  readonly adminToken?: string;
  /** The clock (default: the system clock). Every stored time and every `asOf` default comes from it. */
  readonly now?: () => Date;
  /** A pino logger, pino options, or `false` for none (default: pino at `info` on stdout). */
  readonly logger?: Logger | LoggerOptions | false;
  /** Requests per window per credential (by the SHA-256 of the presented credential; by address without one). */
  readonly rateLimit?: { readonly max: number; readonly timeWindowMs: number };
  /** Days a superseded or closed record is kept before `purgeExpired` removes it (default 90). */
  readonly retentionDays?: number;
  /** The version `GET /v1/health` reports (default: this package's version). */
  readonly version?: string;
  /** Browser origins `/mcp` accepts besides loopback ones (see `KXM_MCP_ALLOWED_ORIGINS`). */
  readonly mcpAllowedOrigins?: readonly string[];
  /**
   * Sets the inspector's session cookie `Secure` whatever the request's scheme (see `KXM_INSPECTOR_SECURE_COOKIE`),
   * for a hub behind a TLS proxy that reaches it over plain http. Default: `Secure` only on an https request.
   */
  readonly inspectorSecureCookie?: boolean;
}

/** Route table entries by `<METHOD> <path pattern>`, to find a request's entry from its route. */
const ROUTE_BY_PATTERN = new Map<string, RouteDefinition>(
  Object.values(ROUTES).map((route: RouteDefinition) => [`${route.method} ${route.path}`, route]),
);

const SERVICES = new WeakMap<FastifyInstance, HubServices>();
const CALLERS = new WeakMap<FastifyRequest, Caller>();
const ERROR_CODES_SENT = new WeakMap<FastifyRequest, ErrorCode>();

async function packageVersion(): Promise<string> {
  try {
    const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    return typeof manifest.version === "string" ? manifest.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * The schemas the OpenAPI document names as components. A recursive schema cannot be written inline, so each one
 * the routes use must be here: without it, zod's generator points at a `#/components/schemas/schema0` that no
 * component defines, and the document is invalid. The registry is the hub's own, so the contract stays free of
 * side effects.
 */
const OPENAPI_COMPONENTS = z.registry<{ id: string }>();
OPENAPI_COMPONENTS.add(JsonValueSchema, { id: "JsonValue" });

/**
 * The OpenAPI description of a route's failures: one entry per status, naming its codes. Every route can also
 * answer `rate_limited` (the limit applies to all of them) and `internal_error`.
 */
function errorResponses(route: RouteDefinition): Record<number, unknown> {
  const byStatus = new Map<number, string[]>();
  const codes = new Set<ErrorCode>([...route.errors, "rate_limited", "internal_error"]);
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, unknown> = {};
  for (const [status, codes] of byStatus) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\``).join(", "),
      content: { "application/problem+json": { schema: ProblemSchema } },
    };
  }
  return responses;
}

function rateLimitKey(request: FastifyRequest): string {
  const credential = presentedCredential(request);
  if (credential === undefined) return `address:${request.ip}`;
  return `credential:${credentialDigest(credential)}`;
}

/**
 * The successful answers of the two hot routes, a packet and a recall, are assembled by the arbiter from admitted
 * items and typed by the contract; checking each again with zod before sending cost more than assembling it (0.8 ms
 * against 0.3 ms for a 77 KB packet, see docs/benchmarks.md), so they are serialized directly. Every other answer,
 * and every error, is still checked against its schema.
 */
const TRUSTED_RESPONSES = new Set(
  (["getContext", "recall"] as const).map((name) => {
    const route = ROUTES[name];
    return `${route.method} ${route.path} ${route.status}`;
  }),
);

/** A packet's answer, served or replayed: the same serializer gives the same bytes. */
const PACKET_RESPONSES = new Set(
  (["getContext", "replayPacket"] as const).map((name) => {
    const route = ROUTES[name];
    return `${route.method} ${route.path} ${route.status}`;
  }),
);

const hubSerializerCompiler: typeof serializerCompiler = (route) => {
  const key = `${route.method} ${route.url} ${route.httpStatus}`;
  // A packet is sent as the bytes assembledPacketJson builds from each item's cached JSON (Fastify takes a Buffer
  // as it is, so neither the packet nor its length is encoded again).
  if (PACKET_RESPONSES.has(key)) {
    return (data: unknown) => assembledPacketJson(data as AssembledPacket) as unknown as string;
  }
  if (TRUSTED_RESPONSES.has(key)) return (data: unknown) => JSON.stringify(data);
  return serializerCompiler(route);
};

/**
 * Builds the hub: every route of the contract's `ROUTES` table under `/v1`, the OpenAPI document at
 * `GET /openapi.json`, the inspector's pages under `/inspector`, auth, problem+json errors, rate limiting and logs
 * that never carry request content. It does not listen (see `serveHub`), and it does not open or close the store.
 */
export async function buildHub(options: HubOptions): Promise<FastifyInstance> {
  if (options.adminToken !== undefined && options.adminToken.length === 0) {
    throw new KxmError(
      "invalid_usage",
      "the admin token must not be empty; leave it unset to run without one",
    );
  }
  const logger = createHubLogger(options.logger);
  let appLog: () => FastifyBaseLogger = () => {
    throw new Error("the hub's log is read before the hub is built");
  };
  const app = Fastify({
    ...(logger === undefined ? {} : { loggerInstance: logger }),
    // Fastify's own request lines carry the URL (and so the query string); the hub logs its own line instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // A state key is up to 200 characters, so up to 1,800 bytes once percent-encoded.
    routerOptions: { maxParamLength: 2_048 },
    // Errors the router meets before any route (a malformed URL, a path segment over that length) are answered
    // like every other error: a problem document that does not repeat the URL.
    frameworkErrors: (error, request, reply) => {
      const known = classifyError(error) ?? INTERNAL_ERROR();
      ERROR_CODES_SENT.set(request, known.code);
      return sendProblem(reply, known);
    },
    // Requests Node's parser refuses (bad framing, bad header names, headers over 16 KiB, timeouts) are answered
    // as problem documents too, and their bytes are never logged.
    clientErrorHandler: createClientErrorHandler(() => appLog()),
    // A missing Host is refused below as a problem document, not with Node's bare 400.
    http: { requireHostHeader: false },
    exposeHeadRoutes: false,
    // While closing, requests already on open connections are still answered normally (and as problem+json),
    // rather than with Fastify's own 503 body; the store closes only after the server has.
    return503OnClosing: false,
  }) as unknown as FastifyInstance;
  appLog = () => app.log as FastifyBaseLogger;
  app.server.on("checkExpectation", answerUnsupportedExpectation(appLog));
  app.addHook("onRequest", async (request, reply) => {
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own check answers without a body, so it is done here, and the
    // connection is closed after the answer as for every other malformed request.
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      reply.header("connection", "close");
      throw new KxmError("malformed_http", "the request is not well-formed HTTP/1.1");
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(hubSerializerCompiler);

  const version = options.version ?? (await packageVersion());
  const hub = new HubServices(
    options.store,
    app.log as FastifyBaseLogger,
    options.now ?? (() => new Date()),
    options.adminToken === undefined ? undefined : new AdminToken(options.adminToken),
    options.retentionDays ?? DEFAULT_RETENTION_DAYS,
    version,
  );
  SERVICES.set(app, hub);
  const stopFollowing = await followChanges(options.store, hub.pools, app.log as FastifyBaseLogger);
  if (stopFollowing !== undefined) app.addHook("onClose", stopFollowing);
  // Every route, as it is added, for the 405 answer (and its Allow header) to a known path asked the wrong way.
  const methods = new RouteMethods();
  app.addHook("onRoute", (route) => methods.add(route.method, route.url));

  app.setErrorHandler((error, request, reply) => {
    const known = classifyError(error, ROUTE_BY_PATTERN.get(`${request.method} ${routeOf(request)}`));
    if (known === undefined || known.code === "internal_error") {
      // The type, code and stack frames, never the message (pino would also copy an `err`'s message to `msg`).
      request.log.error({ event: "internal_error", route: routeOf(request), error: describeError(error) });
      ERROR_CODES_SENT.set(request, "internal_error");
      return sendProblem(reply, INTERNAL_ERROR());
    }
    ERROR_CODES_SENT.set(request, known.code);
    return sendProblem(reply, known);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? "/").split("?")[0] ?? "/";
    const allowed = methods.allowed(path);
    if (allowed.length > 0) {
      ERROR_CODES_SENT.set(request, "method_not_allowed");
      reply.header("allow", allowed.join(", "));
      return sendProblem(
        reply,
        new KxmError(
          "method_not_allowed",
          `${request.method} is not served here; this route takes ${allowed.join(", ")}`,
        ),
      );
    }
    ERROR_CODES_SENT.set(request, "not_found");
    return sendProblem(reply, new KxmError("not_found", "no such route"));
  });
  app.addHook("onResponse", async (request, reply) => {
    const caller = CALLERS.get(request);
    const code = ERROR_CODES_SENT.get(request);
    request.log.info({
      event: "request",
      method: request.method,
      route: routeOf(request),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      ...(caller === undefined ? {} : { caller: caller.kind }),
      ...(caller?.kind === "agent" ? { agentId: caller.agentId } : {}),
      ...(caller?.kind === "operator" ? { operator: caller.name } : {}),
      ...(code === undefined ? {} : { code }),
    });
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "KXM hub",
        version,
        description:
          "Deterministic context and memory for AI coding agents. Errors are application/problem+json.",
        license: { name: "MIT", identifier: "MIT" },
      },
      // Relative to this document: the hub that serves it, at whatever address (and path prefix) it was reached.
      servers: [{ url: ".", description: "The hub serving this document" }],
      components: {
        securitySchemes: {
          bearer: {
            type: "http",
            scheme: "bearer",
            description: "The admin token (KXM_AUTH_TOKEN) or a project's agent key",
          },
        },
      },
    },
    // The routes' paths are written as they are (the relative server URL is not a base path to strip).
    stripBasePath: false,
    transform: createJsonSchemaTransform({ schemaRegistry: OPENAPI_COMPONENTS }),
    transformObject: createJsonSchemaTransformObject({ schemaRegistry: OPENAPI_COMPONENTS }),
  });
  const limit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  // An MCP tool call is one `/mcp` request plus its in-process route call: only the first is counted.
  const inProcess = createInProcessMark();
  await app.register(rateLimit, {
    allowList: (request) => inProcess.matches(request),
    max: limit.max,
    timeWindow: limit.timeWindowMs,
    keyGenerator: rateLimitKey,
    errorResponseBuilder: () =>
      new KxmError("rate_limited", "too many requests for this credential; retry later"),
  });

  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  for (const name of Object.keys(ROUTES) as RouteName[]) {
    const route: RouteDefinition = ROUTES[name];
    const handler = HANDLERS[name] as RouteHandler<RouteName>;
    app.route({
      method: route.method,
      url: route.path,
      schema: {
        operationId: name,
        summary: route.summary,
        description: `Auth: ${route.auth}. Error codes: ${route.errors.join(", ") || "none"}.`,
        tags: [route.auth === "none" ? "public" : route.auth],
        // An empty list says in the document that a public route needs no credential.
        security: route.auth === "none" ? [] : [{ bearer: [] }],
        ...(route.params === undefined ? {} : { params: route.params }),
        ...(route.query === undefined ? {} : { querystring: route.query }),
        ...(route.body === undefined ? {} : { body: route.body }),
        response: { [route.status]: route.response, ...errorResponses(route) },
      },
      // Authentication runs before the body is read (and after rate limiting, an onRequest hook), so an
      // unauthenticated caller never gets its body parsed or validated.
      preParsing: async (request, _reply, payload) => {
        const project = (request.params as { project?: unknown }).project;
        const caller = await authorize(
          route,
          presentedCredential(request),
          typeof project === "string" ? project : undefined,
          hub.admin,
          hub.store,
        );
        if (caller !== undefined) CALLERS.set(request, caller);
        return payload;
      },
      handler: async (request, reply) => {
        const result = await handler({
          params: request.params,
          query: request.query,
          body: request.body,
          caller: CALLERS.get(request),
          log: request.log,
          hub,
        } as Parameters<RouteHandler<RouteName>>[0]);
        return reply.code(route.status).send(result);
      },
    });
  }
  registerMcp(app, hub, inProcess.value, options.mcpAllowedOrigins ?? []);
  await registerInspector(app, hub, { secureCookie: options.inspectorSecureCookie ?? false });
  return app;
}

/**
 * Purges records retention no longer keeps (`retentionDays` after they ended, at the hub's `now`) and rebuilds the
 * pools held in memory. `serveHub` calls it on start and hourly.
 */
export async function purgeExpired(app: FastifyInstance): Promise<PurgeCounts> {
  const hub = SERVICES.get(app);
  if (hub === undefined) throw new KxmError("invalid_usage", "purgeExpired needs an app made by buildHub");
  return hub.purge();
}
