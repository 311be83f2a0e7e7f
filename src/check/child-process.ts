/**
 * Running the check child on one request: `dist/check/check-child.js` for TypeScript and
 * JavaScript entrypoints, `python/hermit_host.py check` for Python ones (the two speak the
 * same protocol; a request with both runs both children side by side). Each runs inside
 * bubblewrap when present (no network, its own PID namespace, the file system read-only),
 * bounded in time and in the size of its answer. Only lines that carry the request's nonce
 * count; a crash, time-out or malformed answer becomes a failure naming the step it happened
 * in, never a throw or hang (a Python entrypoint with no Python to run it throws
 * PYTHON_UNAVAILABLE). It resolves only once what the child started has ended (with bwrap:
 * the whole PID namespace; without: the child itself).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { isPythonFile, pythonHostScript, resolvePython } from "../adapter/python.js";
import type { Entrypoint } from "../adapter/types.js";
import { packageRoot } from "../package-root.js";
import { isolatedArgv, probeBwrap } from "../sandbox/bwrap.js";
import { identifyProcess, waitUntilEnded, type ProcessIdentity } from "../sandbox/processes.js";
import type { ChildRequest, ChildResponse } from "./check-child.js";
import type { Isolation } from "./types.js";

/** The child's answer (stdout) may not be longer; its stderr is kept only for its last lines. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;
/** How long the pipes may stay open once the child exited (something it started holds them). */
const CLOSE_GRACE_MS = 1000;
/** How long to wait for killed processes to end before answering anyway. */
const END_GRACE_MS = 5000;
/** The descriptor on which bwrap reports the host pid of the namespace's first process. */
const INFO_FD = 3;
const childScript = join(packageRoot, "dist", "check", "check-child.js");

export type ChildOutcome = { response: ChildResponse } | { failure: string; step?: string };

export interface ChildRun {
  /** One per child that ran (the node child's first). */
  outcomes: ChildOutcome[];
  isolation: Exclude<Isolation, "not-run">;
}

/** Run the check child(ren) on `request`; `isolate: false` runs them without bubblewrap. */
export async function runCheckChild(request: ChildRequest, options: { timeoutMs: number; isolate?: boolean }): Promise<ChildRun> {
  const { node, python } = splitByRuntime(request);
  const interpreter = python && (await resolvePython(python.tools.length > 0 || python.exporter ? python.adapter : python.root, pythonNeed(python)));
  const probe = options.isolate === false ? undefined : await probeBwrap();
  const bwrap = probe?.available ? probe.path : undefined;
  const run = (part: ChildRequest, command: string[]) => {
    const argv = bwrap ? isolatedArgv(bwrap, command, [], { infoFd: INFO_FD }) : command;
    return runChild(argv, part, options.timeoutMs, bwrap !== undefined);
  };
  const outcomes = await Promise.all([
    ...(node ? [run(node, [process.execPath, childScript])] : []),
    ...(python && interpreter ? [run(python, [interpreter.executable, "-B", pythonHostScript, "check"])] : []),
  ]);
  return { outcomes, isolation: bwrap ? "bwrap" : "none" };
}

/** The request's TypeScript/JavaScript part and its Python part (each undefined when empty). */
function splitByRuntime(request: ChildRequest): { node?: ChildRequest; python?: ChildRequest } {
  const part = (python: boolean): ChildRequest | undefined => {
    const mine = (entry: Entrypoint | undefined) => (entry && isPythonFile(entry.file) === python ? entry : undefined);
    const tools = request.tools.filter((tool) => mine(tool.entry));
    const exporter = mine(request.exporter);
    const check = mine(request.check);
    if (tools.length === 0 && !exporter && !check) return undefined;
    // Each child its own token: code in one cannot forge the other's answer.
    const nonce = python ? randomBytes(16).toString("hex") : request.nonce;
    return { nonce, adapter: request.adapter, root: request.root, tools, exporter, check };
  };
  return { node: part(false), python: part(true) };
}

/** What needs Python, for the PYTHON_UNAVAILABLE message: the first Python entrypoint of the request. */
function pythonNeed(request: ChildRequest): string {
  if (request.check) return `custom check ${request.check.file}:${request.check.function}`;
  if (request.exporter) return `agent exporter ${request.exporter.file}:${request.exporter.function}`;
  const tool = request.tools[0]!;
  return `tool '${tool.name}' (entrypoint ${tool.entry.file}:${tool.entry.function})`;
}

/** " while importing tool 'x'", from the child's last `step` line. */
export function describeStep(step: string | undefined): string {
  if (!step) return "";
  const [kind, ...rest] = step.split(" ");
  const what = rest.join(" ");
  const text = kind === "tool" ? `importing tool '${what}'` : kind === "exporter" ? `running agent exporter ${what}` : `running custom check ${what}`;
  return ` while ${text}`;
}

/** The error line ("Error: boom") says more than the source excerpt and stack around it. */
function lastWords(stderrTail: string): string {
  const all = stderrTail.trim().split("\n");
  const errorLine = all.findLast((line) => /^([\w.]*(Error|Exception)\b|Uncaught\b)/.test(line));
  const lines = errorLine
    ? [errorLine]
    : all.filter((line) => line.trim() !== "" && !/^\s+at /.test(line) && !/^Node\.js v\d/.test(line)).slice(-3);
  const text = lines.map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line)).join(" | ");
  return text ? `: ${text}` : "";
}

/** Run one check child on `request`: its outcome, once it and what it started have ended (or the grace ran out). */
function runChild(argv: string[], request: ChildRequest, timeoutMs: number, sandboxed: boolean): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawnChild(argv, sandboxed);
    const said = new ChildAnswer(request.nonce);
    let stderrTail = "";
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const namespace = sandboxed ? namespaceInit(child.stdio[INFO_FD] as NodeJS.ReadableStream) : undefined;
    const finish = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stopChild(child, sandboxed);
      void ended(exited, namespace).then(() => resolve(outcome));
    };
    const timer = setTimeout(
      () => finish({ failure: `check timed out after ${timeoutMs} ms${describeStep(said.step)}`, step: said.step }),
      timeoutMs,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      const oversized = said.read(chunk);
      if (oversized) finish(oversized);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    child.on("error", (error) => finish({ failure: `check could not start: ${error.message}` }));
    child.on("exit", (code, signal) => {
      // Judged when the pipes close (all the child wrote is read), or after a grace if something it started holds them.
      const settle = () => finish(outcomeOfExit(said, code, signal, stderrTail));
      graceTimer = setTimeout(settle, CLOSE_GRACE_MS);
      child.once("close", settle);
    });
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(JSON.stringify(request));
  });
}

/** Start `argv` with a pipe for each of stdin, stdout, stderr (and, sandboxed, bwrap's info descriptor). */
function spawnChild(argv: string[], sandboxed: boolean): ChildProcess {
  // bwrap gets its own process group, so a bwrap still setting up can be stopped with it.
  const stdio = sandboxed ? (["pipe", "pipe", "pipe", "pipe"] as const) : (["pipe", "pipe", "pipe"] as const);
  return spawn(argv[0]!, argv.slice(1), { stdio: [...stdio], detached: sandboxed });
}

/** Kill the child (sandboxed: its whole process group) and stop reading its pipes. */
function stopChild(child: ChildProcess, sandboxed: boolean): void {
  try {
    if (sandboxed && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    // already gone
  }
  // Something the child started may still hold the pipes: never wait on them.
  for (const stream of child.stdio) stream?.destroy();
}

/**
 * What the child said on stdout: only lines that start with the request's nonce count (any
 * other line is never trusted). `step` is the last step it began, `answer` its final answer,
 * `customLine` the custom check's verdict on its own line (the Python host sends it before
 * importing candidate code): the first one counts.
 */
class ChildAnswer {
  step: string | undefined;
  answer: string | undefined;
  customLine: string | undefined;
  private readonly prefix: string;
  private bytes = 0;
  private pendingLine = "";

  constructor(nonce: string) {
    this.prefix = `${nonce} `;
  }

  /** Take one chunk of stdout; a failure once the output is over the limit. */
  read(chunk: Buffer): ChildOutcome | undefined {
    this.bytes += chunk.length;
    if (this.bytes > MAX_OUTPUT_BYTES) {
      // An oversized final answer is most likely the custom check's issues, not the last step's.
      const answering = (this.pendingLine + chunk.toString("utf8", 0, 64)).startsWith(`${this.prefix}done `);
      const at = answering ? undefined : this.step;
      return { failure: `check answered with more than ${MAX_OUTPUT_BYTES} bytes${describeStep(at)}`, step: at };
    }
    const lines = (this.pendingLine + chunk.toString("utf8")).split("\n");
    this.pendingLine = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith(this.prefix)) continue; // not ours: never trusted
      const rest = line.slice(this.prefix.length);
      if (rest.startsWith("step ")) this.step = rest.slice(5);
      else if (rest.startsWith("done ")) this.answer = rest.slice(5);
      else if (rest.startsWith("custom ")) this.customLine ??= rest.slice(7);
    }
    return undefined;
  }
}

/** The outcome of a child that exited with `code`/`signal` having said `said`: its parsed answer, or why there is none. */
function outcomeOfExit(said: ChildAnswer, code: number | null, signal: NodeJS.Signals | null, stderrTail: string): ChildOutcome {
  const step = said.step;
  if (said.answer !== undefined) {
    try {
      const response = JSON.parse(said.answer) as ChildResponse;
      if (said.customLine !== undefined) response.custom = JSON.parse(said.customLine) as ChildResponse["custom"];
      return { response };
    } catch {
      return { failure: `check answered with malformed JSON${describeStep(step)}`, step };
    }
  }
  // Node exits with 13 when the top-level await (the check's promise) can never settle.
  const how = signal ?? (code === 13 ? "exit 13: its promise never settled" : `exit ${code}`);
  return { failure: `check crashed (${how})${describeStep(step)}${lastWords(stderrTail)}`, step };
}

/**
 * The namespace's first process, from bwrap's `--info-fd` report. bwrap's own monitor exits
 * as soon as the checked command does, while that first process is still killing the rest
 * of the namespace; only its end says that nothing the check started is left.
 */
function namespaceInit(info: NodeJS.ReadableStream): Promise<ProcessIdentity | undefined> {
  return new Promise((resolve) => {
    let text = "";
    let found = false;
    const none = () => found || resolve(undefined);
    info.on("error", none);
    info.on("close", none);
    info.on("data", (chunk: Buffer) => {
      if (found) return;
      text += chunk.toString("utf8");
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
      if (!pid) return;
      found = true;
      // Identified at once, while it surely runs: later its pid could name another process.
      void identifyProcess(Number(pid)).then(resolve);
    });
  });
}

/** Wait (bounded) for the child and, under bwrap, its whole PID namespace to end. */
async function ended(exited: Promise<void>, namespace: Promise<ProcessIdentity | undefined> | undefined): Promise<void> {
  const bound = new Promise<void>((done) => setTimeout(done, END_GRACE_MS).unref());
  await Promise.race([exited, bound]);
  const init = namespace && (await Promise.race([namespace, bound.then(() => undefined)]));
  // bwrap's monitor has ended, so the first process got its parent-death SIGKILL (--die-with-parent).
  if (init) await waitUntilEnded(init, END_GRACE_MS);
}
