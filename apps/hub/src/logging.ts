import { type Logger, type LoggerOptions, pino } from "pino";

/**
 * Header paths pino censors wherever a request or its headers are logged. The hub never logs headers itself;
 * this is the second line of defence.
 */
const REDACT_PATHS = [
  "authorization",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
  "request.headers.authorization",
  "*.headers.authorization",
];

/** The frames of a stack trace, without its first line (which holds the error's message, possibly user text). */
function stackFrames(error: unknown): string[] | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== "string") return undefined;
  return stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .map((line) => line.trim())
    .slice(0, 20);
}

interface RequestLike {
  method?: string;
  routeOptions?: { url?: string };
}

/**
 * Serializers that keep values out of the log: a request is its method and route pattern (never the URL, which
 * holds the query string), a reply its status, an error its type, code and stack frames (never its message).
 */
const SAFE_SERIALIZERS = {
  req: (request: RequestLike) => ({ method: request.method, route: request.routeOptions?.url }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: (error: unknown) => {
    if (typeof error !== "object" || error === null) return { type: typeof error };
    const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
    return {
      type: (error as { constructor?: { name?: string } }).constructor?.name ?? "Error",
      ...(typeof code === "string" ? { code } : {}),
      ...(typeof statusCode === "number" ? { statusCode } : {}),
      stack: stackFrames(error),
    };
  },
};

/**
 * An error as a log field: its type, code and stack frames, never its message (which may hold request text). Log
 * it under a key other than `err`, which pino would also copy the message from.
 */
export function describeError(error: unknown): ReturnType<typeof SAFE_SERIALIZERS.err> {
  return SAFE_SERIALIZERS.err(error);
}

function isLogger(value: unknown): value is Logger {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Logger).child === "function" &&
    typeof (value as Logger).info === "function"
  );
}

/**
 * The hub's logger: JSON lines through pino with the redaction paths and safe serializers always applied. A
 * given pino logger is wrapped in a child with them; given options are merged with them; `false` gives no logger.
 */
export function createHubLogger(option: Logger | LoggerOptions | false | undefined): Logger | undefined {
  if (option === false) return undefined;
  const redact = { paths: REDACT_PATHS, censor: "[redacted]" };
  if (isLogger(option)) return option.child({}, { redact, serializers: SAFE_SERIALIZERS });
  const options = option ?? {};
  return pino({
    level: "info",
    ...options,
    redact,
    serializers: { ...options.serializers, ...SAFE_SERIALIZERS },
  });
}
