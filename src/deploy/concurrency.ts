/** Pacing the many small file operations of a deploy: bounded parallelism, or synchronous batches. */

/** How many file operations run at once: enough to keep the IO threads busy, few enough for file handles. */
export const FILE_CONCURRENCY = 32;

/** Run `task` over `items` with at most `limit` in flight; rejects with the first failure after all settle. */
export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++];
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

/** How many quick synchronous file operations run between two turns of the event loop. */
const BATCH = 64;

/**
 * Run `task` over `items` one at a time, letting the event loop turn every `BATCH` items: for
 * many small files, synchronous calls cost about half the CPU of the thread pool's round
 * trips, and the pauses keep a host process (the Trainer) responsive meanwhile.
 */
export async function inBatches<T>(items: readonly T[], task: (item: T) => void): Promise<void> {
  for (const [index, item] of items.entries()) {
    if (index > 0 && index % BATCH === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    task(item);
  }
}
