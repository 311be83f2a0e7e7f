/** Bounded parallelism for the many small file operations of a deploy. */

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
