import {
  ERROR_CATALOGUE,
  type ErrorCode,
  isKxmError,
  KxmError,
  kxmErrorFromZod,
  type Problem,
  type RouteDefinition,
} from "@kxm/contract";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { z } from "zod";

/** The media type of every error the hub answers. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** The `type` URI of a problem document: one page per catalogue code. */
function problemType(code: ErrorCode): string {
  return `https://kxm.dev/errors/${code}`;
}

/** The RFC 9457 problem document for a KXM error. */
export function toProblem(error: KxmError): Problem {
  const entry = ERROR_CATALOGUE[error.code];
  return {
    type: problemType(error.code),
    title: entry.title,
    status: entry.status,
    code: error.code,
    detail: error.message,
  };
}

/** Sends `error` as `application/problem+json` with its catalogue status. */
export function sendProblem(reply: FastifyReply, error: KxmError): FastifyReply {
  const problem = toProblem(error);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

const SUBJECTS: Readonly<Record<string, string>> = {
  body: "request body",
  params: "path parameter",
  querystring: "query parameter",
  headers: "header",
};

// Issue messages that would repeat what the caller sent (an unknown key's name, a union member's detail) are
// replaced, so that an error never echoes the request back.
function safeMessage(issue: { code: string; message: string }): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return "unrecognized key";
    case "invalid_union":
      return "matches none of the allowed shapes";
    case "invalid_key":
      return "invalid key";
    case "invalid_element":
      return "invalid element";
    default:
      return issue.message;
  }
}

/**
 * A validation failure of fastify-type-provider-zod, as the catalogue's error: the contract's own mapping
 * (`kxmErrorFromZod`), so a value over a limit is `context_limits_exceeded` and any other shape error
 * `invalid_request`, with a message naming the field and the rule, never the value.
 */
function fromValidation(
  error: FastifyError & { validationContext?: string },
  route: RouteDefinition | undefined,
): KxmError {
  const subject = SUBJECTS[error.validationContext ?? ""] ?? "request";
  if (!hasZodFastifySchemaValidationErrors(error)) {
    return new KxmError("invalid_request", `${subject} does not match its schema`);
  }
  const issues = error.validation.map((entry) => {
    const path = entry.instancePath
      .split("/")
      .slice(1)
      .filter((part) => part !== "")
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const rebuilt = { ...(entry.params as object), code: entry.keyword, path, message: entry.message ?? "" };
    return { ...rebuilt, message: safeMessage(rebuilt) };
  });
  const mapped = kxmErrorFromZod(new z.ZodError(issues as z.core.$ZodIssue[]), "invalid_request", subject);
  return route === undefined ? mapped : fitToRoute(mapped, route, issues[0]?.path[0], subject);
}

/**
 * Keeps a validation error within the codes its route's table entry lists, so a client can rely on that list:
 * evidence that fails a state route's rules is `invalid_state_proposal` (docs/reference/behaviour.md section 9 point 8); a limit the route does
 * not list is `invalid_request`. A malformed path id is `invalid_request` on every route, whatever the rule it
 * breaks (a well-formed id that names no record is the handler's 404), so one rule holds for every route with a
 * path parameter.
 */
function fitToRoute(
  error: KxmError,
  route: RouteDefinition,
  field: PropertyKey | undefined,
  subject: string,
): KxmError {
  if (subject === SUBJECTS.params) return new KxmError("invalid_request", error.message);
  const listed = (code: ErrorCode) => (route.errors as readonly ErrorCode[]).includes(code);
  if (field === "evidenceRefs" && listed("invalid_state_proposal")) {
    return new KxmError("invalid_state_proposal", error.message);
  }
  if (listed(error.code)) return error;
  return new KxmError("invalid_request", error.message);
}

/**
 * Maps anything thrown while serving a request to a catalogue error. Returns `undefined` for an error the hub did
 * not expect (a bug): the caller answers a generic 500 and logs it.
 */
export function classifyError(error: unknown, route?: RouteDefinition): KxmError | undefined {
  if (isKxmError(error)) {
    // Compared by code, so an error from a second copy of @kxm/contract is recognised too.
    const { code, message } = error as { code: ErrorCode; message: string };
    return new KxmError(code, message);
  }
  if (typeof error !== "object" || error === null) return undefined;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (Array.isArray(fastifyError.validation)) return fromValidation(fastifyError, route);
  const status = fastifyError.statusCode;
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new KxmError("payload_too_large", "the request body is over 256 KiB");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new KxmError("invalid_request", "the request body must be application/json");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new KxmError("invalid_request", "the request body is empty but its content type is JSON");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new KxmError("invalid_request", "the request's content length does not match its body");
    default:
      break;
  }
  if (status === 413) return new KxmError("payload_too_large", "the request body is over 256 KiB");
  if (status === 429)
    return new KxmError("rate_limited", "too many requests for this credential; retry later");
  if (status === 404) return new KxmError("not_found", "no such resource");
  if (error instanceof SyntaxError || (typeof status === "number" && status >= 400 && status < 500)) {
    return new KxmError(
      "invalid_request",
      "the request is malformed (for example, its body is not valid JSON)",
    );
  }
  return undefined;
}

/** The answer to an unexpected failure: never the failure's own message. */
export const INTERNAL_ERROR = (): KxmError =>
  new KxmError("internal_error", "an unexpected failure inside the hub; the hub log has the details");

/** The request's route pattern (such as `/v1/projects/:project/context`), never its URL. */
export function routeOf(request: FastifyRequest): string | undefined {
  return request.routeOptions?.url;
}
