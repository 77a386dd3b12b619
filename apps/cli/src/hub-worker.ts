// One worker process of `kxm hub serve --workers N` (started by `hub-workers.ts` through node:cluster). It says
// `ready`, then waits for the primary's `start` message, which carries the validated configuration (over the IPC channel, so no
// token or password passes through argv or the environment), serves the hub on the port the workers share, and
// stops when the primary says `stop` or goes away. Signals are the primary's to act on: a Ctrl-C reaches the
// whole process group, and each worker stops when the primary tells it to, not on its own.
import { isKxmError } from "@kxm/contract";
import type { HubEnv } from "@kxm/hub";
import type { ToPrimary, ToWorker } from "./hub-workers.js";

function send(message: ToPrimary): Promise<void> {
  return new Promise((done) => {
    if (!process.connected || process.send === undefined) return done();
    process.send(message, undefined, {}, () => done());
  });
}

async function serve(env: HubEnv, worker: number): Promise<void> {
  const { exitIfStuck, SHUTDOWN_MARGIN_MS, serveHub } = await import("@kxm/hub");
  const { pino } = await import("pino");
  const logger = pino({ level: env.logLevel }, pino.destination({ dest: 2, sync: true })).child({ worker });
  let hub: Awaited<ReturnType<typeof serveHub>>;
  try {
    hub = await serveHub({ env, logger, handleSignals: false });
  } catch (error) {
    const errno = (error as { code?: unknown } | undefined)?.code;
    await send({
      type: "failed",
      message: error instanceof Error ? error.message : String(error),
      ...(isKxmError(error) ? { kxmCode: error.code } : {}),
      ...(typeof errno === "string" && !isKxmError(error) ? { errno } : {}),
    });
    process.exit(1);
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    exitIfStuck(env.shutdownGraceMs + SHUTDOWN_MARGIN_MS, logger);
    const stopped = await hub.stop();
    await send({ type: "stopped", ...stopped });
    process.exit(stopped.forced ? 1 : 0);
  };
  process.on("message", (message: ToWorker) => {
    if (message?.type === "stop") void stop();
  });
  // A primary that died (kill -9) leaves no one to say stop: the worker stops by itself.
  process.on("disconnect", () => void stop());
  await send({ type: "listening", url: hub.url, database: hub.database });
}

process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => undefined);
process.once("message", (message: ToWorker) => {
  if (message?.type !== "start") process.exit(1);
  else void serve(message.env, message.worker);
});
// Only now can a message be received (one sent before this module ran would be lost): ask for the configuration.
void send({ type: "ready" });
