/**
 * The private channel between the protocol side (the `hermit serve` or `Session` process)
 * and a tool process (`tool-host.ts` for TypeScript/JavaScript, `hermit_host.py` for Python):
 * JSON lines, requests on the tool process's file descriptor 3, answers on its file
 * descriptor 4. The tool process never holds the protocol's file descriptors, so tool code
 * cannot speak MCP to a client; what it could write on this channel is ignored unless it
 * names a pending call together with that call's random key, which the protocol side makes
 * fresh for every call (a forged answer, written blind, cannot know it).
 *
 * Both hosts implement this same protocol; keep `hermit_host.py` in step with this file.
 */
import type { ToolResources } from "./types.js";

/** File descriptor of the requests (protocol side → tool process) in the tool process. */
export const REQUEST_FD = 3;
/** File descriptor of the answers (tool process → protocol side) in the tool process. */
export const ANSWER_FD = 4;

/** Longest JSON text of a tool's value (8 Mi characters); longer values are TOOL_RESULT_INVALID. */
export const MAX_RESULT_CHARS = 8 * 1024 * 1024;
/** Longest answer line read from a tool process: a maximal value in UTF-8 plus its envelope. */
export const MAX_ANSWER_BYTES = 3 * MAX_RESULT_CHARS + 64 * 1024;
/** A thrown message is text for a model and a log line: its first 64 Ki characters. */
export const MAX_MESSAGE_CHARS = 64 * 1024;

/** One tool as the host loads it. */
export interface HostTool {
  name: string;
  /** Entrypoint file, relative to `root`. */
  file: string;
  function: string;
}

/** The first request: what to load, and the key that authenticates `ready`. */
export interface InitRequest {
  t: "init";
  key: string;
  root: string;
  tools: HostTool[];
  resources: ToolResources;
}

export type ToHost =
  | InitRequest
  | { t: "call"; id: number; key: string; tool: string; args: Record<string, unknown> }
  | { t: "ping"; id: number; key: string }
  /** The call timed out: cancel it if the runtime can (an asyncio task), else count it as stuck. */
  | { t: "cancel"; id: number };

/** A tool the host could not load, and why (with the file and line when the runtime knows them). */
export interface LoadProblem {
  tool: string;
  problem: string;
  /** The file the problem is in, relative to the adapter (may differ from the entrypoint: an import). */
  file?: string;
  line?: number;
}

export type FromHost =
  | { t: "ready"; key: string; runtime?: string }
  | { t: "load-failed"; key: string; problems: LoadProblem[] }
  | { t: "result"; id: number; key: string; value: unknown }
  /** `kind: "result"`: the value is not JSON or too long; `"failed"`: the tool threw. */
  | { t: "error"; id: number; key: string; kind: "failed" | "result"; message: string; trace?: string }
  /** Sent before a call starts while other calls are running in the host (see `tool-process.ts`). */
  | { t: "begun"; id: number; key: string }
  /** `stuck`: calls cancelled after a time-out that are still running in a thread nothing can stop. */
  | { t: "pong"; id: number; key: string; stuck: number };

/**
 * Splits a byte stream into lines. A line longer than `maxBytes` is dropped whole (reported
 * once through `onOversized`) so that a runaway writer cannot exhaust memory.
 */
export class LineSplitter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: () => void,
  ) {}

  push(chunk: Buffer): void {
    let data = chunk;
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a)) {
      const tail = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.bufferedBytes === 0 ? tail : Buffer.concat([...this.buffered, tail]);
      this.buffered = [];
      this.bufferedBytes = 0;
      this.onLine(line.toString("utf8"));
    }
    if (data.length === 0 || this.discarding) return;
    this.buffered.push(data);
    this.bufferedBytes += data.length;
    if (this.bufferedBytes > this.maxBytes) {
      this.buffered = [];
      this.bufferedBytes = 0;
      this.discarding = true;
      this.onOversized();
    }
  }
}

/** A thrown message cut to `MAX_MESSAGE_CHARS`. */
export function boundedMessage(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}… (${text.length} characters)` : text;
}
