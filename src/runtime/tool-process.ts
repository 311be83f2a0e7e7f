/**
 * The protocol side of a tool process (`tool-host.ts`, `hermit_host.py`): start it
 * (`tool-process-start.ts`), send calls over the private channel (`tool-channel.ts`), read
 * the answers (`tool-process-answers.ts`), and keep it healthy (`tool-process-running.ts`).
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
import { randomUUID } from "node:crypto";
import { HermitError, errorMessage } from "../errors.js";
import { reportForged, routeAnswer, type AnswerSink } from "./tool-process-answers.js";
import {
  checkHealth,
  hasCallsInFlight,
  mayHaveBegun,
  sendToHost,
  stopProcess,
  type Health,
  type PendingCall,
  type ProcessOutcome,
  type RunningProcess,
  type ToolProcessOptions,
} from "./tool-process-running.js";
import { letIdleProcessGo, startToolProcess, type ProcessListener } from "./tool-process-start.js";
import type { CallSignal } from "./types.js";

export class ToolProcess {
  private current: RunningProcess | undefined;
  private starting: Promise<RunningProcess> | undefined;
  private readonly retiring = new Set<RunningProcess>();
  private readonly queue: PendingCall[] = [];
  private inFlight = 0;
  private nextId = 1;
  private closed = false;
  private held = false;
  /** The runtime the process reported at start (`node v20…`, `python 3.11.7`). */
  runtime = "";
  private readonly answers: AnswerSink = {
    settle: (call, outcome) => this.settle(call, outcome),
    forged: (running, line) => reportForged(running, line, this.options.output),
  };
  private readonly listener: ProcessListener = {
    answer: (running, line, startKey) => routeAnswer(running, line, startKey, this.answers),
    forged: this.answers.forged,
    exited: (running, how) => this.lost(running, `the tool process exited (${how}) while the call ran`),
  };

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
  run(tool: string, args: Record<string, unknown>, timeoutMs: number, signal?: CallSignal): Promise<ProcessOutcome> {
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
      sendToHost(running, { t: "call", id: call.id, key: call.key, tool: call.tool, args: call.args });
    }
  }

  private settle(call: PendingCall, outcome: ProcessOutcome): void {
    if (call.process) {
      const sent = call.process.sent.get(call.id);
      if (sent?.call !== call) return; // already settled
      sent.call = undefined;
      this.inFlight -= 1;
      clearTimeout(call.timer);
      const process = call.process;
      if (process.retiring && !hasCallsInFlight(process)) void this.kill(process);
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
    if (!mayHaveBegun(running, call.id)) {
      // Perhaps never reached, behind a call that blocks the process: if so it runs on a
      // fresh process with its full limit; if the process is merely busy, it has waited its limit out.
      void this.health(running).then((health: Health) => {
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
  private cancelInHost(running: RunningProcess, call: PendingCall): void {
    sendToHost(running, { t: "cancel", id: call.id });
    void this.health(running).then((health: Health) => {
      if (health.blocked) this.lost(running, `the tool process was restarted because tool '${call.tool}' blocked it past its time limit`);
      else if (health.stuck > 0) this.retire(running);
    });
  }

  /** New calls go to a fresh process; this one ends once its pending calls are answered. */
  private retire(running: RunningProcess): void {
    if (running.gone || running.retiring) return;
    running.retiring = true;
    if (this.current === running) this.current = undefined;
    this.retiring.add(running);
    if (!hasCallsInFlight(running)) void this.kill(running);
  }

  /**
   * The process is blocked or gone: kill it, fail the calls it may have begun, and send the
   * ones it never reached to a fresh process.
   */
  private lost(running: RunningProcess, reason: string): void {
    if (running.gone) return;
    void this.kill(running);
    if (this.current === running) this.current = undefined;
    const resend: PendingCall[] = [];
    for (const [id, sent] of [...running.sent.entries()].sort(([a], [b]) => a - b)) {
      const call = sent.call;
      if (!call) continue;
      if (mayHaveBegun(running, id)) {
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

  private async kill(running: RunningProcess): Promise<void> {
    this.retiring.delete(running);
    await stopProcess(running);
  }

  /** Ping the process; one check at a time. */
  private health(running: RunningProcess): Promise<Health> {
    return running.check ?? checkHealth(running, this.nextId++);
  }

  private ensureRunning(): Promise<RunningProcess> {
    if (this.current) return Promise.resolve(this.current);
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<RunningProcess> {
    const running = await startToolProcess(this.options, this.listener);
    // What hermit chose (interpreter, where it came from, the sandbox) says more than the host's own name.
    this.runtime = this.options.launch.runtime;
    if (this.closed) {
      await this.kill(running);
      throw new HermitError("USAGE", "the tool runtime was closed while starting");
    }
    this.current = running;
    letIdleProcessGo(running);
    return running;
  }
}

const closedOutcome: ProcessOutcome = { ok: false, code: "TOOL_FAILED", message: "the tool runtime was closed" };
const cancelledOutcome: ProcessOutcome = { ok: false, code: "TOOL_CANCELLED", message: "cancelled by the client" };

