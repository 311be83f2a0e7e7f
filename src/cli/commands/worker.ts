/**
 * `hermit worker`: take rollout jobs from a queue (`hermit train --executor redis://…`) and run
 * them here. Runs until SIGTERM/SIGINT: the first finishes the rollouts in hand and stops, a
 * second leaves them (BullMQ hands them to another worker once their lock runs out). The work is
 * in `src/executors/queue/worker.ts`.
 */
import type { Command } from "commander";
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { ExitCode, HermitError } from "../../errors.js";
import { log, type CommandRegistration } from "../output.js";

interface WorkerFlags {
  redis: string;
  queue?: string;
  concurrency: string;
  stallTimeout: string;
}

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("worker")
    .summary("Run rollouts from a training queue (hermit train --executor redis://…)")
    .description(
      "Take rollout jobs from a BullMQ queue on Redis and run them here, with the same rollout code as an in-process run " +
        "(sessions, sandbox, real hosts). The task each job names must load here: a built-in name, a module path that exists " +
        "on this machine, or an installed package; the adapter version travels in the job. The Redis password comes from " +
        "HERMIT_REDIS_PASSWORD, never the URL. Progress and errors on stderr. Runs until SIGTERM or SIGINT: the first finishes " +
        "the rollouts in hand, a second leaves them to other workers. Only run workers you trust with the adapters' code (docs/queue.md).\n" +
        "Exit 0 after a clean stop, 1 when Redis cannot be reached, 2 bad input.",
    )
    .requiredOption("--redis <url>", "the queue: redis://[user@]host:port[/db][?queue=NAME], as given to hermit train --executor")
    .option("--queue <name>", "queue name (default: the URL's ?queue=, else hermit-rollouts)")
    .option("--concurrency <n>", "rollouts run at once", "4")
    .option("--stall-timeout <duration>", "a job whose worker stops renewing its lock for this long goes to another worker (seconds, or 500ms, 90s, 2m)", "30s")
    .action(async (flags: WorkerFlags) =>
      run(false, async () => {
        const concurrency = Number(flags.concurrency);
        if (!/^\d+$/.test(flags.concurrency) || concurrency < 1 || concurrency > 1000) {
          throw new HermitError("USAGE", `--concurrency: '${flags.concurrency}' must be a whole number from 1 to 1000`, { flag: "--concurrency" });
        }
        const stallSeconds = parseDuration(flags.stallTimeout);
        if (stallSeconds === undefined || stallSeconds < 0.5) {
          throw new HermitError("USAGE", `--stall-timeout: '${flags.stallTimeout}' must be ${DURATION_HINT}, at least 500ms`, { flag: "--stall-timeout" });
        }
        const [{ startWorker }, { builtinPlugins }] = await Promise.all([import("../../executors/queue/worker.js"), import("../../builtins.js")]);
        const worker = await startWorker({ url: flags.redis, queue: flags.queue, concurrency, stallSeconds, catalog: builtinPlugins, cwd: process.cwd(), log });
        await new Promise<void>((resolve) => {
          let signals = 0;
          const stop = () => {
            signals += 1;
            log(signals === 1 ? `hermit worker ${worker.name}: stopping after the rollouts in hand (signal again to leave them to other workers)` : `hermit worker ${worker.name}: leaving the rollouts in hand`);
            void worker.close(signals > 1).then(resolve, resolve);
          };
          process.on("SIGINT", stop).on("SIGTERM", stop);
        });
        log(`hermit worker ${worker.name}: stopped`);
        return { exitCode: ExitCode.ok };
      }),
    );
};
