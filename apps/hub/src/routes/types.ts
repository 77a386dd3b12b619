import type { ROUTES, RouteName } from "@kxm/contract";
import type { RouteOutput } from "@kxm/contract/client";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { Caller } from "../auth.js";
import type { HubServices } from "../services.js";

type Route<K extends RouteName> = (typeof ROUTES)[K];

/** A validated part of a request (path parameters, query or body), typed from the route table. */
type Part<K extends RouteName, F extends "params" | "query" | "body"> =
  Route<K> extends {
    [P in F]: infer S extends z.ZodType;
  }
    ? z.output<S>
    : undefined;

/** One call of a route, after authentication and validation. */
interface RouteCall<K extends RouteName> {
  readonly params: Part<K, "params">;
  readonly query: Part<K, "query">;
  readonly body: Part<K, "body">;
  /** Who called; undefined only on routes that need no credential. */
  readonly caller: Caller | undefined;
  /** The request's logger (bound to its request id). */
  readonly log: FastifyBaseLogger;
  readonly hub: HubServices;
}

/** A handler for one route: its answer is the route's success response. */
export type RouteHandler<K extends RouteName> = (call: RouteCall<K>) => Promise<RouteOutput<K>>;

export type RouteHandlers = { readonly [K in RouteName]: RouteHandler<K> };
