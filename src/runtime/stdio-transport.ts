/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's stdio
 * transport, a malformed line gets a JSON-RPC error response (-32700 parse error, -32600
 * invalid request) instead of silence, and an oversized line is refused without closing.
 * Nothing but protocol is ever written to `output`.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineSplitter } from "./tool-channel.js";

/** Longest accepted line (bytes). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Called with true when the output stops draining (a client that does not read), and with
   * false once it drains; reading stops meanwhile. The server holds back tool calls with it.
   */
  onBackpressure?: (congested: boolean) => void;
  /** Whether too many requests wait already; reading stops until it says false. */
  overloaded?: () => boolean;
  /**
   * Sees each message before the server does (`ToolCallLane`): `take` gets it parsed but not
   * yet checked, and answers a plain tools/call itself; `observe` sees each checked message.
   */
  lane?: { take(message: unknown): boolean; observe(message: JSONRPCMessage): void };

  private readonly splitter: LineSplitter;
  private closed = false;
  private congested = false;
  private polling: NodeJS.Timeout | undefined;
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.splitter = new LineSplitter(
      maxLineBytes,
      (line) => {
        if (!this.closed) this.handleLine(line.replace(/\r$/, ""));
      },
      () => this.reject(null, ErrorCode.ParseError, `Parse error: message longer than ${maxLineBytes} bytes`),
    );
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onStreamError);
    this.output.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // A response that cannot be serialized (too long for a string) still gets an answer.
      if (!("id" in message) || "method" in message) throw error;
      const text = `Internal error: the response could not be serialized: ${(error as Error).message}`;
      line = JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InternalError, message: text } });
    }
    return this.write(`${line}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onStreamError);
    this.input.pause();
    clearTimeout(this.polling);
    this.onclose?.();
  }

  private write(line: string): Promise<void> {
    if (this.closed || this.output.write(line)) return Promise.resolve();
    // One drain listener however many writes wait on a slow reader.
    this.drained ??= new Promise<void>((resolve) => {
      this.congested = true;
      this.input.pause();
      this.onBackpressure?.(true);
      this.output.once("drain", () => {
        this.drained = undefined;
        this.congested = false;
        this.onBackpressure?.(false);
        this.resumeWhenReady();
        resolve();
      });
    });
    return this.drained;
  }

  /** Read on once the output drains and the waiting requests are few again (checked every 20 ms). */
  private resumeWhenReady(): void {
    if (this.closed || this.congested || this.polling) return;
    if (!this.overloaded?.()) {
      this.input.resume();
      return;
    }
    this.polling = setTimeout(() => {
      this.polling = undefined;
      this.resumeWhenReady();
    }, 20);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    if (!this.closed && this.overloaded?.()) {
      this.input.pause();
      this.resumeWhenReady();
    }
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (error) {
      this.reject(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    if (this.lane?.take(data)) return;
    const parsed = JSONRPCMessageSchema.safeParse(data);
    if (!parsed.success) {
      const id = (data as { id?: unknown } | null)?.id;
      const message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response";
      this.reject(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, message);
      return;
    }
    this.lane?.observe(parsed.data);
    this.onmessage?.(parsed.data);
  }

  /** Answer a message the server cannot read. The id is null when it could not be read either. */
  private reject(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}
