import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { Command } from "commander";
import { ExitCode, HermitError } from "../../errors.js";
import type { CommandRegistration } from "../program.js";

interface ServeFlags {
  adapter: string;
  http?: string;
  auditLog?: string;
  resources?: string;
  timeoutMs: string;
  quiet?: boolean;
}

/**
 * Set in the server process that the stdio supervisor starts: the file descriptor that
 * carries the protocol (file descriptor 1 of that process is the supervisor's stderr).
 */
const PROTOCOL_FD_ENV = "HERMIT_SERVE_PROTOCOL_FD";
/** File descriptor of the protocol in the server process. */
const PROTOCOL_FD = 3;

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("serve")
    .summary("Serve an adapter's tools over MCP (stdio or HTTP)")
    .description(
      "Serve an adapter's tools over MCP: stdio by default (stdout carries only the protocol, logs go to stderr), " +
        "or Streamable HTTP on 127.0.0.1 with --http (the URL is printed on stderr). " +
        "Runs until stdin closes (stdio) or SIGINT/SIGTERM.\n" +
        "Exit 0 after a clean stop, 2 when the adapter, its tools or an option is invalid.",
    )
    .requiredOption("--adapter <dir>", "adapter directory whose declared tools to serve")
    .option("--http <port>", "serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)")
    .option("--audit-log <file>", "append one JSON line per tool call (time, tool, arguments, result or error, duration)")
    .option("--resources <file>", "JSON object bound to tools that declare the _resources parameter")
    .option("--timeout-ms <n>", "time limit per tool call, in ms", "30000")
    .option("--quiet", "print no start-up line on stderr")
    .action(async (flags: ServeFlags) =>
      run(false, async () => {
        const http = flags.http === undefined ? undefined : integerFlag("--http", flags.http, 0, 65_535);
        const timeoutMs = integerFlag("--timeout-ms", flags.timeoutMs, 1, 2_147_483_647);
        const protocolFd = process.env[PROTOCOL_FD_ENV];
        delete process.env[PROTOCOL_FD_ENV]; // not for the tools, nor a `hermit serve` they start
        if (http === undefined && protocolFd === undefined && process.platform !== "win32") {
          return { exitCode: (await supervise()) as ExitCode };
        }
        const { serveAdapter } = await import("../../runtime/serve.js");
        const server = await serveAdapter({
          adapter: flags.adapter,
          http,
          auditLog: flags.auditLog,
          resourcesFile: flags.resources,
          timeoutMs,
          log: flags.quiet ? () => {} : undefined,
          stdout: protocolFd === undefined ? undefined : await protocolStream(Number(protocolFd)),
        });
        // `on`, not `once`: a second signal (Ctrl-C reaches the supervisor too, which forwards
        // it) must not kill the process before the audit log is flushed; close() runs once.
        const stop = () => void server.close();
        process.on("SIGINT", stop).on("SIGTERM", stop);
        if (protocolFd !== undefined) watchSupervisor(stop);
        await server.closed;
        process.off("SIGINT", stop).off("SIGTERM", stop);
        return { exitCode: ExitCode.ok };
      }),
    );
};

/**
 * stdio mode runs the server in a child process whose file descriptor 1 is this process's
 * stderr and whose protocol goes out on file descriptor 3, this process's stdout. Whatever a
 * tool writes to file descriptor 1 (`fs.writeSync(1, …)`, a subprocess with inherited
 * stdio) therefore lands on stderr and can never corrupt the protocol. This process only
 * forwards signals and passes the child's exit code on.
 */
function supervise(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: ["inherit", 2, "inherit", 1],
      env: { ...process.env, [PROTOCOL_FD_ENV]: String(PROTOCOL_FD) },
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward).on("SIGTERM", forward);
    child.on("error", (error) => {
      process.stderr.write(`hermit: error USAGE: cannot start the server process: ${error.message}\n`);
      resolve(ExitCode.input);
    });
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward).off("SIGTERM", forward);
      // Stopped by the signal it was sent on our behalf: a clean stop.
      resolve(code ?? (signal === "SIGINT" || signal === "SIGTERM" ? ExitCode.ok : 1));
    });
  });
}

/** The protocol's output stream on `fd`: a socket or pipe as a socket, anything else (a file) as a file stream. */
async function protocolStream(fd: number): Promise<Writable> {
  const { fstatSync, createWriteStream } = await import("node:fs");
  const { Socket } = await import("node:net");
  const info = fstatSync(fd);
  if (info.isFIFO() || info.isSocket()) return new Socket({ fd, readable: false, writable: true });
  return createWriteStream("", { fd });
}

/** Stop when the supervisor is gone (killed with SIGKILL, say): this process would be orphaned. */
function watchSupervisor(stop: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      stop();
    }
  }, 1000);
  timer.unref();
}

function integerFlag(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new HermitError("USAGE", `${flag}: '${value}' must be an integer from ${min} to ${max}`, { flag, value });
  }
  return number;
}
