/**
 * Starting a tool process: spawn it in a process group of its own with its private channel
 * (`tool-channel.ts`), send `init`, and wait until it reports every tool loaded. A load that
 * fails, times out or ends in an exit throws ADAPTER_INVALID naming the adapter and, for each
 * tool that failed, its entrypoint and why; the process is stopped first.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { HermitError } from "../errors.js";
import { trackProcess, TREE_MARK, untrackProcess } from "./process-tree.js";
import { LineSplitter, MAX_ANSWER_BYTES, type LoadProblem } from "./tool-channel.js";
import { sendToHost, stopProcess, type RunningProcess, type ToolProcessOptions } from "./tool-process-running.js";

/** How long to wait for the channel to drain after the process exited. */
const DRAIN_GRACE_MS = 250;

/** What the owner of a process hears from it once it is spawned. */
export interface ProcessListener {
  /** A line on the answer channel; `startKey` authenticates `ready` and `load-failed`. */
  answer(running: RunningProcess, line: string, startKey: string): void;
  /** Something on the channel that cannot be an answer (a line too long). */
  forged(running: RunningProcess, line: string): void;
  /** The process exited after it was ready, and its channel drained. */
  exited(running: RunningProcess, how: string): void;
}

/** Spawn the process, load its tools and resolve once it is ready (see the module comment). */
export async function startToolProcess(options: ToolProcessOptions, listener: ProcessListener): Promise<RunningProcess> {
  const { running, recentOutput } = spawnToolProcess(options);
  const startKey = randomUUID();
  const ready = toolsLoaded(running, options, recentOutput);
  const splitter = new LineSplitter(
    MAX_ANSWER_BYTES,
    (line) => listener.answer(running, line, startKey),
    () => listener.forged(running, `an answer line longer than ${MAX_ANSWER_BYTES} bytes`),
  );
  running.answers.on("data", (chunk: Buffer) => splitter.push(chunk));
  running.answers.on("error", () => undefined);
  const { root, tools, resources } = options;
  sendToHost(running, { t: "init", key: startKey, root, tools: tools.map(({ name, file, function: fn }) => ({ name, file, function: fn })), resources });
  try {
    await ready;
  } catch (error) {
    await stopProcess(running);
    throw error;
  }
  running.onStart = undefined;
  running.child.on("exit", (code, signal) => {
    const drained = new Promise<void>((resolve) => {
      running.answers.once("end", resolve).once("close", resolve);
      setTimeout(resolve, DRAIN_GRACE_MS).unref();
    });
    void drained.then(() => {
      listener.exited(running, signal ?? `code ${code}`);
      running.gone = true;
      untrackProcess(running.child.pid);
    });
  });
  return running;
}

/** An idle process keeps nobody alive; a call in flight does, through its timer. */
export function letIdleProcessGo(running: RunningProcess): void {
  running.child.unref();
  const { stdout, stderr } = running.child;
  for (const stream of [stdout, stderr, running.answers, running.requests]) (stream as unknown as { unref?: () => void }).unref?.();
}

/** `tool 'x' (entrypoint f.py:x): f.py:3: SyntaxError: invalid syntax`. */
export function describeLoadProblem(problem: LoadProblem, tools: Array<{ name: string; entrypoint: string }>): string {
  const entrypoint = tools.find((tool) => tool.name === problem.tool)?.entrypoint;
  return `tool '${problem.tool}'${entrypoint ? ` (entrypoint ${entrypoint})` : ""}: ${problem.problem}`;
}

/** The child with its channel; its output goes to `options.output`, the last 4 KiB kept for errors. */
function spawnToolProcess({ launch, output }: ToolProcessOptions): { running: RunningProcess; recentOutput: () => string } {
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
  const running: RunningProcess = {
    child,
    mark,
    requests: child.stdio[3] as Writable,
    answers: child.stdio[4] as Readable,
    sent: new Map(),
    pings: new Map(),
    retiring: false,
    gone: false,
    forged: 0,
  };
  running.requests.on("error", () => undefined); // a dead process; its exit is handled
  let tail = "";
  const onOutput = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-4096);
    output(chunk);
  };
  child.stdout!.on("data", onOutput);
  child.stderr!.on("data", onOutput);
  return { running, recentOutput: () => tail };
}

/** Resolves on `ready`; rejects on `load-failed`, the load time limit, a failed spawn or an exit. */
function toolsLoaded(running: RunningProcess, { launch, root, tools, loadTimeoutMs }: ToolProcessOptions, recentOutput: () => string): Promise<void> {
  const { child } = running;
  return new Promise<void>((resolve, reject) => {
    const failure = (message: string, data: Record<string, unknown> = {}) =>
      new HermitError("ADAPTER_INVALID", `${root}: ${message}`, { path: root, ...data });
    const timer = setTimeout(() => reject(failure(`loading the tools timed out after ${loadTimeoutMs} ms`)), loadTimeoutMs);
    running.onStart = (message) => {
      clearTimeout(timer);
      if (message.t === "ready") return resolve();
      const problems = message.problems.map((problem) => describeLoadProblem(problem, tools));
      reject(failure(`cannot load tools:\n  ${problems.join("\n  ")}`, { problems, loadProblems: message.problems }));
    };
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(failure(`the tool process could not start (${launch.command}): ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const said = recentOutput().trim().split("\n").slice(-3).join(" | ");
      reject(failure(`the tool process (${launch.runtime}) exited (${signal ?? `code ${code}`}) while loading the tools${said ? `: ${said}` : ""}`));
    });
  });
}
