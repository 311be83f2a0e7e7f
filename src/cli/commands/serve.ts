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

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("serve")
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
        const { serveAdapter } = await import("../../runtime/serve.js");
        const server = await serveAdapter({
          adapter: flags.adapter,
          http: flags.http === undefined ? undefined : integerFlag("--http", flags.http, 0, 65_535),
          auditLog: flags.auditLog,
          resourcesFile: flags.resources,
          timeoutMs: integerFlag("--timeout-ms", flags.timeoutMs, 1, 2_147_483_647),
          log: flags.quiet ? () => {} : undefined,
        });
        const stop = () => void server.close();
        process.once("SIGINT", stop).once("SIGTERM", stop);
        await server.closed;
        process.off("SIGINT", stop).off("SIGTERM", stop);
        return { exitCode: ExitCode.ok };
      }),
    );
};

function integerFlag(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new HermitError("USAGE", `${flag}: '${value}' must be an integer from ${min} to ${max}`, { flag, value });
  }
  return number;
}
