/**
 * The rollout cache: finished rollouts keyed by (adapter tree, split, instance, trial), kept
 * in `rollouts.jsonl`. A version is never run twice on the same instance and trial, and a
 * resumed run reuses every rollout that finished before the crash.
 */
import { appendJsonLine, readJsonLines, sealJsonLines } from "../fs/json.js";
import type { RolloutRecord, Split } from "./types.js";
import { addUsage, emptyUsage, type UsageTotals } from "./usage.js";

export interface RolloutKey {
  tree: string;
  split: Split;
  instance: string;
  trial: number;
}

export function cacheKey(key: RolloutKey): string {
  return JSON.stringify([key.tree, key.split, key.instance, key.trial]);
}

export class RolloutCache {
  private totals: UsageTotals = emptyUsage();

  private constructor(
    private readonly file: string,
    private readonly records: Map<string, RolloutRecord>,
  ) {
    for (const record of records.values()) this.totals = addUsage(this.totals, record.usage);
  }

  /** Load the cache file (a line torn by a crash is dropped: that rollout never finished). */
  static async open(file: string): Promise<RolloutCache> {
    await sealJsonLines(file);
    const records = new Map<string, RolloutRecord>();
    for (const record of await readJsonLines<RolloutRecord>(file)) {
      if (typeof record?.tree === "string" && typeof record.instance === "string") records.set(cacheKey(record), record);
    }
    return new RolloutCache(file, records);
  }

  get(key: RolloutKey): RolloutRecord | undefined {
    return this.records.get(cacheKey(key));
  }

  /** Record a finished rollout (appended before it counts as done). */
  async put(record: RolloutRecord): Promise<void> {
    await appendJsonLine(this.file, record);
    if (!this.records.has(cacheKey(record))) this.totals = addUsage(this.totals, record.usage);
    this.records.set(cacheKey(record), record);
  }

  /**
   * Usage reported by every rollout that ran, in any process that worked on the run (the
   * sealed test and rollouts of a step a crash interrupted included: they were paid for).
   */
  get usage(): UsageTotals {
    return this.totals;
  }

  get size(): number {
    return this.records.size;
  }

  all(): RolloutRecord[] {
    return [...this.records.values()];
  }
}
