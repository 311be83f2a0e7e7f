/**
 * The tool runtime: the declared tools of one adapter, with arguments and results checked
 * against their schemas and every call bounded in time. The tools themselves run in tool
 * processes (`tool-process.ts`): one for TypeScript/JavaScript entrypoints, one for Python
 * ones, each holding only a private channel to this side. Servers and `Session` both run
 * tools through it; it never throws for a failed call, it returns the outcome.
 */
import { describeValidationErrors, validatorFor } from "../adapter/json-schema.js";
import { isPythonFile, resolvePython } from "../adapter/python.js";
import type { Adapter, ToolDefinition } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import type { SandboxGrants } from "../sandbox/tool-layout.js";
import { publishTool, renderValue } from "./published.js";
import { TOOL_MEMORY_BYTES, prepareLaunch, type PreparedLaunch } from "./tool-launch.js";
import { ToolProcess } from "./tool-process.js";
import { RESOURCES_PARAMETER, type CallSignal, type PublishedTool, type ToolBackend, type ToolOutcome, type ToolResources } from "./types.js";

/** Default per-call time limit (ms). */
export const TOOL_TIMEOUT_MS = 30_000;
/** Default number of calls a tool process runs at once; the rest wait in order. */
export const MAX_CALLS_IN_FLIGHT = 32;

export interface ToolboxOptions {
  /** Bound resources (see `bindResources`), given to tools that declare `_resources`. */
  resources?: ToolResources;
  /** Per-call time limit in ms; also bounds importing the tool modules. Default 30000. */
  timeoutMs?: number;
  /** Run the tool processes inside bubblewrap with these grants (the evidence directory is writable). */
  sandbox?: SandboxGrants;
  /** Calls a tool process runs at once (default 32); more wait. */
  maxInFlight?: number;
  /** Memory limit of each tool process in bytes (default 2 GiB). */
  memoryBytes?: number;
  /** Where the tools' stdout and stderr go (default: hermit's stderr). Never a protocol stream. */
  output?: (chunk: Buffer) => void;
}

interface Runtime {
  process: ToolProcess;
  prepared: PreparedLaunch;
}

export class Toolbox implements ToolBackend {
  /** The tools as published to clients, in manifest order. */
  readonly tools: PublishedTool[];
  private readonly byName: Map<string, { published: PublishedTool; outputSchema?: object; runtime: Runtime }>;

  private constructor(
    adapter: Adapter,
    private readonly runtimes: { node?: Runtime; python?: Runtime },
    private readonly timeoutMs: number,
  ) {
    this.tools = adapter.tools.map(publishTool);
    this.byName = new Map(
      adapter.tools.map((tool, index) => [
        tool.name,
        {
          published: this.tools[index]!,
          outputSchema: tool.output_schema,
          runtime: (isPythonFile(tool.entry.file) ? runtimes.python : runtimes.node)!,
        },
      ]),
    );
  }

  /** Start the tool processes and import every tool; a missing file or function throws ADAPTER_INVALID. */
  static async open(adapter: Adapter, options: ToolboxOptions = {}): Promise<Toolbox> {
    const timeoutMs = options.timeoutMs ?? TOOL_TIMEOUT_MS;
    const python = adapter.tools.filter((tool) => isPythonFile(tool.entry.file));
    const node = adapter.tools.filter((tool) => !isPythonFile(tool.entry.file));
    const [nodeRuntime, pythonRuntime] = await Promise.allSettled([
      node.length > 0 ? startRuntime(adapter, node, false, options, timeoutMs) : undefined,
      python.length > 0 ? startRuntime(adapter, python, true, options, timeoutMs) : undefined,
    ]);
    const started = [nodeRuntime, pythonRuntime].flatMap((result) => (result.status === "fulfilled" && result.value ? [result.value] : []));
    const failures = [nodeRuntime, pythonRuntime].flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
    if (failures.length > 0) {
      await Promise.all(started.map(closeRuntime));
      throw combined(failures);
    }
    const value = (result: PromiseSettledResult<Runtime | undefined>) => (result.status === "fulfilled" ? result.value : undefined);
    return new Toolbox(adapter, { node: value(nodeRuntime), python: value(pythonRuntime) }, timeoutMs);
  }

  /** The runtimes the tools run on, e.g. `["node v20.20.2", "python 3.11.7 (/usr/bin/python3.11, from PATH)"]`. */
  runtimeNames(): string[] {
    return [this.runtimes.node, this.runtimes.python].flatMap((runtime) => (runtime ? [runtime.process.runtime] : []));
  }

  /** Calls accepted but not yet sent to a tool process (for backpressure). */
  get waiting(): number {
    return (this.runtimes.node?.process.waiting ?? 0) + (this.runtimes.python?.process.waiting ?? 0);
  }

  /** Send no new calls to the tool processes until `release()`; calls already sent run on. */
  hold(): void {
    this.eachProcess((process) => process.hold());
  }

  release(): void {
    this.eachProcess((process) => process.release());
  }

  private eachProcess(action: (process: ToolProcess) => void): void {
    for (const runtime of [this.runtimes.node, this.runtimes.python]) if (runtime) action(runtime.process);
  }

  async call(name: string, args: unknown, options: { signal?: CallSignal } = {}): Promise<ToolOutcome> {
    const tool = this.byName.get(name);
    if (!tool) return { ok: false, code: "TOOL_UNKNOWN", message: unknownToolMessage(name, [...this.byName.keys()]) };
    const input = args ?? {};
    const refused = argumentsProblem(input, tool.published.inputSchema);
    if (refused) {
      return { ok: false, code: "TOOL_ARGUMENTS_INVALID", message: `invalid arguments for tool '${name}': ${refused}` };
    }
    const outcome = await tool.runtime.process.run(name, input as Record<string, unknown>, this.timeoutMs, options.signal);
    if (!outcome.ok) {
      const verb = { TOOL_TIMEOUT: "", TOOL_CANCELLED: "", TOOL_FAILED: "failed: ", TOOL_RESULT_INVALID: "returned an invalid result: " }[outcome.code];
      return { ok: false, code: outcome.code, message: `tool '${name}' ${verb}${outcome.message}` };
    }
    if (tool.outputSchema) {
      const validate = validatorFor(tool.outputSchema);
      if (!validate(outcome.value)) {
        const problem = describeValidationErrors(validate.errors, "result");
        return { ok: false, code: "TOOL_RESULT_INVALID", message: `tool '${name}' returned an invalid result: ${problem}` };
      }
    }
    return { ok: true, value: outcome.value, text: renderValue(outcome.value) };
  }

  async close(): Promise<void> {
    await Promise.all([this.runtimes.node, this.runtimes.python].map((runtime) => runtime && closeRuntime(runtime)));
  }
}

async function startRuntime(
  adapter: Adapter,
  tools: ToolDefinition[],
  python: boolean,
  options: ToolboxOptions,
  timeoutMs: number,
): Promise<Runtime> {
  const first = tools[0]!;
  const interpreter = python ? await resolvePython(adapter.root, `tool '${first.name}' (entrypoint ${first.entrypoint})`) : undefined;
  const evidence = typeof options.resources?.evidence === "string" ? options.resources.evidence : undefined;
  const prepared = await prepareLaunch({
    adapter: adapter.root,
    python: interpreter,
    memoryBytes: options.memoryBytes ?? TOOL_MEMORY_BYTES,
    sandbox: options.sandbox ? { grants: options.sandbox, evidence } : undefined,
  });
  try {
    const process = await ToolProcess.start({
      launch: prepared.launch,
      root: adapter.root,
      tools: tools.map((tool) => ({ name: tool.name, file: tool.entry.file, function: tool.entry.function, entrypoint: tool.entrypoint })),
      resources: options.resources ?? {},
      loadTimeoutMs: Math.max(timeoutMs, TOOL_TIMEOUT_MS),
      maxInFlight: options.maxInFlight ?? MAX_CALLS_IN_FLIGHT,
      output: options.output ?? ((chunk) => void globalThis.process.stderr.write(chunk)),
    });
    return { process, prepared };
  } catch (error) {
    await prepared.cleanup();
    throw error;
  }
}

async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.process.close();
  await runtime.prepared.cleanup();
}

/** One error for both runtimes' start-up failures (both name their tools). */
function combined(failures: unknown[]): unknown {
  if (failures.length === 1) return failures[0];
  const errors = failures.filter((failure): failure is HermitError => failure instanceof HermitError);
  if (errors.length !== failures.length) return failures[0];
  const problems = errors.flatMap((error) => (error.data.problems as string[] | undefined) ?? [error.message]);
  const code = errors.find((error) => error.code !== "ADAPTER_INVALID")?.code ?? "ADAPTER_INVALID";
  return new HermitError(code, errors.map((error) => error.message).join("\n"), { ...errors[0]!.data, problems });
}

/** The TOOL_UNKNOWN message, listing the tools there are. */
export function unknownToolMessage(name: string, known: string[]): string {
  const list = known.length > 0 ? `the adapter's tools are ${known.join(", ")}` : "the adapter has no tools";
  return `unknown tool '${name}'; ${list}`;
}

/** Why arguments of this shape are refused before any schema is looked at, or undefined. */
export function argumentsShapeProblem(args: unknown): string | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "arguments: must be a JSON object";
  return undefined;
}

/** Why these arguments are refused (naming the path in the data), or undefined. */
function argumentsProblem(args: unknown, schema: Record<string, unknown>): string | undefined {
  const shape = argumentsShapeProblem(args);
  if (shape) return shape;
  if (Object.prototype.hasOwnProperty.call(args, RESOURCES_PARAMETER)) {
    return `arguments/${RESOURCES_PARAMETER}: is reserved; hermit binds it and a caller cannot pass it`;
  }
  const validate = validatorFor(schema);
  return validate(args) ? undefined : describeValidationErrors(validate.errors, "arguments");
}
