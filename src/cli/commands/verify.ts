/**
 * `hermit verify`: flags in, `verifyWorkspace` call, the table or the JSON document out. The
 * work is in `src/verify/`. Ctrl-C (or SIGTERM) stops the host and cleans up before hermit
 * exits by the same signal.
 */
import type { Command } from "commander";
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { ExitCode, HermitError } from "../../errors.js";
import type { CommandRegistration } from "../output.js";
import { SELECT_HELP } from "./deploy.js";

const DEFAULT_TIMEOUT_SECONDS = 90;

function seconds(value: string): number {
  const parsed = parseDuration(value);
  if (parsed === undefined) throw new HermitError("USAGE", `--timeout must be ${DURATION_HINT}, not '${value}'`, { option: "timeout", value });
  return parsed;
}

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("verify")
    .summary("Prove that the real host discovers every export of a workspace")
    .description(
      "Prove that the real host program discovers every export of a deployed workspace: start a stub model on " +
        "127.0.0.1, run the host once against it in an isolated temporary home (HOME, CODEX_HOME, " +
        "PI_CODING_AGENT_DIR, XDG dirs, TMPDIR) where the report's activation steps are performed, and read " +
        "from its requests (and its own listing commands) whether it saw the context block, each skill, each " +
        "subagent and each tool. Your own host configuration is never touched.\n" +
        "Exit 0 every guaranteed item discovered, 1 something missing, 2 bad input or host program not installed.",
    )
    .requiredOption("--workspace <dir>", "workspace deployed with `hermit deploy` (holds .hermit-deploy.json)")
    .option("--host <host>", SELECT_HELP.host)
    .option("--name <adapter>", SELECT_HELP.name)
    .option("--host-bin <path>", "the host executable to run (default: found on PATH)")
    .option("--timeout <duration>", "time limit of the host run (seconds, or 90s, 10m)", String(DEFAULT_TIMEOUT_SECONDS))
    .option("--exercise-tools", "also have the stub model call each adapter tool once, and check that the call reached hermit's server and its result came back to the model")
    .option("--keep", "keep the temporary home (with the recorded requests and the host output) and print its path")
    .option("--json", "print { host, hostVersion, passed, items: [{ kind, name, discovered, evidence, … }], … } as JSON")
    .action(async (options: { workspace: string; host?: string; name?: string; hostBin?: string; timeout: string; keep?: boolean; exerciseTools?: boolean; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { verifyWorkspace } = await import("../../verify/verify.js");
        const { formatVerifyReport } = await import("../../verify/format.js");
        const controller = new AbortController();
        let received: NodeJS.Signals | undefined;
        const onSignal = (signal: NodeJS.Signals) => {
          received = signal;
          process.stderr.write(`hermit verify: ${signal}: stopping the host and cleaning up…\n`);
          controller.abort();
        };
        process.once("SIGINT", onSignal);
        process.once("SIGTERM", onSignal);
        try {
          const timeoutMs = seconds(options.timeout) * 1000;
          const report = await verifyWorkspace({
            workspace: options.workspace,
            host: options.host,
            name: options.name,
            ...(options.hostBin !== undefined ? { hostBin: options.hostBin } : {}),
            keep: Boolean(options.keep),
            exerciseTools: Boolean(options.exerciseTools),
            timeoutMs,
            signal: controller.signal,
            log: (line) => process.stderr.write(`${line}\n`),
          });
          return { exitCode: report.passed ? ExitCode.ok : ExitCode.problems, json: report, text: formatVerifyReport(report) };
        } finally {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
          // Everything is stopped and removed; leave the way an interrupted program does.
          if (received) process.kill(process.pid, received);
        }
      }),
    );
};
