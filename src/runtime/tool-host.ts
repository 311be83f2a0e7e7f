/**
 * The tool process for TypeScript and JavaScript tools: a child of the protocol side that
 * imports an adapter's tool modules and runs calls, speaking the private channel of
 * `tool-channel.ts` (requests on file descriptor 3, answers on file descriptor 4). It holds
 * no protocol file descriptor: its stdout and stderr are pipes the parent forwards to its
 * log, so nothing a tool prints or writes can reach an MCP client.
 *
 * Answers are written synchronously (`writeSync` on a blocking socket), each one whole and in
 * order, so that a `begun` notice is out before the call it announces can block the process.
 */
import { writeSync } from "node:fs";
import { stat } from "node:fs/promises";
import { Socket } from "node:net";
import { resolveInside } from "../adapter/files.js";
import { exportedFunction, importAdapterModule, missingExport } from "../adapter/module-loader.js";
import { errorMessage } from "../errors.js";
import { declaredResources, type ResourcesDeclaration } from "./declared-resources.js";
import { killTree, TREE_MARK } from "./process-tree.js";
import {
  ANSWER_FD,
  LineSplitter,
  MAX_RESULT_CHARS,
  REQUEST_FD,
  boundedMessage,
  type FromHost,
  type InitRequest,
  type LoadProblem,
  type ToHost,
} from "./tool-channel.js";
import { RESOURCES_PARAMETER, type ToolResources } from "./types.js";

type ToolFunction = (...args: unknown[]) => unknown;
interface LoadedTool {
  fn: ToolFunction;
  declares: ResourcesDeclaration;
}

// Taken before any adapter code runs, so a tool that replaces them changes nothing here.
const stringify = JSON.stringify;
const parse = JSON.parse;
const bufferFrom = Buffer.from;
const write = writeSync;

const loaded = new Map<string, LoadedTool>();
let resources: ToolResources = {};
let sessionKey = "";
/** Calls started and not yet answered. */
let running = 0;

// A stray error from a tool's timer or unawaited promise must not take the other calls down.
process.on("uncaughtException", (error) => {
  process.stderr.write(`hermit: uncaught error in a tool: ${(error as Error)?.stack ?? errorMessage(error)}\n`);
});
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`hermit: unhandled rejection in a tool: ${(reason as Error)?.stack ?? errorMessage(reason)}\n`);
});

const requests = new Socket({ fd: REQUEST_FD, readable: true, writable: false });
const splitter = new LineSplitter(
  Number.MAX_SAFE_INTEGER, // the protocol side is trusted; it bounds what it sends
  (line) => void onRequest(parse(line) as ToHost),
  () => undefined,
);
requests.on("data", (chunk: Buffer) => splitter.push(chunk));
// The protocol side is gone (closed, or killed): end this process and everything it started.
requests.on("end", () => killTree(process.pid, process.env[TREE_MARK]));
requests.on("error", () => killTree(process.pid, process.env[TREE_MARK]));

function send(text: string): void {
  const bytes = bufferFrom(`${text}\n`, "utf8");
  let offset = 0;
  while (offset < bytes.length) offset += write(ANSWER_FD, bytes, offset);
}

function sendMessage(message: FromHost): void {
  send(stringify(message));
}

async function onRequest(message: ToHost): Promise<void> {
  if (message.t === "call") return call(message);
  if (message.t === "ping") return sendMessage({ t: "pong", id: message.id, key: message.key, stuck: 0 });
  if (message.t === "init") return init(message);
  // "cancel": a JavaScript call cannot be stopped from outside; its result will be dropped.
}

async function init(message: InitRequest): Promise<void> {
  sessionKey = message.key;
  resources = deepFreeze(message.resources);
  const problems = await loadTools(message);
  if (problems.length > 0) sendMessage({ t: "load-failed", key: sessionKey, problems });
  else sendMessage({ t: "ready", key: sessionKey, runtime: `node ${process.version}` });
}

/** Import each entrypoint file once (tools in one file share its module state). */
async function loadTools(message: InitRequest): Promise<LoadProblem[]> {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const problems: LoadProblem[] = [];
  for (const tool of message.tools) {
    try {
      const file = resolveInside(message.root, tool.file);
      let module = modules.get(file);
      if (!module) {
        module = importFile(message.root, file, tool.file);
        modules.set(file, module);
      }
      const fn = exportedFunction(await module, tool.function);
      if (typeof fn !== "function") throw new Error(missingExport(tool.file, tool.function, fn));
      loaded.set(tool.name, { fn: fn as ToolFunction, declares: declaredResources(Function.prototype.toString.call(fn)) });
    } catch (error) {
      problems.push({ tool: tool.name, file: tool.file, problem: errorMessage(error) });
    }
  }
  return problems;
}

async function importFile(root: string, file: string, relative: string): Promise<Record<string, unknown>> {
  if (!(await stat(file).catch(() => undefined))?.isFile()) throw new Error(`file ${relative} not found`);
  try {
    return await importAdapterModule(root, file);
  } catch (error) {
    throw new Error(`could not import ${relative}: ${errorMessage(error)}`);
  }
}

function call(message: Extract<ToHost, { t: "call" }>): void {
  const { id, key } = message;
  const tool = loaded.get(message.tool);
  if (!tool) return sendMessage({ t: "error", id, key, kind: "failed", message: `no tool '${message.tool}' is loaded` });
  // Another call is running: say this one starts, in case it blocks the process (see tool-process.ts).
  if (running > 0) sendMessage({ t: "begun", id, key });
  running += 1;
  let value: unknown;
  try {
    if (tool.declares === "argument") value = tool.fn(message.args, resources);
    else if (tool.declares === "destructured") value = tool.fn({ ...message.args, [RESOURCES_PARAMETER]: resources });
    else value = tool.fn(message.args);
  } catch (error) {
    return failed(id, key, error);
  }
  if (value !== null && typeof (value as PromiseLike<unknown> | undefined)?.then === "function") {
    Promise.resolve(value).then(
      (resolved) => answer(id, key, resolved),
      (error: unknown) => failed(id, key, error),
    );
  } else {
    answer(id, key, value);
  }
}

function failed(id: number, key: string, error: unknown): void {
  running -= 1;
  sendMessage({ t: "error", id, key, kind: "failed", message: boundedMessage(errorMessage(error)) });
}

/**
 * The value as JSON, written into the answer as is (no second parse); `undefined` (a tool
 * that returns nothing) becomes null. A value whose JSON is longer than `MAX_RESULT_CHARS`
 * is refused: every answer carries it twice (text and value), and a client must be able to
 * read it.
 */
function answer(id: number, key: string, value: unknown): void {
  running -= 1;
  let text: string | undefined;
  try {
    text = value === undefined ? "null" : stringify(value);
  } catch (error) {
    return sendMessage({ t: "error", id, key, kind: "result", message: `returned a value that is not JSON: ${errorMessage(error)}` });
  }
  if (text === undefined) {
    return sendMessage({ t: "error", id, key, kind: "result", message: `returned a ${typeof value}, which is not JSON` });
  }
  if (text.length > MAX_RESULT_CHARS) {
    const message = `returned ${text.length} characters of JSON, over the limit of ${MAX_RESULT_CHARS}`;
    return sendMessage({ t: "error", id, key, kind: "result", message });
  }
  send(`{"t":"result","id":${id},"key":${stringify(key)},"value":${text}}`);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
