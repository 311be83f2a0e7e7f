/**
 * The in-process executor: jobs run in this process on a p-queue bounded by `--concurrency`
 * (shared by every batch of the run), each attempt bounded by its time limit, a crashed or
 * timed-out attempt retried up to `job.retries` times before the rollout counts as missing.
 */
import PQueue from "p-queue";
import type { RolloutRecord, Task, Usage } from "../types.js";
import { attemptsUsage } from "../usage.js";
import type { RolloutServices } from "./context.js";
import type { RolloutExecutor, RolloutJob } from "./executor.js";
import { runAttempt } from "./run-attempt.js";

export interface LocalExecutorOptions {
  task: Task;
  concurrency: number;
  services: RolloutServices;
  /** Aborting it stops every job; unfinished rollouts are not recorded. */
  signal: AbortSignal;
}

export function createLocalExecutor(options: LocalExecutorOptions): RolloutExecutor {
  const queue = new PQueue({ concurrency: options.concurrency });
  return {
    run: (job) => queue.add(() => runWithRetries(options.task, options.services, options.signal, job)) as Promise<RolloutRecord>,
    async close() {
      queue.clear();
      await queue.onIdle();
    },
  };
}

/**
 * Run `job` to its record: attempts until one is `ok` or `job.retries` more have failed. The same
 * code runs a rollout in the Trainer's process and in `hermit worker`.
 */
export async function runWithRetries(task: Task, services: RolloutServices, signal: AbortSignal, job: RolloutJob): Promise<RolloutRecord> {
  const retried: string[] = [];
  const usages: Array<Usage | undefined> = [];
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    const result = await runAttempt(task, job, services, signal);
    usages.push(result.usage);
    if (result.status === "ok" || attempt > job.retries) {
      const { usage: _last, usageUnknown, ...rest } = result;
      const summed = attemptsUsage(usages);
      const unknown = [usageUnknown, summed.unknown].filter(Boolean).join("; ");
      return {
        ...job.key,
        ...rest,
        ...(summed.usage ? { usage: summed.usage } : {}),
        ...(unknown ? { usageUnknown: unknown } : {}),
        attempts: attempt,
        ...(retried.length > 0 ? { retried } : {}),
        evidenceDir: job.evidenceDir,
        ranAt: job.step,
      };
    }
    retried.push(`${result.status}: ${result.error ?? ""}`.trim());
  }
}
