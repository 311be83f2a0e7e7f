/**
 * The child-process half of the check: the custom checker, the agent exporter and the tool
 * imports run outside hermit's process, bounded in time, without network when bubblewrap
 * is present. A crash, timeout or malformed answer becomes an issue, never a hermit crash
 * or hang; processes the checker started do not outlive the check (bwrap's PID namespace;
 * without bwrap, only the child itself is stopped).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { parseEntrypoint } from "../adapter/manifest.js";
import { agentsFromExporter } from "../adapter/read.js";
import type { Adapter, Manifest } from "../adapter/types.js";
import { packageRoot } from "../package-root.js";
import type { ChildRequest, ChildResponse } from "./check-child.js";
import { isolatedArgv, probeBwrap } from "../sandbox/bwrap.js";
import type { Isolation, Issue } from "./types.js";

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
/** The child's answer (stdout) may not be longer; its stderr is kept only for its last lines. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;
/** How long the pipes may stay open once the child exited (something it started holds them). */
const CLOSE_GRACE_MS = 1000;
const childScript = join(packageRoot, "dist", "check", "check-child.js");

export interface LoadCheckResult {
  issues: Issue[];
  isolation: Isolation;
}

export async function runLoadCheck(
  adapter: Adapter,
  root: { path: string; manifest: Manifest },
  options: { timeoutMs?: number; isolate?: boolean },
  present: { has(path: string): boolean },
): Promise<LoadCheckResult> {
  const agents = adapter.manifest.exports?.agents;
  const exporter = typeof agents === "object" ? parseEntrypoint(agents.exporter) : undefined;
  const request: ChildRequest = {
    nonce: randomBytes(16).toString("hex"),
    adapter: adapter.root,
    root: root.path,
    // A missing entrypoint file was already reported by the reader.
    tools: adapter.tools.filter((tool) => present.has(tool.entry.file)).map((tool) => ({ name: tool.name, entry: tool.entry })),
    exporter: exporter && present.has(exporter.file) ? exporter : undefined,
    check: root.manifest.check ? parseEntrypoint(root.manifest.check) : undefined,
  };
  const issues: Issue[] = [];
  if (exporter && !request.exporter) {
    const spec = `${exporter.file}:${exporter.function}`;
    issues.push({ path: exporter.file, check: "load", problem: `agent exporter ${spec}: file ${exporter.file} not found` });
  }
  if (request.tools.length === 0 && !request.check && !request.exporter) return { issues, isolation: "not-run" };
  const probe = options.isolate === false ? undefined : await probeBwrap();
  const bwrap = probe?.available ? probe.path : undefined;
  const command = [process.execPath, childScript];
  const argv = bwrap ? isolatedArgv(bwrap, command) : command;
  const outcome = await runChild(argv, request, options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS);
  const isolation: Isolation = bwrap ? "bwrap" : "none";
  if ("failure" in outcome) {
    issues.push({ ...blame(outcome.step, request, adapter), problem: outcome.failure });
    return { isolation, issues };
  }
  const { response } = outcome;
  const custom = response.custom;
  if (custom && "error" in custom) issues.push({ path: request.check!.file, check: "custom", problem: custom.error });
  else if (custom) issues.push(...custom.issues);
  if (request.exporter && response.agents) {
    const spec = `${request.exporter.file}:${request.exporter.function}`;
    const report = (path: string, check: string, problem: string) => issues.push({ path, check, problem });
    if ("error" in response.agents) report(request.exporter.file, "load", response.agents.error);
    else agentsFromExporter(response.agents.values, spec, request.exporter.file, report);
  }
  for (const tool of response.tools) {
    const declared = adapter.tools.find((t) => t.name === tool.name);
    if (tool.problem) {
      issues.push({ path: declared?.entry.file ?? "adapter.yaml", check: "load", problem: `tool '${tool.name}': ${tool.problem}` });
    }
  }
  return { issues, isolation };
}

/** Which file and rule a crash or time-out during `step` is about. */
function blame(step: string | undefined, request: ChildRequest, adapter: Adapter): { path: string; check: string } {
  const [kind, ...rest] = (step ?? "").split(" ");
  const name = rest.join(" ");
  if (kind === "tool") {
    return { path: adapter.tools.find((tool) => tool.name === name)?.entry.file ?? "adapter.yaml", check: "load" };
  }
  if (kind === "exporter" && request.exporter) return { path: request.exporter.file, check: "load" };
  if (request.check) return { path: request.check.file, check: "custom" };
  return { path: "adapter.yaml", check: "load" };
}

type ChildOutcome = { response: ChildResponse } | { failure: string; step?: string };

function describeStep(step: string | undefined): string {
  if (!step) return "";
  const [kind, ...rest] = step.split(" ");
  const what = rest.join(" ");
  const text = kind === "tool" ? `importing tool '${what}'` : kind === "exporter" ? `running agent exporter ${what}` : `running custom check ${what}`;
  return ` while ${text}`;
}

function runChild(argv: string[], request: ChildRequest, timeoutMs: number): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    // bwrap gets its own process group, so a bwrap still setting up can be stopped with it.
    const sandboxed = argv[0] !== process.execPath;
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], detached: sandboxed });
    const prefix = `${request.nonce} `;
    let stdoutBytes = 0;
    let pendingLine = "";
    let step: string | undefined;
    let answer: string | undefined;
    let stderrTail = "";
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const stop = () => {
      try {
        if (sandboxed && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // already gone
      }
      // Something the child started may still hold the pipes: never wait on them.
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
    };
    const finish = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stop();
      resolve(outcome);
    };
    const lastWords = () => {
      // The error line ("Error: boom") says more than the source excerpt and stack around it.
      const all = stderrTail.trim().split("\n");
      const errorLine = all.findLast((line) => /^([\w.]*(Error|Exception)\b|Uncaught\b)/.test(line));
      const lines = errorLine
        ? [errorLine]
        : all.filter((line) => line.trim() !== "" && !/^\s+at /.test(line) && !/^Node\.js v\d/.test(line)).slice(-3);
      const text = lines.map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line)).join(" | ");
      return text ? `: ${text}` : "";
    };
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (answer !== undefined) {
        try {
          return finish({ response: JSON.parse(answer) as ChildResponse });
        } catch {
          return finish({ failure: `check answered with malformed JSON${describeStep(step)}`, step });
        }
      }
      // Node exits with 13 when the top-level await (the check's promise) can never settle.
      const how = signal ?? (code === 13 ? "exit 13: its promise never settled" : `exit ${code}`);
      finish({ failure: `check crashed (${how})${describeStep(step)}${lastWords()}`, step });
    };

    const timer = setTimeout(
      () => finish({ failure: `check timed out after ${timeoutMs} ms${describeStep(step)}`, step }),
      timeoutMs,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_OUTPUT_BYTES) {
        // An oversized final answer is most likely the custom check's issues, not the last step's.
        const answering = (pendingLine + chunk.toString("utf8", 0, 64)).startsWith(`${prefix}done `);
        const at = answering ? undefined : step;
        finish({ failure: `check answered with more than ${MAX_OUTPUT_BYTES} bytes${describeStep(at)}`, step: at });
        return;
      }
      const lines = (pendingLine + chunk.toString("utf8")).split("\n");
      pendingLine = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith(prefix)) continue; // not ours: never trusted
        const rest = line.slice(prefix.length);
        if (rest.startsWith("step ")) step = rest.slice(5);
        else if (rest.startsWith("done ")) answer = rest.slice(5);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    child.on("error", (error) => finish({ failure: `check could not start: ${error.message}` }));
    child.on("exit", (code, signal) => {
      graceTimer = setTimeout(() => settle(code, signal), CLOSE_GRACE_MS);
      child.once("close", () => settle(code, signal));
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(request));
  });
}
