/**
 * `hermit serve` as a library call: read the adapter, load its tools, and serve them over
 * MCP on stdio or Streamable HTTP until the client goes away or `close()` is called. This
 * process holds the protocol streams and the audit log; the tools run in tool processes
 * that hold neither (`toolbox.ts`).
 */
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { readAdapter } from "../adapter/read.js";
import { AuditLog, audited, auditHeader } from "./audit-log.js";
import { listenHttp } from "./http-server.js";
import { createToolServer } from "./mcp-server.js";
import { readResourcesFile } from "./resources.js";
import { LineTransport } from "./stdio-transport.js";
import { ToolCallLane } from "./tool-call-lane.js";
import { Toolbox } from "./toolbox.js";
import type { ToolBackend, ToolResources } from "./types.js";

/** Over stdio, requests stop being read while more calls than this wait for a tool process. */
const MAX_WAITING_CALLS = 256;

export interface ServeOptions {
  /** The adapter directory. */
  adapter: string;
  /** Serve Streamable HTTP on 127.0.0.1:`http` (0 picks a free port) instead of stdio. */
  http?: number;
  /** Append one JSON line per call to this file. */
  auditLog?: string;
  /** A JSON file whose object is bound as the tools' resources (see docs/runtime.md). */
  resourcesFile?: string;
  /** Resources already bound (see `bindResources`); used when `resourcesFile` is not given. */
  resources?: ToolResources;
  /** Per-call time limit in ms (default 30000). */
  timeoutMs?: number;
  /** Memory limit of each tool process in bytes (default 2 GiB). */
  memoryBytes?: number;
  /** Where log lines go (default: stderr). Never stdout. */
  log?: (line: string) => void;
  /** Where the tools' stdout and stderr go (default: stderr). Never stdout. */
  toolOutput?: (chunk: Buffer) => void;
  /** The stdio streams (default: process.stdin / process.stdout). */
  stdin?: Readable;
  stdout?: Writable;
}

export interface RunningServer {
  /** The Streamable HTTP endpoint, when serving HTTP. */
  url?: string;
  /** The tools served. */
  tools: string[];
  /** Resolves once the server has stopped (stdin ended, or `close()`). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Start serving; start-up problems (bad adapter, missing tool function, bad resources) throw HermitError. */
export async function serveAdapter(options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const root = resolve(options.adapter);
  // Exporters are adapter code meant for deploys; serving needs only the tools.
  const adapter = await readAdapter(root, { runExporters: false });
  const resources = options.resourcesFile ? await readResourcesFile(resolve(options.resourcesFile)) : options.resources;
  const auditLog = options.auditLog ? await AuditLog.open(options.auditLog) : undefined;
  let toolbox: Toolbox | undefined;
  try {
    toolbox = await Toolbox.open(adapter, {
      resources,
      timeoutMs: options.timeoutMs,
      memoryBytes: options.memoryBytes,
      output: options.toolOutput,
    });
    const evidence = typeof resources?.evidence === "string" ? resources.evidence : undefined;
    await auditLog?.append(auditHeader(adapter, "serve", toolbox.runtimeNames(), undefined, evidence));
  } catch (error) {
    await toolbox?.close();
    await auditLog?.close();
    throw error;
  }
  const backend: ToolBackend = auditLog ? audited(toolbox, auditLog) : toolbox;
  const tools = adapter.tools.map((tool) => tool.name);
  const info = { name: adapter.manifest.name, version: adapter.manifest.version };
  const newServer = () => {
    const server = createToolServer(toolbox.tools, backend, info);
    server.onerror = (error) => log(`hermit serve: ${error.message}`);
    return server;
  };

  let stopped!: () => void;
  const closed = new Promise<void>((done) => (stopped = done));
  let closing: Promise<void> | undefined;
  let stopTransport: () => Promise<void> = async () => {};
  const close = () =>
    (closing ??= (async () => {
      await stopTransport();
      await backend.close();
      stopped();
    })());

  const runtimes = toolbox.runtimeNames();
  const label = `${adapter.manifest.name} ${adapter.manifest.version}: ${tools.length} tool(s)${runtimes.length > 0 ? ` (${runtimes.join("; ")})` : ""}`;
  if (options.http !== undefined) {
    const endpoint = await listenHttp(options.http, newServer, log).catch(async (error) => {
      await backend.close();
      throw error;
    });
    stopTransport = () => endpoint.close();
    log(`hermit serve: ${label} on ${endpoint.url}`);
    return { url: endpoint.url, tools, closed, close };
  }
  const server = newServer();
  const transport = new LineTransport(options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  // Bounded memory: no new tool call while the client is not reading its answers, and no
  // more requests read while many wait for a tool process.
  const opened = toolbox;
  transport.onBackpressure = (congested) => (congested ? opened.hold() : opened.release());
  transport.overloaded = () => opened.waiting > MAX_WAITING_CALLS;
  // Plain tools/call requests skip the SDK's request machinery (see tool-call-lane.ts).
  const lane = new ToolCallLane({ backend, send: (message) => transport.send(message), onerror: (error) => server.onerror?.(error) });
  transport.lane = lane;
  server.onclose = () => void close();
  stopTransport = async () => {
    await server.close();
    lane.close();
  };
  await server.connect(transport);
  log(`hermit serve: ${label} on stdio`);
  return { tools, closed, close };
}
