import type { Command } from "commander";
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { ExitCode, HermitError } from "../../errors.js";
import { AUDIT_LOG_ENV } from "../../runtime/audit-log.js";
import type { CommandRegistration } from "../output.js";

interface ServeFlags {
  adapter: string;
  http?: string;
  auditLog?: string;
  resources?: string;
  timeout?: string;
  timeoutMs?: string;
  toolMemory?: string;
  quiet?: boolean;
}

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("serve")
    .summary("Serve an adapter's tools over MCP (stdio or HTTP)")
    .description(
      "Serve an adapter's tools over MCP: stdio by default (stdout carries only the protocol, logs go to stderr), " +
        "or Streamable HTTP on 127.0.0.1 with --http (the URL is printed on stderr). " +
        "Runs until stdin closes (stdio) or SIGINT/SIGTERM. " +
        "Python tools (.py) run on $HERMIT_PYTHON, else the adapter's .venv/bin/python, else python3 on PATH.\n" +
        "Exit 0 after a clean stop, 2 when the adapter, its tools or an option is invalid, or no Python can run a Python tool (PYTHON_UNAVAILABLE).",
    )
    .requiredOption("--adapter <dir>", "adapter directory whose declared tools to serve")
    .option("--http <port>", "serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)")
    .option("--audit-log <file>", "append one JSON line per tool call (time, tool, arguments, result or error, duration); default: $HERMIT_AUDIT_LOG when set")
    .option("--resources <file>", "JSON object bound to tools that declare the _resources parameter")
    .option("--timeout <duration>", "time limit per tool call: seconds, or 500ms, 90s, 10m (default 30s)")
    .option("--timeout-ms <n>", "the same in milliseconds (older spelling)")
    .option("--tool-memory <MiB>", "memory limit of each tool process, in MiB (default 2048)")
    .option("--quiet", "print no start-up line on stderr")
    .action(async (flags: ServeFlags) =>
      run(false, async () => {
        const http = flags.http === undefined ? undefined : integerFlag("--http", flags.http, 0, 65_535);
        const timeoutMs = timeoutFlag(flags);
        const memoryBytes = flags.toolMemory === undefined ? undefined : integerFlag("--tool-memory", flags.toolMemory, 64, 1_048_576) * 1024 * 1024;
        // Read once, then hidden from the tools (and any `hermit serve` they start).
        const auditLog = flags.auditLog ?? (process.env[AUDIT_LOG_ENV] || undefined);
        delete process.env[AUDIT_LOG_ENV];
        const { serveAdapter } = await import("../../runtime/serve.js");
        const server = await serveAdapter({
          adapter: flags.adapter,
          http,
          auditLog,
          resourcesFile: flags.resources,
          timeoutMs,
          memoryBytes,
          log: flags.quiet ? () => {} : undefined,
        });
        // `on`, not `once`: a second signal must not kill the process before the tool
        // processes are ended and the audit log is flushed; close() runs once.
        const stop = () => void server.close();
        process.on("SIGINT", stop).on("SIGTERM", stop);
        await server.closed;
        process.off("SIGINT", stop).off("SIGTERM", stop);
        return { exitCode: ExitCode.ok };
      }),
    );
};

function timeoutFlag(flags: ServeFlags): number | undefined {
  if (flags.timeout !== undefined && flags.timeoutMs !== undefined) {
    throw new HermitError("USAGE", "--timeout and --timeout-ms set the same limit; give one of them");
  }
  if (flags.timeoutMs !== undefined) return integerFlag("--timeout-ms", flags.timeoutMs, 1, 2_147_483_647);
  if (flags.timeout === undefined) return undefined;
  const seconds = parseDuration(flags.timeout);
  if (seconds === undefined || seconds * 1000 > 2_147_483_647) {
    throw new HermitError("USAGE", `--timeout: '${flags.timeout}' must be ${DURATION_HINT}`, { flag: "--timeout", value: flags.timeout });
  }
  return Math.max(1, Math.round(seconds * 1000));
}

function integerFlag(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new HermitError("USAGE", `${flag}: '${value}' must be an integer from ${min} to ${max}`, { flag, value });
  }
  return number;
}
