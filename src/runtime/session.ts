/**
 * `Session`: an adapter's context, agents, skills and tools for a custom pipeline, in
 * process (tools in a worker thread) or sandboxed (`sandbox: true`: a `hermit serve` child
 * inside bubblewrap, over MCP). The adapter is read, and the tools loaded, on first use.
 */
import { mkdir } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { resolve } from "node:path";
import { readAdapter } from "../adapter/read.js";
import type { Adapter, AgentDefinition, SkillDefinition } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { AuditLog, auditRecord } from "./audit-log.js";
import { publishTool } from "./published.js";
import { bindResources, type ResourceOptions } from "./resources.js";
import { openSandboxedTools } from "./sandbox.js";
import {
  parseToolCall,
  toolMessage,
  toolSpecs,
  type AnthropicToolSpec,
  type OpenAIToolSpec,
  type ToolCall,
  type ToolFormat,
  type ToolMessageFor,
} from "./tool-formats.js";
import { TOOL_TIMEOUT_MS, Toolbox } from "./toolbox.js";
import type { PublishedTool, ToolBackend, ToolOutcome, ToolResources } from "./types.js";

export interface SessionOptions extends ResourceOptions {
  /** Append one JSON line per tool call to this file. */
  auditLog?: string;
  /**
   * Run the tools in a `hermit serve` child inside bubblewrap: no network, the adapter
   * read-only, nothing writable but `evidence`. Throws SANDBOX_UNAVAILABLE without bwrap.
   */
  sandbox?: boolean;
  /** Per-call time limit in ms (default 30000). */
  timeoutMs?: number;
}

interface Opened {
  adapter: Adapter;
  tools: PublishedTool[];
  backend: ToolBackend;
  auditLog?: AuditLog;
}

export class Session {
  /** Absolute adapter directory. */
  readonly adapterPath: string;
  private readonly options: SessionOptions;
  private opening: Promise<Opened> | undefined;
  private closed = false;

  /** Nothing is read until the first call; bad options throw USAGE here. */
  constructor(adapterPath: string, options: SessionOptions = {}) {
    this.adapterPath = resolve(adapterPath);
    this.options = { ...options };
    if (options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new HermitError("USAGE", `Session: timeoutMs must be a positive integer (got ${options.timeoutMs})`);
    }
  }

  /** The acting context: the adapter's ADAPTER.md text (or `exports.context`). */
  async context(): Promise<string> {
    return (await this.open()).adapter.context.text;
  }

  /** The tools as definitions for the OpenAI Chat Completions or Anthropic Messages API. */
  toolSpecs(format: "openai"): Promise<OpenAIToolSpec[]>;
  toolSpecs(format: "anthropic"): Promise<AnthropicToolSpec[]>;
  toolSpecs(format: ToolFormat): Promise<OpenAIToolSpec[] | AnthropicToolSpec[]>;
  async toolSpecs(format: ToolFormat): Promise<OpenAIToolSpec[] | AnthropicToolSpec[]> {
    return toolSpecs((await this.open()).tools, format);
  }

  async hasTool(name: string): Promise<boolean> {
    return (await this.open()).tools.some((tool) => tool.name === name);
  }

  /** Run a tool and return its value; a failure throws HermitError with the TOOL_* code and message. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const outcome = await this.invoke(name, args);
    if (!outcome.ok) throw new HermitError(outcome.code, outcome.message, { tool: name });
    return outcome.value;
  }

  /**
   * Run the tool a model asked for and return that API's answer: an OpenAI `{ role: "tool" }`
   * message, an Anthropic `tool_result` block, or a Responses `function_call_output` item.
   * Tool errors come back as text (Anthropic: with `is_error: true`), never thrown.
   */
  async respond<T extends ToolCall>(toolCall: T): Promise<ToolMessageFor<T>> {
    const call = parseToolCall(toolCall);
    const outcome: ToolOutcome = call.argumentsError
      ? await this.refuse(call.name, call.arguments, `invalid arguments for tool '${call.name}': ${call.argumentsError}`)
      : await this.invoke(call.name, call.arguments);
    return toolMessage(call, outcome) as ToolMessageFor<T>;
  }

  async agents(): Promise<AgentDefinition[]> {
    return (await this.open()).adapter.agents;
  }

  async skills(): Promise<SkillDefinition[]> {
    return (await this.open()).adapter.skills;
  }

  /** Stop the tools (thread or sandboxed server) and flush the audit log. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opened = await this.opening?.catch(() => undefined);
    await opened?.backend.close();
    await opened?.auditLog?.close();
  }

  private open(): Promise<Opened> {
    if (this.closed) return Promise.reject(new HermitError("USAGE", `Session for ${this.adapterPath} is closed`));
    this.opening ??= this.start();
    return this.opening;
  }

  private async start(): Promise<Opened> {
    const { sandbox, auditLog: auditFile } = this.options;
    const timeoutMs = this.options.timeoutMs ?? TOOL_TIMEOUT_MS;
    const resources: ToolResources = bindResources(this.options, "Session options");
    if (resources.evidence) await mkdir(resources.evidence, { recursive: true });
    const adapter = await readAdapter(this.adapterPath);
    const tools = adapter.tools.map(publishTool);
    const auditLog = auditFile ? await AuditLog.open(auditFile) : undefined;
    try {
      const backend = sandbox
        ? await openSandboxedTools({ adapter: adapter.root, resources, timeoutMs })
        : await Toolbox.open(adapter, { resources, timeoutMs });
      return { adapter, tools, backend, auditLog };
    } catch (error) {
      await auditLog?.close();
      throw error;
    }
  }

  private async invoke(name: string, args: unknown): Promise<ToolOutcome> {
    const { backend, auditLog } = await this.open();
    const time = new Date().toISOString();
    const started = performance.now();
    const outcome = await backend.call(name, args);
    await auditLog?.append(auditRecord(name, args, outcome, time, performance.now() - started));
    return outcome;
  }

  /** A call refused before it reached the tools (unreadable arguments); still audited. */
  private async refuse(name: string, args: unknown, message: string): Promise<ToolOutcome> {
    const { auditLog } = await this.open();
    const outcome: ToolOutcome = { ok: false, code: "TOOL_ARGUMENTS_INVALID", message };
    await auditLog?.append(auditRecord(name, args, outcome, new Date().toISOString(), 0));
    return outcome;
  }
}
