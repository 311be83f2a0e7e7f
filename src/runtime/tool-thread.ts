/**
 * The parent side of the tool thread (`tool-worker.ts`): start it, send calls, enforce the
 * time limit. A call that exceeds its limit is answered with TOOL_TIMEOUT at once. If that
 * call is still running synchronously (the thread says so through shared memory), or the
 * thread then fails to answer a ping within a grace period, a tool is blocking the thread:
 * it is terminated and a fresh one started. Calls it had already begun fail with TOOL_FAILED;
 * calls still queued behind the blocking one are sent to the fresh thread with a fresh clock.
 * A queued call whose clock runs out first triggers the same check before it times out.
 */
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ToolDefinition } from "../adapter/types.js";
import { HermitError, errorMessage } from "../errors.js";
import { SHARED_LAST_STARTED, SHARED_RUNNING, type FromWorker, type ToWorker, type ToolThreadInit } from "./tool-protocol.js";
import type { ToolResources } from "./types.js";

/** What the thread reports for one call, before the toolbox validates the result. */
export type ThreadOutcome =
  | { ok: true; value: unknown }
  | { ok: false; code: "TOOL_FAILED" | "TOOL_TIMEOUT" | "TOOL_RESULT_INVALID"; message: string };

export interface ToolThreadOptions {
  root: string;
  tools: ToolDefinition[];
  resources: ToolResources;
  /** Limit for importing the tool modules. */
  loadTimeoutMs: number;
}

/** How long a thread may take to answer a ping after a timeout before it counts as blocked. */
const LIVENESS_GRACE_MS = 1000;

interface PendingCall {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  settle: (outcome: ThreadOutcome) => void;
}

/** One started worker and the memory it shares with the parent. */
interface Running {
  worker: Worker;
  /** [SHARED_RUNNING]: id of the call executing synchronously (0: none); [SHARED_LAST_STARTED]: last call begun. */
  shared: Int32Array;
  /** The liveness check in progress, if any. */
  check?: Promise<boolean>;
}

export class ToolThread {
  private current: Running | undefined;
  private starting: Promise<Running> | undefined;
  private readonly pending = new Map<number, PendingCall>();
  private readonly pings = new Map<number, () => void>();
  private nextId = 1;
  private closed = false;

  private constructor(private readonly options: ToolThreadOptions) {}

  /** Start the thread and import every tool; a missing file or function throws ADAPTER_INVALID naming each. */
  static async start(options: ToolThreadOptions): Promise<ToolThread> {
    const thread = new ToolThread(options);
    await thread.ensureRunning();
    return thread;
  }

  /** Run one call with a time limit. Never throws. */
  async run(tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<ThreadOutcome> {
    if (this.closed) return { ok: false, code: "TOOL_FAILED", message: "the tool runtime is closed" };
    return new Promise<ThreadOutcome>((resolve) => {
      const call: PendingCall = { id: this.nextId++, tool, args, timeoutMs, settle: resolve };
      this.pending.set(call.id, call);
      this.dispatch([call]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.current ?? (await this.starting?.catch(() => undefined));
    this.current = undefined;
    this.fail([...this.pending.values()], "the tool runtime was closed");
    await running?.worker.terminate();
  }

  /** Send calls to the running thread, starting one first when needed. */
  private dispatch(calls: PendingCall[]): void {
    const send = (running: Running) => {
      for (const call of calls) {
        if (!this.pending.has(call.id)) continue; // settled while the thread started
        this.arm(call);
        running.worker.ref();
        running.worker.postMessage({ type: "call", id: call.id, tool: call.tool, args: call.args } satisfies ToWorker);
      }
    };
    if (this.current) return send(this.current);
    this.ensureRunning().then(send, (error: unknown) =>
      this.fail(calls, `the tool thread could not restart: ${errorMessage(error)}`),
    );
  }

  /** Start a call's clock when it is sent: a call resent to a fresh thread gets its full limit there. */
  private arm(call: PendingCall): void {
    clearTimeout(call.timer);
    call.timer = setTimeout(() => this.timedOut(call), call.timeoutMs);
  }

  private settle(id: number, outcome: ThreadOutcome): void {
    const call = this.pending.get(id);
    if (!call) return; // already timed out, or failed when its thread was replaced
    this.pending.delete(id);
    clearTimeout(call.timer);
    if (this.pending.size === 0) this.current?.worker.unref();
    call.settle(outcome);
  }

  private fail(calls: PendingCall[], message: string): void {
    for (const call of calls) this.settle(call.id, { ok: false, code: "TOOL_FAILED", message });
  }

  private timedOut(call: PendingCall): void {
    const running = this.current;
    if (running && call.id > Atomics.load(running.shared, SHARED_LAST_STARTED)) {
      // The thread never reached this call. If it is blocked, the call runs on a fresh thread
      // with its full limit; if it is merely busy, the call has waited its limit out.
      void this.isBlocked(running).then((blocked) => {
        if (blocked) this.replace(running);
        else this.settle(call.id, { ok: false, code: "TOOL_TIMEOUT", message: `timed out after ${call.timeoutMs} ms` });
      });
      return;
    }
    this.settle(call.id, { ok: false, code: "TOOL_TIMEOUT", message: `timed out after ${call.timeoutMs} ms` });
    if (!running) return;
    if (Atomics.load(running.shared, SHARED_RUNNING) === call.id) this.replace(running, call.tool);
    else void this.isBlocked(running).then((blocked) => blocked && this.replace(running, call.tool));
  }

  /** Whether the thread fails to answer a ping within the grace period (one check at a time). */
  private isBlocked(running: Running): Promise<boolean> {
    running.check ??= new Promise<boolean>((resolve) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pings.delete(id);
        resolve(true);
      }, LIVENESS_GRACE_MS);
      this.pings.set(id, () => {
        clearTimeout(timer);
        this.pings.delete(id);
        resolve(false);
      });
      running.worker.postMessage({ type: "ping", id } satisfies ToWorker);
    }).finally(() => {
      running.check = undefined;
    });
    return running.check;
  }

  /** Terminate a blocked thread; fail the calls it began, resend the ones it never reached. */
  private replace(running: Running, suspect?: string): void {
    if (this.current !== running) return;
    this.current = undefined;
    const lastStarted = Atomics.load(running.shared, SHARED_LAST_STARTED);
    // Name the call that holds the thread right now when it is still pending, else the one that timed out.
    const blocker = this.pending.get(Atomics.load(running.shared, SHARED_RUNNING))?.tool ?? suspect;
    const calls = [...this.pending.values()];
    this.fail(
      calls.filter((call) => call.id <= lastStarted),
      `the tool thread was restarted because ${blocker ? `tool '${blocker}'` : "a tool"} blocked it past its time limit`,
    );
    void running.worker.terminate();
    const queued = calls.filter((call) => call.id > lastStarted);
    // Their clocks restart when the fresh thread receives them.
    queued.forEach((call) => clearTimeout(call.timer));
    if (queued.length > 0 && !this.closed) this.dispatch(queued);
  }

  private ensureRunning(): Promise<Running> {
    if (this.current) return Promise.resolve(this.current);
    this.starting ??= this.spawn().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async spawn(): Promise<Running> {
    const { root, tools, resources, loadTimeoutMs } = this.options;
    const shared = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
    const init: ToolThreadInit = {
      root,
      tools: tools.map((tool) => ({ name: tool.name, file: tool.entry.file, function: tool.entry.function })),
      resources,
      shared,
    };
    const worker = createWorker(init);
    // The tools' console output must never reach stdout (the stdio protocol channel). Forwarded
    // by hand rather than piped: many sessions piping into stderr would pile up its listeners.
    worker.stdout.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    await loaded(worker, root, loadTimeoutMs);
    const running: Running = { worker, shared };
    worker.on("message", (message: FromWorker) => this.onMessage(message));
    worker.on("error", (error) => process.stderr.write(`hermit: tool thread error: ${error.stack ?? error.message}\n`));
    worker.on("exit", (code) => {
      if (this.current !== running) return;
      this.current = undefined;
      this.fail([...this.pending.values()], `the tool thread stopped (exit code ${code}) while the call ran`);
    });
    if (this.closed) {
      await worker.terminate();
      throw new HermitError("USAGE", "the tool runtime was closed while starting");
    }
    this.current = running;
    worker.unref();
    return running;
  }

  private onMessage(message: FromWorker): void {
    if (message.type === "result") this.settle(message.id, { ok: true, value: message.value });
    else if (message.type === "error") {
      const code = message.invalidResult ? "TOOL_RESULT_INVALID" : "TOOL_FAILED";
      this.settle(message.id, { ok: false, code, message: message.message });
    } else if (message.type === "pong") this.pings.get(message.id)?.();
  }
}

/** Wait for the thread's `ready`; a load failure, crash or time-out throws ADAPTER_INVALID. */
function loaded(worker: Worker, root: string, loadTimeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failure = (message: string, data: Record<string, unknown> = {}) =>
      new HermitError("ADAPTER_INVALID", `${root}: ${message}`, { path: root, ...data });
    const done = (error?: HermitError) => {
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (!error) return resolve();
      void worker.terminate();
      reject(error);
    };
    const onMessage = (message: FromWorker) => {
      if (message.type === "ready") done();
      else if (message.type === "load-failed") {
        done(failure(`cannot load tools:\n  ${message.problems.join("\n  ")}`, { problems: message.problems }));
      }
    };
    const onError = (error: Error) => done(failure(`the tool thread failed to start: ${error.message}`));
    const onExit = (code: number) => done(failure(`the tool thread exited with code ${code} while loading the tools`));
    const timer = setTimeout(() => done(failure(`loading the tools timed out after ${loadTimeoutMs} ms`)), loadTimeoutMs);
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
  });
}

/**
 * From `dist/` the worker is plain JavaScript. From source (tests, `jiti`), the worker is
 * TypeScript, so it is booted through jiti inside the thread.
 */
function createWorker(init: ToolThreadInit): Worker {
  const options = { workerData: init, stdout: true } as const;
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./tool-worker.js", import.meta.url), options);
  const workerFile = fileURLToPath(new URL("./tool-worker.ts", import.meta.url));
  const jiti = createRequire(import.meta.url).resolve("jiti");
  const boot = [
    `const { createJiti } = require(${JSON.stringify(jiti)});`,
    `createJiti(${JSON.stringify(pathToFileURL(workerFile).href)}).import(${JSON.stringify(workerFile)})`,
    `  .catch((error) => { process.stderr.write(String(error && error.stack || error) + "\\n"); process.exit(70); });`,
  ].join("\n");
  return new Worker(boot, { ...options, eval: true });
}
