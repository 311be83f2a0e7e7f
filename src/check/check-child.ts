/**
 * Runs in a child process (inside bubblewrap when available): runs the template's custom
 * check, calls the candidate's agent exporter and imports every tool entrypoint. Reads one
 * JSON request on stdin and answers on stdout with lines that start with the request's
 * nonce: `<nonce> step <what>` before each step (so a crash or time-out names the step)
 * and `<nonce> done <json>` at the end. Adapter and template code cannot print on stdout
 * (`process.stdout.write` and `console` go to stderr) and, not knowing the nonce, cannot
 * forge an answer. The custom check runs first, before any candidate module is imported.
 */
import { exportedFunction, importAdapterModule, loadExport, missingExport } from "../adapter/module-loader.js";
import { resolveInside } from "../adapter/files.js";
import type { Entrypoint } from "../adapter/types.js";
import type { Issue } from "./types.js";

export interface ChildRequest {
  /** Prefix of every protocol line. */
  nonce: string;
  adapter: string;
  root: string;
  tools: Array<{ name: string; entry: Entrypoint }>;
  /** The candidate's `exports.agents.exporter`, when it has one. */
  exporter?: Entrypoint;
  check?: Entrypoint;
}

export interface ChildResponse {
  tools: Array<{ name: string; problem?: string }>;
  /** What the exporter returned (as JSON), or why it failed. */
  agents?: { values: unknown } | { error: string };
  custom?: { issues: Issue[] } | { error: string };
}

// Taken before any adapter or template code runs, so that code cannot redirect the answer.
const stringify = JSON.stringify;
const originalExit = process.exit.bind(process);
const writeStdout = process.stdout.write.bind(process.stdout);
const writeLine = (line: string, done?: () => void) => void writeStdout(`${line}\n`, done);

/** Thrown by `process.exit` while adapter or template code runs: an exit is reported, not obeyed. */
class ExitCalled extends Error {}

const SIGNATURE_HINT =
  "reads '.adapter' of its first argument, which is the candidate's absolute path as a string: " +
  "a checker is called as check(adapterPath, { root }) (write `export function check(adapterPath: string, { root }: { root: string })`)";

/**
 * Notice a checker written for `check({ adapter, root })`. Its first argument is a plain
 * string, and a string has no `adapter`: reading it (`input.adapter`, or destructuring
 * `{ adapter }`) would give `undefined` and fail later with an unrelated message ("The
 * "path" argument must be of type string"). While the custom check runs, reading `adapter`
 * of any string throws a clear error instead; no checker that treats its argument as the
 * path string reads such a property, so nothing else is affected. This process exists only
 * to run the check, so changing `String.prototype` here touches no one else.
 */
function watchForOldSignature(): { stop(): boolean } {
  let used = false;
  Object.defineProperty(String.prototype, "adapter", {
    configurable: true,
    get() {
      used = true;
      throw new TypeError(SIGNATURE_HINT);
    },
  });
  return {
    stop() {
      delete (String.prototype as { adapter?: unknown }).adapter;
      return used;
    },
  };
}

function normalizeCheckResult(value: unknown, spec: string): { issues: Issue[] } | { error: string } {
  const list = Array.isArray(value) ? value : (value as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(list)) {
    return { error: `custom check ${spec} returned ${describe(value)}, not a list of issues` };
  }
  const issues: Issue[] = [];
  for (const item of list) {
    const issue = item as Partial<Issue> | null;
    if (!issue || typeof issue.problem !== "string" || (issue.path !== undefined && typeof issue.path !== "string")) {
      return { error: `custom check ${spec} returned a malformed issue: ${describe(item)}` };
    }
    issues.push({ path: issue.path ?? ".", check: "custom", problem: issue.problem });
  }
  return { issues };
}

function describe(value: unknown): string {
  try {
    return (stringify(value) ?? typeof value).slice(0, 200);
  } catch {
    return typeof value;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : describe(error);
}

async function handle(request: ChildRequest, step: (what: string) => void): Promise<ChildResponse> {
  const response: ChildResponse = { tools: [] };
  if (request.check) {
    const spec = `${request.check.file}:${request.check.function}`;
    step(`custom ${spec}`);
    const misuse = watchForOldSignature();
    try {
      const check = await loadExport(request.root, request.check);
      response.custom = normalizeCheckResult(await check(request.adapter, { root: request.root }), spec);
    } catch (error) {
      response.custom = { error: `custom check ${spec} failed: ${message(error)}` };
    } finally {
      // Even a checker that caught the signature error did not check what it meant to.
      if (misuse.stop()) response.custom = { error: `custom check ${spec} ${SIGNATURE_HINT}` };
    }
  }
  if (request.exporter) {
    const spec = `${request.exporter.file}:${request.exporter.function}`;
    step(`exporter ${spec}`);
    try {
      const values: unknown = await (await loadExport(request.adapter, request.exporter))();
      response.agents = { values: JSON.parse(stringify(values) ?? "null") as unknown };
    } catch (error) {
      // loadExport's messages already start with the entrypoint.
      response.agents = { error: `agent exporter ${spec} failed: ${message(error).replace(`${spec}: `, "")}` };
    }
  }
  // Each file once, as the tool runtime imports them.
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  for (const tool of request.tools) {
    step(`tool ${tool.name}`);
    try {
      const file = resolveInside(request.adapter, tool.entry.file);
      if (!modules.has(file)) modules.set(file, loadModule(request.adapter, file, tool.entry));
      const fn = exportedFunction(await modules.get(file)!, tool.entry.function);
      if (typeof fn !== "function") throw new Error(missingExport(tool.entry.file, tool.entry.function, fn));
      response.tools.push({ name: tool.name });
    } catch (error) {
      response.tools.push({ name: tool.name, problem: `${tool.entry.file}:${tool.entry.function}: ${message(error)}` });
    }
  }
  return response;
}

async function loadModule(root: string, file: string, entry: Entrypoint): Promise<Record<string, unknown>> {
  try {
    return await importAdapterModule(root, file);
  } catch (error) {
    throw new Error(`could not import ${entry.file}: ${message(error)}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const request = JSON.parse(await readStdin()) as ChildRequest;
const nonce = request.nonce;
// Adapter and template code must not write on our protocol channel, nor end the process.
const toStderr = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
process.stdout.write = toStderr;
console.log = console.info = console.debug = console.warn = console.error;
process.exit = ((code?: number | string | null) => {
  throw new ExitCalled(`it called process.exit(${code ?? ""})`);
}) as typeof process.exit;

const response = await handle(request, (what) => writeLine(`${nonce} step ${what}`));
let answer: string;
try {
  answer = stringify(response);
} catch (error) {
  answer = stringify({ tools: [], custom: { error: `the check's answer is not JSON: ${message(error)}` } });
}
writeLine(`${nonce} done ${answer}`, () => originalExit(0));
