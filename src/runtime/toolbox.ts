/**
 * The in-process tool runtime: the declared tools of one adapter, with arguments and results
 * checked against their schemas and every call bounded in time. Servers and `Session` both
 * run tools through it; it never throws for a failed call, it returns the outcome.
 */
import { describeValidationErrors, validatorFor } from "../adapter/json-schema.js";
import type { Adapter } from "../adapter/types.js";
import { publishTool, renderValue } from "./published.js";
import { ToolThread } from "./tool-thread.js";
import { RESOURCES_PARAMETER, type PublishedTool, type ToolBackend, type ToolOutcome, type ToolResources } from "./types.js";

/** Default per-call time limit (ms). */
export const TOOL_TIMEOUT_MS = 30_000;

export interface ToolboxOptions {
  /** Bound resources (see `bindResources`), given to tools that declare `_resources`. */
  resources?: ToolResources;
  /** Per-call time limit in ms; also bounds importing the tool modules. Default 30000. */
  timeoutMs?: number;
}

export class Toolbox implements ToolBackend {
  /** The tools as published to clients, in manifest order. */
  readonly tools: PublishedTool[];
  private readonly byName: Map<string, { published: PublishedTool; outputSchema?: object }>;

  private constructor(
    adapter: Adapter,
    /** Undefined for an adapter without tools: no thread is started. */
    private readonly thread: ToolThread | undefined,
    private readonly timeoutMs: number,
  ) {
    this.tools = adapter.tools.map(publishTool);
    this.byName = new Map(
      adapter.tools.map((tool, index) => [tool.name, { published: this.tools[index]!, outputSchema: tool.output_schema }]),
    );
  }

  /** Import every tool of `adapter` in a tool thread; a missing file or function throws ADAPTER_INVALID. */
  static async open(adapter: Adapter, options: ToolboxOptions = {}): Promise<Toolbox> {
    const timeoutMs = options.timeoutMs ?? TOOL_TIMEOUT_MS;
    if (adapter.tools.length === 0) return new Toolbox(adapter, undefined, timeoutMs);
    const thread = await ToolThread.start({
      root: adapter.root,
      tools: adapter.tools,
      resources: options.resources ?? {},
      loadTimeoutMs: Math.max(timeoutMs, TOOL_TIMEOUT_MS),
    });
    return new Toolbox(adapter, thread, timeoutMs);
  }

  async call(name: string, args: unknown): Promise<ToolOutcome> {
    const tool = this.byName.get(name);
    if (!tool) return { ok: false, code: "TOOL_UNKNOWN", message: unknownToolMessage(name, [...this.byName.keys()]) };
    const input = args ?? {};
    const refused = argumentsProblem(input, tool.published.inputSchema);
    if (refused) {
      return { ok: false, code: "TOOL_ARGUMENTS_INVALID", message: `invalid arguments for tool '${name}': ${refused}` };
    }
    const outcome = await this.thread!.run(name, input as Record<string, unknown>, this.timeoutMs);
    if (!outcome.ok) {
      const verb = { TOOL_TIMEOUT: "", TOOL_FAILED: "failed: ", TOOL_RESULT_INVALID: "returned an invalid result: " }[outcome.code];
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
    await this.thread?.close();
  }
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
