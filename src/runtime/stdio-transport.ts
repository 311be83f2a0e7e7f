/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's stdio
 * transport, a malformed line gets a JSON-RPC error response (-32700 parse error, -32600
 * invalid request) instead of silence, and an oversized line is refused without closing.
 * Nothing but protocol is ever written to `output`.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Longest accepted line (bytes). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  /** True while skipping the rest of an oversized line. */
  private discarding = false;
  private closed = false;
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

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
    this.buffered = [];
    this.onclose?.();
  }

  private write(line: string): Promise<void> {
    if (this.closed || this.output.write(line)) return Promise.resolve();
    // One drain listener however many writes wait on a slow reader.
    this.drained ??= new Promise<void>((resolve) =>
      this.output.once("drain", () => {
        this.drained = undefined;
        resolve();
      }),
    );
    return this.drained;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE)) {
      const tail = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.bufferedBytes === 0 ? tail : Buffer.concat([...this.buffered, tail]);
      this.buffered = [];
      this.bufferedBytes = 0;
      this.handleLine(line.toString("utf8").replace(/\r$/, ""));
      if (this.closed) return;
    }
    if (data.length === 0 || this.discarding) return;
    this.buffered.push(data);
    this.bufferedBytes += data.length;
    if (this.bufferedBytes > this.maxLineBytes) {
      this.buffered = [];
      this.bufferedBytes = 0;
      this.discarding = true;
      this.reject(null, ErrorCode.ParseError, `Parse error: message longer than ${this.maxLineBytes} bytes`);
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
    const parsed = JSONRPCMessageSchema.safeParse(data);
    if (!parsed.success) {
      const id = (data as { id?: unknown } | null)?.id;
      const message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response";
      this.reject(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, message);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** Answer a message the server cannot read. The id is null when it could not be read either. */
  private reject(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}
