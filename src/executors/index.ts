/**
 * Executors that run rollouts elsewhere than the Trainer's process, by `--executor` URL scheme
 * (handed to the Trainer by src/builtins.ts; `local` is the Trainer's own). Loaded lazily: a
 * run with the local executor never loads BullMQ.
 */
import type { RemoteExecutorFactory } from "../train/rollouts/executor.js";

const queueExecutor = async (): Promise<RemoteExecutorFactory> => (await import("./queue/executor.js")).createQueueExecutor;

export const builtinExecutors: Record<string, () => Promise<RemoteExecutorFactory>> = { redis: queueExecutor, rediss: queueExecutor };
