/**
 * Reading what a tool process writes on its answer channel: each line is trusted only when it
 * names something hermit asked (the start, a ping, a pending call) together with that
 * request's random key. Everything else is forged (or garbled) and is reported, never acted on.
 */
import type { FromHost } from "./tool-channel.js";
import type { PendingCall, ProcessOutcome, RunningProcess } from "./tool-process-running.js";

/** Where an authenticated answer to a call goes, and where a forged line is reported. */
export interface AnswerSink {
  settle(call: PendingCall, outcome: ProcessOutcome): void;
  forged(running: RunningProcess, line: string): void;
}

/** Act on one answer line of `running` (see the module comment). */
export function routeAnswer(running: RunningProcess, line: string, startKey: string, sink: AnswerSink): void {
  let message: FromHost;
  try {
    message = JSON.parse(line) as FromHost;
  } catch {
    return sink.forged(running, line);
  }
  if (message === null || typeof message !== "object") return sink.forged(running, line);
  if (message.t === "ready" || message.t === "load-failed") {
    if (message.key === startKey && running.onStart) return running.onStart(message);
    return sink.forged(running, line);
  }
  if (message.t === "pong") {
    const ping = running.pings.get(message.id);
    if (ping && ping.key === message.key) return ping.answer(Number(message.stuck) || 0);
    return sink.forged(running, line);
  }
  const sent = running.sent.get((message as { id?: number }).id as number);
  if (!sent || sent.key !== (message as { key?: unknown }).key) return sink.forged(running, line);
  if (message.t === "begun") {
    sent.announced = true;
    return;
  }
  if (message.t !== "result" && message.t !== "error") return sink.forged(running, line);
  const call = sent.call;
  // A call that timed out already is answered too late: its answer is dropped.
  if (call) {
    if (message.t === "result") sink.settle(call, { ok: true, value: message.value });
    else sink.settle(call, { ok: false, code: message.kind === "result" ? "TOOL_RESULT_INVALID" : "TOOL_FAILED", message: String(message.message) });
  }
  running.sent.delete(message.id);
}

/** The log line for a forged message: the first ten, then one per thousand. */
export function reportForged(running: RunningProcess, line: string, output: (chunk: Buffer) => void): void {
  running.forged += 1;
  if (running.forged > 10 && running.forged % 1000 !== 0) return;
  const sample = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  output(Buffer.from(`hermit: ignored a message on the tool channel that answers no pending call (${running.forged} so far): ${sample}\n`));
}
