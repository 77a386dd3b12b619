// The inspector: read-only HTML pages under /inspector where an operator sees what each agent was given and why
// (docs/guides/inspector.md). Server-rendered with eta (every value escaped), plain CSS and htmx served from here,
// behind a sign-in with the admin or an operator token that leaves only a random session id in the browser.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import view from "@fastify/view";
import { ERROR_CATALOGUE, KxmError } from "@kxm/contract";
import { Eta } from "eta";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { authorize, type Caller } from "../auth.js";
import { describeError } from "../logging.js";
import { classifyError, INTERNAL_ERROR, routeOf } from "../problems.js";
import type { HubServices } from "../services.js";
import {
  itemPage,
  type PageCall,
  packetPage,
  packetsPage,
  projectsPage,
  type ReplayOutcome,
  replayOutcome,
  runPage,
  runsPage,
  stateKeyPage,
  statePage,
} from "./pages.js";
import {
  formTokenMatches,
  type InspectorSession,
  InspectorSessions,
  type InspectorUser,
  SESSION_LIFETIME_MS,
} from "./sessions.js";

/** The session cookie's name. */
const SESSION_COOKIE = "kxm_inspector";

/**
 * The policy of every inspector response: only this origin's files (no inline script or style, no other host),
 * no `<base>`, forms post only here, and no page may be framed by another site.
 */
export const INSPECTOR_CSP =
  "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// src/inspector and dist/inspector are at the same depth: both read the templates and CSS from src/inspector,
// which the package ships (package.json `files`).
const HERE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "inspector");
const TEMPLATES = join(HERE, "templates");
const ASSETS = join(HERE, "assets");

/** The sign-in's refusal, whatever the credential was (an agent key, a wrong or revoked token). */
const REFUSED = "That is not the admin token or an active operator token.";

const SESSIONS = new WeakMap<FastifyRequest, InspectorSession>();

/** The operator auth of the API: the admin token or an active operator token, never an agent key. */
const OPERATOR_AUTH = { auth: "operator", errors: [] } as const;

function callerOf(user: InspectorUser): Caller {
  return user.kind === "admin" ? { kind: "admin" } : { kind: "operator", name: user.name };
}

function signedInAs(user: InspectorUser): string {
  return user.kind === "admin" ? "the admin" : `operator ${user.name}`;
}

/** The layout's account bar: who is signed in, and the session's form token for signing out. */
function signedIn(request: FastifyRequest): { session?: InspectorSession; signedInAs?: string } {
  const session = SESSIONS.get(request);
  return session === undefined ? {} : { session, signedInAs: signedInAs(session.user) };
}

/** The URL path of a page, each id encoded as a path segment. */
function pagePath(...segments: string[]): string {
  return `/inspector/${segments.map((segment) => encodeURIComponent(segment)).join("/")}`;
}

/** The htmx file the package ships, read once. */
async function htmxSource(): Promise<Buffer> {
  return readFile(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"));
}

/** How the inspector is served. */
export interface InspectorOptions {
  /** Sets the session cookie `Secure` on every sign-in, not only on one that came over https. */
  readonly secureCookie: boolean;
}

/**
 * Registers the inspector's pages and assets under `/inspector` in their own Fastify scope (its own cookie and
 * form parsing, error pages instead of problem documents), over the same services as the API routes.
 */
export async function registerInspector(
  app: FastifyInstance,
  hub: HubServices,
  options: InspectorOptions,
): Promise<void> {
  const sessions = new InspectorSessions(hub.store, hub.admin, hub.now);
  const htmx = await htmxSource();
  const css = await readFile(join(ASSETS, "inspector.css"));
  const icon = await readFile(join(ASSETS, "favicon.svg"));
  await app.register(
    async (scope) => {
      // The pages are not API routes: they stay out of the OpenAPI document, as /mcp does.
      scope.addHook("onRoute", (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      await scope.register(cookie);
      await scope.register(view, {
        engine: { eta: new Eta({ autoEscape: true, views: TEMPLATES }) },
        root: TEMPLATES,
        production: true,
        defaultContext: { pagePath },
      });
      scope.addContentTypeParser(
        "application/x-www-form-urlencoded",
        { parseAs: "string" },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
      );
      scope.addHook("onSend", async (_request, reply, payload) => {
        reply.header("content-security-policy", INSPECTOR_CSP);
        reply.header("x-content-type-options", "nosniff");
        reply.header("referrer-policy", "no-referrer");
        if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
        return payload;
      });

      const page = (reply: FastifyReply, template: string, data: Record<string, unknown>, status = 200) =>
        reply.code(status).type("text/html; charset=utf-8").view(template, data);

      scope.setErrorHandler((error, request, reply) => {
        const known = classifyError(error);
        if (known === undefined || known.code === "internal_error") {
          request.log.error({
            event: "internal_error",
            route: routeOf(request),
            error: describeError(error),
          });
        }
        const shown = known ?? INTERNAL_ERROR();
        const { title, status } = ERROR_CATALOGUE[shown.code];
        return page(
          reply,
          "error",
          { title, code: shown.code, message: shown.message, ...signedIn(request) },
          status,
        );
      });
      scope.setNotFoundHandler((request, reply) =>
        page(
          reply,
          "error",
          { title: "Not found", code: "not_found", message: "no such page", ...signedIn(request) },
          404,
        ),
      );

      const assetHeaders = { "cache-control": "public, max-age=3600" };
      scope.get("/assets/htmx.min.js", async (_request, reply) =>
        reply.headers(assetHeaders).type("text/javascript; charset=utf-8").send(htmx),
      );
      scope.get("/assets/inspector.css", async (_request, reply) =>
        reply.headers(assetHeaders).type("text/css; charset=utf-8").send(css),
      );
      scope.get("/assets/favicon.svg", async (_request, reply) =>
        reply.headers(assetHeaders).type("image/svg+xml").send(icon),
      );

      const signInPage = (reply: FastifyReply, status: number, message?: string) =>
        page(reply, "sign-in", { title: "Sign in", configured: hub.admin !== undefined, message }, status);

      scope.get("/sign-in", async (_request, reply) =>
        signInPage(reply, hub.admin === undefined ? 503 : 200),
      );
      scope.post("/sign-in", async (request, reply) => {
        const token = (request.body as { token?: unknown } | undefined)?.token;
        if (hub.admin === undefined) return signInPage(reply, 503);
        let caller: Caller | undefined;
        try {
          caller = await authorize(
            OPERATOR_AUTH,
            typeof token === "string" ? token : "",
            undefined,
            hub.admin,
            hub.store,
          );
        } catch (error) {
          if (classifyError(error)?.code !== "invalid_auth") throw error;
        }
        const user = await userOf(caller, hub);
        if (user === undefined) return signInPage(reply, 401, REFUSED);
        const session = await sessions.open(user);
        reply.setCookie(SESSION_COOKIE, session.id, {
          httpOnly: true,
          sameSite: "strict",
          path: "/inspector",
          // Behind a TLS proxy the hub sees plain http: the operator says so (KXM_INSPECTOR_SECURE_COOKIE).
          secure: options.secureCookie || request.protocol === "https",
          maxAge: SESSION_LIFETIME_MS / 1000,
        });
        return reply.redirect("/inspector", 303);
      });

      // Every page below needs a session: without one, a page is a redirect to the sign-in, and a form post is
      // refused unless it carries the session's form token.
      await scope.register(async (pages) => {
        // The session is checked before the body is read; its form token once the body is parsed.
        pages.addHook("onRequest", async (request, reply) => {
          const session = await sessions.current(request.cookies[SESSION_COOKIE]);
          if (session === undefined) return reply.redirect("/inspector/sign-in", 303);
          SESSIONS.set(request, session);
        });
        pages.addHook("preHandler", async (request) => {
          const session = SESSIONS.get(request)!;
          if (
            request.method === "POST" &&
            !formTokenMatches(session, (request.body as { csrf?: unknown })?.csrf)
          ) {
            throw new KxmError("invalid_request", "the form is out of date: reload the page and try again");
          }
        });
        const call = (request: FastifyRequest): PageCall => ({
          hub,
          caller: callerOf(SESSIONS.get(request)!.user),
          log: request.log,
        });

        pages.post("/sign-out", async (request, reply) => {
          await sessions.close(SESSIONS.get(request)!.id);
          reply.clearCookie(SESSION_COOKIE, { path: "/inspector" });
          return reply.redirect("/inspector/sign-in", 303);
        });
        pages.get("/", async (request, reply) =>
          page(reply, "projects", {
            title: "Projects",
            ...signedIn(request),
            ...(await projectsPage(call(request))),
          }),
        );
        pages.get("/projects/:project/packets", async (request, reply) => {
          const data = await packetsPage(
            call(request),
            request.params,
            request.query as { cursor?: unknown },
          );
          return page(reply, "packets", {
            title: `Packets of ${data.project}`,
            ...signedIn(request),
            ...data,
          });
        });
        const packet = async (request: FastifyRequest, reply: FastifyReply, replay?: ReplayOutcome) => {
          const data = await packetPage(call(request), request.params);
          return page(reply, "packet", {
            title: data.packet.packetId,
            ...signedIn(request),
            ...data,
            replay,
          });
        };
        pages.get("/projects/:project/packets/:packetId", async (request, reply) => packet(request, reply));
        pages.post("/projects/:project/packets/:packetId/replay", async (request, reply) => {
          const task = (request.body as { task?: unknown }).task;
          const replay = await replayOutcome(call(request), request.params, task);
          // htmx asks for the result alone, to put under the form; without script the whole page comes back.
          if (request.headers["hx-request"] === "true") return page(reply, "replay-result", { replay });
          return packet(request, reply, replay);
        });
        pages.get("/projects/:project/runs", async (request, reply) => {
          const data = await runsPage(call(request), request.params, request.query as { cursor?: unknown });
          return page(reply, "runs", { title: `Runs of ${data.project}`, ...signedIn(request), ...data });
        });
        pages.get("/projects/:project/runs/:runId", async (request, reply) => {
          const data = await runPage(call(request), request.params);
          return page(reply, "run", { title: `Run ${data.runId}`, ...signedIn(request), ...data });
        });
        pages.get("/projects/:project/state", async (request, reply) => {
          const data = await statePage(call(request), request.params);
          return page(reply, "state", { title: `State of ${data.project}`, ...signedIn(request), ...data });
        });
        pages.get("/projects/:project/state/:key", async (request, reply) => {
          const data = await stateKeyPage(call(request), request.params, request.query as { asOf?: unknown });
          return page(reply, "state-key", { title: data.key, ...signedIn(request), ...data });
        });
        pages.get("/projects/:project/items/:itemId", async (request, reply) => {
          const data = await itemPage(call(request), request.params);
          return page(reply, "item", { title: data.explanation.id, ...signedIn(request), ...data });
        });
      });
    },
    { prefix: "/inspector" },
  );
}

/** The inspector's user for an authorized caller, or undefined (no caller; an operator revoked meanwhile). */
async function userOf(caller: Caller | undefined, hub: HubServices): Promise<InspectorUser | undefined> {
  if (caller === undefined || caller.kind === "agent") return undefined;
  if (caller.kind === "admin") return { kind: "admin" };
  const operator = (await hub.store.listOperators()).find((candidate) => candidate.name === caller.name);
  return operator === undefined
    ? undefined
    : { kind: "operator", name: operator.name, createdAt: operator.createdAt };
}
