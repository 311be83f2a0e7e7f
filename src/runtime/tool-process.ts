/**
 * The protocol side of a tool process (`tool-host.ts`, `hermit_host.py`): start it, send
 * calls over the private channel (`tool-channel.ts`), and keep it healthy.
 *
 * - **Authenticated answers.** Each call carries a fresh random key; an answer counts only
 *   when it names a pending call with that call's key. Anything else on the channel (a tool
 *   writing on file descriptor 4, say) is ignored and reported in the log.
 * - **Calls in flight are capped** (`maxInFlight`); the rest wait here, in order. A call's
 *   clock starts when it is sent.
 * - **Time limits.** A call past its limit is answered with TOOL_TIMEOUT at once and the host
 *   is told to cancel it. Then the process is pinged: no answer within a grace period means a
 *   tool blocks it, and it is killed and replaced. A call it had begun fails with
 *   TOOL_FAILED; one it never reached is sent to the fresh process. Which is which: the host
 *   announces a call (`begun`) before starting it whenever another call is running, so of the
 *   calls with neither answer nor announcement only the oldest can have started. A pong that
 *   reports a stuck call (a Python thread nothing can stop) retires the process: new calls go
 *   to a fresh one, and the old one is killed once its other calls are answered.
 * - **Crashes.** A process that exits is handled the same way once its channel is drained; the
 *   next call starts a fresh one.
 * - **Nothing outlives it.** The process leads its own process group; the group, and every
 *   descendant still linked to it, is killed when the process is replaced or closed, and when
 *   hermit exits (`process-tree.ts`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { HermitError, errorMessage } from "../errors.js";
import { killTree, trackProcess, TREE_MARK, untrackProcess } from "./process-tree.js";
import { LineSplitter, MAX_ANSWER_BYTES, type FromHost, type HostTool, type LoadProblem, type ToHost } from "./tool-channel.js";
import type { ToolResources } from "./types.js";

/** What a tool process reports for one call, before the toolbox validates the result. */
export type ProcessOutcome =
  | { ok: true; value: unknown }
  | { ok: false; code: "TOOL_FAILED" | "TOOL_TIMEOUT" | "TOOL_CANCELLED" | "TOOL_RESULT_INVALID"; message: string };

/** How to start the process (see `tool-launch.ts`). */
export interface ToolLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** e.g. `node v20.20.2` or `python 3.11.7 (/usr/bin/python3.11, from PATH)`: for logs and the audit log. */
  runtime: string;
}

export interface ToolProcessOptions {
  launch: ToolLaunch;
  root: string;
  tools: Array<HostTool & { entrypoint: string }>;
  resources: ToolResources;
  /** Limit for importing the tool modules. */
  loadTimeoutMs: number;
  /** Calls sent to the process at once; the rest wait. */
  maxInFlight: number;
  /** Where the process's stdout and stderr go (they never reach a protocol stream). */
  output: (chunk: Buffer) => void;
}

/** How long a process may take to answer a ping after a time-out before it counts as blocked. */
const LIVENESS_GRACE_MS = 1000;
/** How long to wait for the channel to drain after the process exited. */
const DRAIN_GRACE_MS = 250;

interface PendingCall {
  id: number;
  key: string;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  process?: Running;
  settle: (outcome: ProcessOutcome) => void;
}

/** A call the process was sent and has not answered; `call` is gone once it timed out. */
interface Sent {
  key: string;
  announced: boolean;
  call?: PendingCall;
}

interface Running {
  child: ChildProcess;
  /** Its `HERMIT_TOOL_TREE` value (process-tree.ts). */
  mark: string;
  requests: Writable;
  sent: Map<number, Sent>;
  pings: Map<number, { key: string; answer: (stuck: number) => void }>;
  check?: Promise<{ blocked: true } | { blocked: false; stuck: number }>;
  /** Serves no new calls; killed once its pending calls are answered. */
  retiring: boolean;
  gone: boolean;
  forged: number;
  /** While starting: receives `ready` or `load-failed`. */
  onStart?: (message: Extract<FromHost, { t: "ready" | "load-failed" }>) => void;
}

export class ToolProcess {
  private current: Running | undefined;
  private starting: Promise<Running> | undefined;
  private readonly retiring = new Set<Running>();
  private readonly queue: PendingCall[] = [];
  private inFlight = 0;
  private nextId = 1;
  private closed = false;
  private held = false;
  /** The runtime the process reported at start (`node v20…`, `python 3.11.7`). */
  runtime = "";

  private constructor(private readonly options: ToolProcessOptions) {}

  /** Start the process and load every tool; a load failure throws ADAPTER_INVALID naming each tool. */
  static async start(options: ToolProcessOptions): Promise<ToolProcess> {
    const tools = new ToolProcess(options);
    await tools.ensureRunning();
    return tools;
  }

  /** Calls waiting to be sent (for backpressure). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Send no new calls until `release()` (the output they would answer to is not draining);
   * calls already sent run on.
   */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.pump();
  }

  /** Run one call with a time limit; `signal` cancels it. Never throws. */
  run(tool: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<ProcessOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, code: "TOOL_FAILED", message: "the tool runtime is closed" });
    if (signal?.aborted) return Promise.resolve(cancelledOutcome);
    return new Promise<ProcessOutcome>((resolve) => {
      const onAbort = () => this.cancelled(call);
      const call: PendingCall = {
        id: this.nextId++,
        key: randomUUID(),
        tool,
        args,
        timeoutMs,
        settle: (outcome) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(call);
      this.pump();
    });
  }

  /** The client cancelled `call`: answered at once; if it was sent, the host is told to cancel it, as after a time-out. */
  private cancelled(call: PendingCall): void {
    const queued = this.queue.indexOf(call);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      return this.settle(call, cancelledOutcome);
    }
    const running = call.process;
    if (!running || running.sent.get(call.id)?.call !== call) return; // answered already
    this.settle(call, cancelledOutcome);
    this.cancelInHost(running, call);
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.current ?? (await this.starting?.catch(() => undefined));
    this.current = undefined;
    this.fail(this.queue.splice(0), "the tool runtime was closed");
    for (const process of [running, ...this.retiring]) {
      if (!process) continue;
      for (const sent of process.sent.values()) if (sent.call) this.settle(sent.call, closedOutcome);
      await this.kill(process);
    }
  }

  /** Send waiting calls while there is room, starting a process first when needed. */
  private pump(): void {
    if (this.closed || this.held || this.queue.length === 0 || this.inFlight >= this.options.maxInFlight) return;
    const running = this.current;
    if (!running) {
      this.ensureRunning().then(
        () => this.pump(),
        (error: unknown) => this.fail(this.queue.splice(0), `the tool process could not restart: ${errorMessage(error)}`),
      );
      return;
    }
    while (this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const call = this.queue.shift()!;
      this.inFlight += 1;
      call.process = running;
      running.sent.set(call.id, { key: call.key, announced: false, call });
      call.timer = setTimeout(() => this.timedOut(call), call.timeoutMs);
      this.write(running, { t: "call", id: call.id, key: call.key, tool: call.tool, args: call.args });
    }
  }

  private write(running: Running, message: ToHost): void {
    if (!running.gone) running.requests.write(`${JSON.stringify(message)}\n`);
  }

  private settle(call: PendingCall, outcome: ProcessOutcome): void {
    if (call.process) {
      const sent = call.process.sent.get(call.id);
      if (sent?.call !== call) return; // already settled
      sent.call = undefined;
      this.inFlight -= 1;
      clearTimeout(call.timer);
      const process = call.process;
      if (process.retiring && ![...process.sent.values()].some((entry) => entry.call)) void this.kill(process);
    }
    call.settle(outcome);
    this.pump();
  }

  private fail(calls: PendingCall[], message: string): void {
    for (const call of calls) this.settle(call, { ok: false, code: "TOOL_FAILED", message });
  }

  private timedOut(call: PendingCall): void {
    const running = call.process!;
    const timeout: ProcessOutcome = { ok: false, code: "TOOL_TIMEOUT", message: `timed out after ${call.timeoutMs} ms` };
    if (!this.mayHaveBegun(running, call.id)) {
      // Perhaps never reached, behind a call that blocks the process: if so it runs on a
      // fresh process with its full limit; if the process is merely busy, it has waited its limit out.
      void this.health(running).then((health) => {
        if (health.blocked) return this.lost(running, `the tool process was restarted because a tool blocked it past its time limit`);
        this.settle(call, timeout);
        if (health.stuck > 0) this.retire(running);
      });
      return;
    }
    this.settle(call, timeout);
    this.cancelInHost(running, call);
  }

  /**
   * Tell the host to cancel an answered call (an asyncio task is cancelled; a thread or a
   * JavaScript call runs on), then ping it: a blocked process is replaced, one with a call
   * stuck in a thread is retired.
   */
  private cancelInHost(running: Running, call: PendingCall): void {
    this.write(running, { t: "cancel", id: call.id });
    void this.health(running).then((health) => {
      if (health.blocked) this.lost(running, `the tool process was restarted because tool '${call.tool}' blocked it past its time limit`);
      else if (health.stuck > 0) this.retire(running);
    });
  }

  /**
   * Whether the process may have started call `id`: it announced it, or it is the oldest call
   * with neither answer nor announcement (the host announces a call whenever another one is
   * running, so a later unannounced call was never read).
   */
  private mayHaveBegun(running: Running, id: number): boolean {
    const sent = running.sent.get(id);
    if (!sent || sent.announced) return true;
    for (const [other, entry] of running.sent) if (other < id && !entry.announced) return false;
    return true;
  }

  /** Ping the process; one check at a time. */
  private health(running: Running): NonNullable<Running["check"]> {
    running.check ??= new Promise<{ blocked: true } | { blocked: false; stuck: number }>((resolve) => {
      const id = this.nextId++;
      const key = randomUUID();
      const timer = setTimeout(() => {
        running.pings.delete(id);
        resolve({ blocked: true });
      }, LIVENESS_GRACE_MS);
      running.pings.set(id, {
        key,
        answer: (stuck) => {
          clearTimeout(timer);
          running.pings.delete(id);
          resolve({ blocked: false, stuck });
        },
      });
      this.write(running, { t: "ping", id, key });
    }).finally(() => {
      running.check = undefined;
    });
    return running.check;
  }

  /** New calls go to a fresh process; this one ends once its pending calls are answered. */
  private retire(running: Running): void {
    if (running.gone || running.retiring) return;
    running.retiring = true;
    if (this.current === running) this.current = undefined;
    this.retiring.add(running);
    if (![...running.sent.values()].some((sent) => sent.call)) void this.kill(running);
  }

  /**
   * The process is blocked or gone: kill it, fail the calls it may have begun, and send the
   * ones it never reached to a fresh process.
   */
  private lost(running: Running, reason: string): void {
    if (running.gone) return;
    void this.kill(running);
    if (this.current === running) this.current = undefined;
    const resend: PendingCall[] = [];
    for (const [id, sent] of [...running.sent.entries()].sort(([a], [b]) => a - b)) {
      const call = sent.call;
      if (!call) continue;
      if (this.mayHaveBegun(running, id)) {
        this.settle(call, { ok: false, code: "TOOL_FAILED", message: reason });
        continue;
      }
      // Never reached: it waits again, first in line, and gets a fresh clock when resent.
      sent.call = undefined;
      clearTimeout(call.timer);
      call.process = undefined;
      this.inFlight -= 1;
      resend.push(call);
    }
    running.sent.clear();
    this.queue.unshift(...resend);
    this.pump();
  }

  private async kill(running: Running): Promise<void> {
    if (running.gone) return;
    running.gone = true;
    this.retiring.delete(running);
    running.requests.destroy();
    running.child.ref(); // wait for its exit even when nothing else keeps hermit running
    const exited = new Promise<void>((resolve) => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) resolve();
      else running.child.once("exit", () => resolve());
    });
    killTree(running.child.pid, running.mark);
    untrackProcess(running.child.pid);
    await exited;
  }

  private ensureRunning(): Promise<Running> {
    if (this.current) return Promise.resolve(this.current);
    this.starting ??= this.spawn().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async spawn(): Promise<Running> {
    const { launch, root, tools, resources, loadTimeoutMs, output } = this.options;
    // A mark of its own, inherited by everything it starts: a daemon it leaves is found by it.
    const mark = randomUUID();
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { ...launch.env, [TREE_MARK]: mark },
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
      // Its own process group: killing the group reaches what its tools started.
      detached: true,
    });
    trackProcess(child.pid, mark);
    const running: Running = {
      child,
      mark,
      requests: child.stdio[3] as Writable,
      sent: new Map(),
      pings: new Map(),
      retiring: false,
      gone: false,
      forged: 0,
    };
    (running.requests as Writable).on("error", () => undefined); // a dead process; its exit is handled
    let tail = "";
    const onOutput = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-4096);
      output(chunk);
    };
    child.stdout!.on("data", onOutput);
    child.stderr!.on("data", onOutput);
    const answers = child.stdio[4] as Readable;
    const key = randomUUID();
    const ready = new Promise<void>((resolve, reject) => {
      const failure = (message: string, data: Record<string, unknown> = {}) =>
        new HermitError("ADAPTER_INVALID", `${root}: ${message}`, { path: root, ...data });
      const timer = setTimeout(() => reject(failure(`loading the tools timed out after ${loadTimeoutMs} ms`)), loadTimeoutMs);
      running.onStart = (message) => {
        clearTimeout(timer);
        if (message.t === "ready") {
          // What hermit chose (interpreter, where it came from, the sandbox) says more than the host's own name.
          this.runtime = launch.runtime;
          return resolve();
        }
        const problems = message.problems.map((problem) => describeLoadProblem(problem, tools));
        reject(failure(`cannot load tools:\n  ${problems.join("\n  ")}`, { problems, loadProblems: message.problems }));
      };
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(failure(`the tool process could not start (${launch.command}): ${error.message}`));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        const said = tail.trim().split("\n").slice(-3).join(" | ");
        reject(failure(`the tool process (${launch.runtime}) exited (${signal ?? `code ${code}`}) while loading the tools${said ? `: ${said}` : ""}`));
      });
    });
    const splitter = new LineSplitter(
      MAX_ANSWER_BYTES,
      (line) => this.onAnswer(running, line, key),
      () => this.forged(running, `an answer line longer than ${MAX_ANSWER_BYTES} bytes`),
    );
    answers.on("data", (chunk: Buffer) => splitter.push(chunk));
    answers.on("error", () => undefined);
    this.write(running, { t: "init", key, root, tools: tools.map(({ name, file, function: fn }) => ({ name, file, function: fn })), resources });
    try {
      await ready;
    } catch (error) {
      await this.kill(running);
      throw error;
    }
    running.onStart = undefined;
    child.on("exit", (code, signal) => {
      const drained = new Promise<void>((resolve) => {
        answers.once("end", resolve).once("close", resolve);
        setTimeout(resolve, DRAIN_GRACE_MS).unref();
      });
      void drained.then(() => {
        const how = signal ?? `code ${code}`;
        this.lost(running, `the tool process exited (${how}) while the call ran`);
        running.gone = true;
        untrackProcess(child.pid);
      });
    });
    if (this.closed) {
      await this.kill(running);
      throw new HermitError("USAGE", "the tool runtime was closed while starting");
    }
    this.current = running;
    // An idle process keeps nobody alive; a call in flight does, through its timer.
    child.unref();
    for (const stream of [child.stdout, child.stderr, answers, running.requests]) (stream as unknown as { unref?: () => void }).unref?.();
    return running;
  }

  private onAnswer(running: Running, line: string, startKey: string): void {
    let message: FromHost;
    try {
      message = JSON.parse(line) as FromHost;
    } catch {
      return this.forged(running, line);
    }
    if (message === null || typeof message !== "object") return this.forged(running, line);
    if (message.t === "ready" || message.t === "load-failed") {
      if (message.key === startKey && running.onStart) return running.onStart(message);
      return this.forged(running, line);
    }
    if (message.t === "pong") {
      const ping = running.pings.get(message.id);
      if (ping && ping.key === message.key) return ping.answer(Number(message.stuck) || 0);
      return this.forged(running, line);
    }
    const sent = running.sent.get((message as { id?: number }).id as number);
    if (!sent || sent.key !== (message as { key?: unknown }).key) return this.forged(running, line);
    if (message.t === "begun") {
      sent.announced = true;
      return;
    }
    if (message.t !== "result" && message.t !== "error") return this.forged(running, line);
    const call = sent.call;
    // A call that timed out already is answered too late: its answer is dropped.
    if (call) {
      if (message.t === "result") this.settle(call, { ok: true, value: message.value });
      else this.settle(call, { ok: false, code: message.kind === "result" ? "TOOL_RESULT_INVALID" : "TOOL_FAILED", message: String(message.message) });
    }
    running.sent.delete(message.id);
  }

  /** Something on the channel that answers nothing hermit asked: never trusted, always reported. */
  private forged(running: Running, line: string): void {
    running.forged += 1;
    if (running.forged > 10 && running.forged % 1000 !== 0) return;
    const sample = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.options.output(
      Buffer.from(`hermit: ignored a message on the tool channel that answers no pending call (${running.forged} so far): ${sample}\n`),
    );
  }
}

const closedOutcome: ProcessOutcome = { ok: false, code: "TOOL_FAILED", message: "the tool runtime was closed" };
const cancelledOutcome: ProcessOutcome = { ok: false, code: "TOOL_CANCELLED", message: "cancelled by the client" };

/** `tool 'x' (entrypoint f.py:x): f.py:3: SyntaxError: invalid syntax`. */
export function describeLoadProblem(problem: LoadProblem, tools: Array<{ name: string; entrypoint: string }>): string {
  const entrypoint = tools.find((tool) => tool.name === problem.tool)?.entrypoint;
  return `tool '${problem.tool}'${entrypoint ? ` (entrypoint ${entrypoint})` : ""}: ${problem.problem}`;
}
