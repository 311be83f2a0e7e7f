/**
 * `Session`: an adapter's context, agents, skills and tools for a custom pipeline. The tools
 * run in tool processes (`toolbox.ts`), inside bubblewrap with `sandbox`; validation and the
 * audit log stay in this process, out of the tools' reach. The adapter is read, and the
 * tools loaded, on first use.
 */
import { mkdir } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { resolve } from "node:path";
import { readAdapter } from "../adapter/read.js";
import type { Adapter, AgentDefinition, SkillDefinition } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { AuditLog, auditHeader, auditRecord } from "./audit-log.js";
import { publishTool } from "./published.js";
import { bindResources, type ResourceOptions } from "./resources.js";
import { sandboxGrants, type Sandbox, type SandboxGrants } from "./sandbox.js";
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
   * Run the tools inside bubblewrap: no network, nothing of the host visible but what the
   * tools need to run (the adapter read-only), nothing writable but `evidence`. `true` is
   * the strict sandbox; a `Sandbox` object grants more, each grant explicit and reported in
   * the audit log's first line. Throws SANDBOX_UNAVAILABLE without a working bwrap.
   */
  sandbox?: boolean | Sandbox;
  /** Per-call time limit in ms (default 30000). */
  timeoutMs?: number;
  /** Memory limit of each tool process in bytes (default 2 GiB). */
  memoryBytes?: number;
  /** Where the tools' stdout and stderr go (default: this process's stderr). */
  toolOutput?: (chunk: Buffer) => void;
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
    const { auditLog: auditFile } = this.options;
    const timeoutMs = this.options.timeoutMs ?? TOOL_TIMEOUT_MS;
    const resources: ToolResources = bindResources(this.options, "Session options");
    const sandbox: SandboxGrants | undefined = await sandboxGrants(this.options.sandbox, "Session options");
    if (resources.evidence) await mkdir(resources.evidence, { recursive: true });
    const adapter = await readAdapter(this.adapterPath);
    const tools = adapter.tools.map(publishTool);
    const auditLog = auditFile ? await AuditLog.open(auditFile) : undefined;
    try {
      const { memoryBytes, toolOutput: output } = this.options;
      const toolbox = await Toolbox.open(adapter, { resources, timeoutMs, sandbox, memoryBytes, output });
      await auditLog?.append(auditHeader(adapter, "session", toolbox.runtimeNames(), sandbox, resources.evidence));
      return { adapter, tools, backend: toolbox, auditLog };
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
