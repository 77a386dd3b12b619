// `kxm hub serve --workers N`: a node:cluster primary that runs N hub processes on one database and one port
// (the primary accepts connections and hands them to the workers in turn), so a hub uses every core it is given.
// The workers are coherent by construction: every request reads the database (the change feed tells each process
// what another wrote; inspector sessions are stored), and nothing a request depends on lives in one process only,
// except the rate limit, which each worker counts for itself.
import cluster, { type Worker } from "node:cluster";
import { fileURLToPath } from "node:url";
import { KxmError } from "@kxm/contract";
import type { HubEnv } from "@kxm/hub";

/** What the primary tells a worker. */
export type ToWorker =
  | { readonly type: "start"; readonly env: HubEnv; readonly worker: number }
  | { readonly type: "stop" };

/** What a worker tells the primary. */
export type ToPrimary =
  | { readonly type: "ready" }
  | { readonly type: "listening"; readonly url: string; readonly database: string }
  | { readonly type: "failed"; readonly message: string; readonly kxmCode?: string; readonly errno?: string }
  | { readonly type: "stopped"; readonly forced: boolean; readonly connectionsCut: number };

/** A listening worker that exits is replaced, but not more than this many times in {@link RESTART_WINDOW_MS}. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

interface Log {
  info(event: object): void;
  warn(event: object): void;
  error(event: object): void;
}

/** How the workers stopped: as `HubStopped`, summed over the workers. */
export interface WorkersStopped {
  readonly forced: boolean;
  readonly connectionsCut: number;
}

/** The error a worker's failure to start stands for, as the single-process hub would have thrown it. */
function startError(message: Extract<ToPrimary, { type: "failed" }>): Error {
  if (message.kxmCode !== undefined) return new KxmError(message.kxmCode as never, message.message);
  return Object.assign(
    new Error(message.message),
    message.errno === undefined ? {} : { code: message.errno },
  );
}

/**
 * The workers of one `kxm hub serve`. `start` forks them and resolves once every one listens; `stop` asks each to
 * stop as a single hub does (requests in flight get the grace period) and resolves once all have exited; `failed`
 * resolves if serving cannot go on (a worker that keeps exiting).
 */
export class HubWorkers {
  readonly #env: HubEnv;
  readonly #count: number;
  readonly #log: Log;
  readonly #workers = new Map<number, Worker>();
  readonly #restarts: number[] = [];
  #next = 1;
  #stopping = false;
  #forced = false;
  #connectionsCut = 0;
  #fail: ((error: Error) => void) | undefined;
  /** Resolves with the reason serving stopped on its own; never while all is well. */
  readonly failed: Promise<Error>;

  constructor(env: HubEnv, count: number, log: Log) {
    this.#env = env;
    this.#count = count;
    this.#log = log;
    this.failed = new Promise((done) => {
      this.#fail = done;
    });
    cluster.setupPrimary({ exec: fileURLToPath(new URL("./hub-worker.js", import.meta.url)), args: [] });
  }

  /** Forks the workers; resolves with the URL and database once all of them listen, rejects on the first failure. */
  async start(): Promise<{ url: string; database: string }> {
    const started = Array.from({ length: this.#count }, () => this.#fork());
    try {
      const [first] = await Promise.all(started);
      return first!;
    } catch (error) {
      this.kill();
      throw error;
    }
  }

  /** Asks every worker to stop, and resolves once all have exited. */
  async stop(): Promise<WorkersStopped> {
    this.#stopping = true;
    const exits = [...this.#workers.values()].map(
      (worker) =>
        new Promise<void>((done) => {
          if (worker.isDead()) return done();
          worker.once("exit", () => done());
          this.#send(worker, { type: "stop" });
        }),
    );
    await Promise.all(exits);
    return { forced: this.#forced, connectionsCut: this.#connectionsCut };
  }

  /** Ends every worker at once (SIGKILL): a second signal, or a stop that hung. */
  kill(): void {
    this.#stopping = true;
    for (const worker of this.#workers.values()) if (!worker.isDead()) worker.process.kill("SIGKILL");
  }

  #send(worker: Worker, message: ToWorker): void {
    try {
      worker.send(message);
    } catch {
      // A worker whose channel already closed is exiting: its exit is awaited like the others'.
    }
  }

  /** Forks one worker; resolves once it listens, rejects if it fails or exits first. */
  #fork(): Promise<{ url: string; database: string }> {
    const id = this.#next++;
    const worker = cluster.fork();
    this.#workers.set(id, worker);
    let listening = false;
    return new Promise((resolve, reject) => {
      worker.on("message", (message: ToPrimary) => {
        if (message.type === "ready") {
          this.#send(worker, { type: "start", env: this.#env, worker: id });
        } else if (message.type === "listening") {
          listening = true;
          this.#log.info({ event: "hub_worker_listening", worker: id, pid: worker.process.pid });
          resolve({ url: message.url, database: message.database });
        } else if (message.type === "failed") {
          reject(startError(message));
        } else if (message.type === "stopped") {
          this.#forced ||= message.forced;
          this.#connectionsCut += message.connectionsCut;
        }
      });
      worker.on("exit", (code, signal) => {
        this.#workers.delete(id);
        if (this.#stopping) {
          // A worker that did not stop cleanly (killed, or cut connections without saying so) counts as forced.
          if (code !== 0) this.#forced = true;
          return;
        }
        if (!listening) {
          reject(new Error(`hub worker ${id} exited before it listened (${signal ?? `exit code ${code}`})`));
          return;
        }
        this.#log.warn({ event: "hub_worker_exited", worker: id, code, signal });
        this.#replace();
      });
    });
  }

  #replace(): void {
    const now = Date.now();
    while (this.#restarts.length > 0 && this.#restarts[0]! <= now - RESTART_WINDOW_MS) this.#restarts.shift();
    if (this.#restarts.length >= MAX_RESTARTS) {
      this.#fail?.(
        new Error(
          `hub workers exited ${MAX_RESTARTS + 1} times within ${RESTART_WINDOW_MS / 1000} s; stopping (see the log)`,
        ),
      );
      return;
    }
    this.#restarts.push(now);
    this.#fork().catch((error: unknown) => {
      this.#fail?.(error instanceof Error ? error : new Error(String(error)));
    });
  }
}
