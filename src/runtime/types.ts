/** The shapes shared by the tool runtime: published tools, call outcomes, resources, audit records. */

/** The reserved parameter name through which a tool receives its bound resources. */
export const RESOURCES_PARAMETER = "_resources";

/**
 * What a tool that declares `_resources` receives: the named resources bound at start-up
 * (each present only when bound) plus every key of the user mapping. JSON values only; the
 * object is frozen, so one call cannot change what the next one sees.
 */
export interface ToolResources {
  /** The deployment report (`.hermit-deploy.json` content) of the workspace the tools act in. */
  deployment?: unknown;
  /** What the learner is given (evidence, scores, feedback, history), for evolver tools. */
  learningMaterial?: unknown;
  /** Absolute path of the evidence directory: the only place a sandboxed tool may write. */
  evidence?: string;
  /** The user mapping (`resources` option, or the other keys of `--resources FILE`). */
  [key: string]: unknown;
}

/** A tool as listed to clients: the manifest's declaration with `_resources` removed from the input schema. */
export interface PublishedTool {
  name: string;
  description: string;
  /** The manifest's `input_schema`, unchanged unless it declared `_resources`. */
  inputSchema: Record<string, unknown>;
  /** The manifest's `output_schema`, when it declares one. */
  outputSchema?: Record<string, unknown>;
}

/** Why a tool call failed. Each is also a `HermitError` code. */
export type ToolErrorCode =
  | "TOOL_UNKNOWN"
  | "TOOL_ARGUMENTS_INVALID"
  | "TOOL_RESULT_INVALID"
  | "TOOL_FAILED"
  | "TOOL_TIMEOUT"
  /** The MCP client cancelled the call (`notifications/cancelled`); no answer is sent, the audit log keeps it. */
  | "TOOL_CANCELLED";

/** The result of one tool call: never thrown, so servers and `respond()` can render it. */
export type ToolOutcome =
  | {
      ok: true;
      /** The tool's return value, as JSON (undefined becomes null). */
      value: unknown;
      /** The text rendering: the value itself when it is a string, else its JSON. */
      text: string;
    }
  | { ok: false; code: ToolErrorCode; message: string };

/**
 * How a call learns that it was cancelled: an `AbortSignal`, or anything that behaves as one
 * for "abort" listeners (the stdio lane's `Cancellation`: in Node 20, adding a listener to an
 * `AbortSignal` and removing it costs about 10 µs, a tenth of a call's round trip).
 */
export interface CallSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** Anything that runs an adapter's tools: the in-process toolbox, or a sandboxed server over MCP. */
export interface ToolBackend {
  /** Run one call; `signal` aborts it (a client's cancellation). */
  call(name: string, args: unknown, options?: { signal?: CallSignal }): Promise<ToolOutcome>;
  close(): Promise<void>;
}

/**
 * The first line a server or `Session` writes to its audit log: what ran the calls below it,
 * and, in a sandbox, every grant beyond the strict one.
 */
export interface AuditHeader {
  /** ISO 8601 time the tools started. */
  time: string;
  session: {
    /** `serve` or `session`. */
    via: "serve" | "session";
    /** Absolute adapter directory, its manifest name and version. */
    adapter: string;
    name: string;
    version: string;
    hermit: string;
    /** The runtimes the tools run on, e.g. `node v20.20.2`, `python 3.11.7 (/usr/bin/python3, from PATH)`. */
    runtimes: string[];
    /** false: no sandbox. Otherwise the grants (`{ network: false, read: [], write: [], env: [] }` is the strict sandbox). */
    sandbox: false | { network: boolean; read: string[]; write: string[]; env: string[] };
    /** The evidence directory bound to the tools (writable in the sandbox), if any. */
    evidence?: string;
  };
}

/** One line of the audit log. */
export interface AuditRecord {
  /** ISO 8601 time the call started. */
  time: string;
  tool: string;
  /** The arguments as the caller sent them. */
  arguments: unknown;
  /** Present when the call succeeded. */
  result?: unknown;
  /** Present when the call failed. */
  error?: { code: ToolErrorCode; message: string };
  duration_ms: number;
}
