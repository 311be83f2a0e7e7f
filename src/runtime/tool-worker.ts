/**
 * The tool thread: a worker that imports an adapter's tool modules and runs calls. Keeping
 * adapter code off the main thread means a tool that blocks (a sync loop) cannot stop the
 * server from answering, and a tool's console output cannot corrupt the stdio protocol
 * (the parent reroutes this thread's stdout to stderr).
 */
import { stat } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { resolveInside } from "../adapter/files.js";
import { exportedFunction, importAdapterModule, missingExport } from "../adapter/module-loader.js";
import { errorMessage } from "../errors.js";
import { declaredResources, type ResourcesDeclaration } from "./declared-resources.js";
import { MAX_RESULT_CHARS, SHARED_LAST_STARTED, SHARED_RUNNING, type FromWorker, type ToWorker, type ToolThreadInit } from "./tool-protocol.js";
import { RESOURCES_PARAMETER } from "./types.js";

type ToolFunction = (...args: unknown[]) => unknown;

const port = parentPort!;
const init = workerData as ToolThreadInit;
const resources = deepFreeze(init.resources);
const loaded = new Map<string, { fn: ToolFunction; declares: ResourcesDeclaration }>();

// A stray error from a tool's timer or unawaited promise must not take the other calls down.
process.on("uncaughtException", (error) => {
  process.stderr.write(`hermit: uncaught error in a tool: ${(error as Error)?.stack ?? errorMessage(error)}\n`);
});
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`hermit: unhandled rejection in a tool: ${(reason as Error)?.stack ?? errorMessage(reason)}\n`);
});

const problems = await loadTools();
if (problems.length > 0) {
  port.postMessage({ type: "load-failed", problems } satisfies FromWorker);
} else {
  port.on("message", (message: ToWorker) => {
    if (message.type === "ping") port.postMessage({ type: "pong", id: message.id } satisfies FromWorker);
    else void call(message);
  });
  port.postMessage({ type: "ready" } satisfies FromWorker);
}

/** Import each entrypoint file once (tools in one file share its module state). */
async function loadTools(): Promise<string[]> {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const found: string[] = [];
  for (const tool of init.tools) {
    const spec = `${tool.file}:${tool.function}`;
    try {
      const file = resolveInside(init.root, tool.file);
      let module = modules.get(file);
      if (!module) {
        module = importFile(file, tool.file);
        modules.set(file, module);
      }
      const fn = exportedFunction(await module, tool.function);
      if (typeof fn !== "function") throw new Error(missingExport(tool.file, tool.function, fn));
      loaded.set(tool.name, {
        fn: fn as ToolFunction,
        declares: declaredResources(Function.prototype.toString.call(fn)),
      });
    } catch (error) {
      found.push(`tool '${tool.name}' (entrypoint ${spec}): ${errorMessage(error)}`);
    }
  }
  return found;
}

async function importFile(file: string, relative: string): Promise<Record<string, unknown>> {
  if (!(await stat(file).catch(() => undefined))?.isFile()) throw new Error(`file ${relative} not found`);
  try {
    return await importAdapterModule(init.root, file);
  } catch (error) {
    throw new Error(`could not import ${relative}: ${errorMessage(error)}`);
  }
}

async function call(message: Extract<ToWorker, { type: "call" }>): Promise<void> {
  const tool = loaded.get(message.tool)!;
  let value: unknown;
  try {
    Atomics.store(init.shared, SHARED_LAST_STARTED, message.id);
    Atomics.store(init.shared, SHARED_RUNNING, message.id);
    try {
      if (tool.declares === "argument") value = tool.fn(message.args, resources);
      else if (tool.declares === "destructured") value = tool.fn({ ...message.args, [RESOURCES_PARAMETER]: resources });
      else value = tool.fn(message.args);
    } finally {
      Atomics.store(init.shared, SHARED_RUNNING, 0);
    }
    value = await value;
  } catch (error) {
    port.postMessage({ type: "error", id: message.id, message: bounded(errorMessage(error)) } satisfies FromWorker);
    return;
  }
  let reply: FromWorker;
  try {
    reply = { type: "result", id: message.id, value: asJson(value) };
  } catch (error) {
    reply = { type: "error", id: message.id, message: errorMessage(error), invalidResult: true };
  }
  port.postMessage(reply);
}

/** A thrown message is text for a model and a log line: the first `MAX_MESSAGE_CHARS` of it. */
const MAX_MESSAGE_CHARS = 64 * 1024;
function bounded(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}… (${text.length} characters)` : text;
}

/**
 * The value as JSON would carry it; `undefined` (a tool that returns nothing) becomes null.
 * A value whose JSON is longer than `MAX_RESULT_CHARS` is refused: every answer carries it
 * twice (text and value), and a client must be able to read it.
 */
function asJson(value: unknown): unknown {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new Error(`returned a value that is not JSON: ${errorMessage(error)}`);
  }
  if (text === undefined) throw new Error(`returned a ${typeof value}, which is not JSON`);
  if (text.length > MAX_RESULT_CHARS) {
    throw new Error(`returned ${text.length} characters of JSON, over the limit of ${MAX_RESULT_CHARS}`);
  }
  return JSON.parse(text);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
