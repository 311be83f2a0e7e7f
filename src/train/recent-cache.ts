/**
 * A cache of immutable things that keeps the most recently used ones: bounded by a count (which
 * may follow what the owner learns, e.g. the widest tree seen) and optionally by bytes. The
 * version store keeps its trees, blobs and known object ids in these, so a long run's caches
 * stop growing once they hold its working set (the trees a step exports), whatever the run's
 * length.
 */
export interface RecentLimits<V> {
  /** The most entries kept (asked at each insertion). */
  count: () => number;
  /** The most bytes kept, with `size` telling an entry's bytes. */
  bytes?: number;
  size?: (value: V) => number;
}

export class RecentCache<K, V> {
  private readonly entries = new Map<K, V>();
  private bytes = 0;

  constructor(private readonly limits: RecentLimits<V>) {}

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Keep `value`, dropping the least recently used entries beyond the limits. */
  set(key: K, value: V): void {
    const before = this.entries.get(key);
    if (before !== undefined) {
      this.entries.delete(key);
      this.bytes -= this.sizeOf(before);
    }
    this.entries.set(key, value);
    this.bytes += this.sizeOf(value);
    const count = Math.max(1, this.limits.count());
    const bytes = this.limits.bytes ?? Infinity;
    while (this.entries.size > count || (this.bytes > bytes && this.entries.size > 1)) {
      const [oldest, dropped] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldest);
      this.bytes -= this.sizeOf(dropped);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private sizeOf(value: V): number {
    return this.limits.size ? this.limits.size(value) : 0;
  }
}
