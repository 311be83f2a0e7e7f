/**
 * The audit log: one JSON line per tool call, appended. Lines are written one at a time
 * through a single append-mode handle, each with one write, so concurrent calls never
 * interleave within a process; other processes appending to the same file (O_APPEND) get
 * whole lines too on a local file system. The write is synchronous: a line is in the file
 * when `append` returns, and a call's answer waits for no thread-pool round trip (~50 us,
 * a fifth of a `hermit serve` call).
 */
import { writeSync } from "node:fs";
import { mkdir, open, stat, type FileHandle } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { HermitError } from "../errors.js";
import type { Adapter } from "../adapter/types.js";
import { hermitVersion } from "../package-root.js";
import type { SandboxGrants } from "../sandbox/tool-layout.js";
import type { AuditHeader, AuditRecord, CallSignal, ToolBackend, ToolOutcome } from "./types.js";

/**
 * The variable `hermit serve` takes its audit log from when `--audit-log` is not given: a
 * server a host starts from a deployed workspace (whose MCP entry names no log) then still
 * records every call. Acting and `hermit verify --exercise-tools` set it for the host.
 */
export const AUDIT_LOG_ENV = "HERMIT_AUDIT_LOG";

export class AuditLog {
  private closed = false;
  private constructor(
    /** Absolute path of the log file. */
    readonly file: string,
    private readonly handle: FileHandle,
  ) {}

  /** Open `file` for appending (its folder is created); an unwritable path throws USAGE. */
  static async open(file: string): Promise<AuditLog> {
    const path = resolve(file);
    try {
      await mkdir(dirname(path), { recursive: true });
      return new AuditLog(path, await open(path, "a"));
    } catch (error) {
      throw new HermitError("USAGE", `${path}: cannot open the audit log: ${(error as Error).message}`, { path });
    }
  }

  /** Append one record: its line is written when this returns; rejects when it could not be. */
  append(record: AuditRecord | AuditHeader): Promise<void> {
    // After close the descriptor's number may name another file by now.
    if (this.closed) return Promise.reject(new HermitError("USAGE", `${this.file}: the audit log is closed`, { path: this.file }));
    try {
      const line = Buffer.from(`${JSON.stringify(record)}\n`);
      let offset = 0;
      while (offset < line.length) offset += writeSync(this.handle.fd, line, offset);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Close the file (every line appended is written already). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** The first line of a log: who runs the calls, on what, with which sandbox grants. */
export function auditHeader(
  adapter: Adapter,
  via: "serve" | "session",
  runtimes: string[],
  sandbox: SandboxGrants | undefined,
  evidence: string | undefined,
): AuditHeader {
  const { name, version } = adapter.manifest;
  return {
    time: new Date().toISOString(),
    session: {
      via,
      adapter: adapter.root,
      name,
      version,
      hermit: hermitVersion,
      runtimes,
      sandbox: sandbox ? { network: sandbox.network, read: sandbox.read, write: sandbox.write, env: sandbox.env } : false,
      ...(evidence ? { evidence } : {}),
    },
  };
}

/** The audit line of one call that started at `time` and took `durationMs`. */
export function auditRecord(tool: string, args: unknown, outcome: ToolOutcome, time: string, durationMs: number): AuditRecord {
  return {
    time,
    tool,
    arguments: args ?? {},
    ...(outcome.ok ? { result: outcome.value } : { error: { code: outcome.code, message: outcome.message } }),
    duration_ms: Math.round(durationMs * 1000) / 1000,
  };
}

/** A backend that records every call it runs in `log` (the log is closed with the backend). */
export function audited(backend: ToolBackend, log: AuditLog): ToolBackend {
  return {
    async call(name: string, args: unknown, options?: { signal?: CallSignal }): Promise<ToolOutcome> {
      const time = new Date().toISOString();
      const started = performance.now();
      const outcome = await backend.call(name, args, options);
      await log.append(auditRecord(name, args, outcome, time, performance.now() - started));
      return outcome;
    },
    async close() {
      await backend.close();
      await log.close();
    },
  };
}

/** The size of the audit log `file` now (0 when it does not exist): where the next call's line will start. */
export async function auditLogSize(file: string): Promise<number> {
  return (await stat(file).catch(() => undefined))?.size ?? 0;
}

/**
 * The records of `file` from byte `offset` on (the calls of one run, when several share a
 * log). A line that is not a complete record (a writer killed mid-line) is skipped; a missing
 * file has none.
 */
export async function readAuditLog(file: string, offset = 0): Promise<AuditRecord[]> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return [];
  let text: string;
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    text = buffer.toString("utf8");
  } finally {
    await handle.close();
  }
  const records: AuditRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line) as AuditRecord;
      if (record !== null && typeof record === "object" && typeof record.tool === "string") records.push(record);
    } catch {
      // a torn line
    }
  }
  return records;
}
