/**
 * The rollout cache: finished rollouts in `rollouts.jsonl`, one line each, appended before a
 * rollout counts as done. A rollout that ran to a result (`ok`, its score a number or null) is
 * reused whenever its key (see `key.ts`) comes up again, in this process or after a resume. A
 * rollout that crashed or timed out is recorded (its attempt was paid for) but never reused as a
 * result: the next time its key comes up it runs again.
 */
import { appendJsonLine, readJsonLines, sealJsonLines } from "../../fs/json.js";
import type { RolloutRecord } from "../types.js";
import { addAdapterUse, emptyAdapterUse, type AdapterUseTotals } from "../adapter-use.js";
import { addUsage, emptyUsage, type UsageTotals } from "../usage.js";
import { keyString, type RolloutKey } from "./key.js";

export class RolloutCache {
  private totals: UsageTotals = emptyUsage();
  private use: AdapterUseTotals = emptyAdapterUse();
  private results = new Map<string, RolloutRecord>();
  private lines = 0;

  private constructor(private readonly file: string) {}

  /** Load the cache file (a line torn by a crash is dropped: that rollout never finished). */
  static async open(file: string): Promise<RolloutCache> {
    await sealJsonLines(file);
    const cache = new RolloutCache(file);
    for (const record of await readJsonLines<RolloutRecord>(file)) {
      if (typeof record?.tree === "string" && typeof record.instance === "string") cache.remember(record);
    }
    return cache;
  }

  private remember(record: RolloutRecord): void {
    this.lines += 1;
    this.totals = addUsage(this.totals, record.usage);
    this.use = addAdapterUse(this.use, record.adapterUse);
    if (record.status === "ok") this.results.set(keyString(record), record);
  }

  /** The result recorded for `key`, if a rollout with that key ran to one. */
  get(key: RolloutKey): RolloutRecord | undefined {
    return this.results.get(keyString(key));
  }

  /** Record a finished rollout (appended before it counts). */
  async put(record: RolloutRecord): Promise<void> {
    await appendJsonLine(this.file, record);
    this.remember(record);
  }

  /**
   * Usage reported by every rollout that ran, in any process that worked on the run (the
   * sealed test and rollouts of a step a crash interrupted included: they were paid for).
   */
  get usage(): UsageTotals {
    return this.totals;
  }

  /** Did the acting host use the adapter, over every rollout that ran (as `usage`). */
  get adapterUse(): AdapterUseTotals {
    return this.use;
  }

  /** Rollouts run (every finished attempt series, failed ones included), over every process. */
  get size(): number {
    return this.lines;
  }
}
