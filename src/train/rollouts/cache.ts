/**
 * The rollout cache: finished rollouts in `rollouts.jsonl`, one line each, appended before a
 * rollout counts as done. A rollout that ran to a result (`ok`, its score a number or null) is
 * reused whenever its key (see `key.ts`) comes up again, in this process or after a resume. A
 * rollout that crashed or timed out is recorded (its attempt was paid for) but never reused as a
 * result: the next time its key comes up it runs again.
 *
 * What stays in memory is an index, not the records: for each reusable result, a digest of its
 * key and the byte offset of its line in the file (a hit reads that one line back and checks it
 * is the key's own), plus the run's usage totals. A long run's memory does not grow with the
 * size of its records.
 */
import { createHash } from "node:crypto";
import { appendJsonLine, readJsonLineAt, scanJsonLines } from "../../fs/json.js";
import type { RolloutRecord } from "../types.js";
import { addAdapterUse, emptyAdapterUse, type AdapterUseTotals } from "../adapter-use.js";
import { addUsage, emptyUsage, type UsageTotals } from "../usage.js";
import { keyString, type RolloutKey } from "./key.js";

/** 96 bits of the key's hash: the index's key (a read-back record is checked against the full key). */
function keyDigest(key: RolloutKey): string {
  return createHash("sha256").update(keyString(key)).digest().toString("base64url", 0, 12);
}

export class RolloutCache {
  private totals: UsageTotals = emptyUsage();
  private use: AdapterUseTotals = emptyAdapterUse();
  /** Byte offset of the line of each reusable result, by key digest. */
  private readonly offsets = new Map<string, number>();
  private lines = 0;
  /** The file's size: where the next line starts. */
  private bytes = 0;
  /** Appends one at a time, so each line's offset is known. */
  private appending: Promise<unknown> = Promise.resolve();

  private constructor(private readonly file: string) {}

  /** Index the cache file (a line torn by a crash is dropped: that rollout never finished). */
  static async open(file: string): Promise<RolloutCache> {
    const cache = new RolloutCache(file);
    cache.bytes = await scanJsonLines<RolloutRecord>(file, (record, offset) => {
      if (typeof record?.tree === "string" && typeof record.instance === "string") cache.remember(record, offset);
    });
    return cache;
  }

  private remember(record: RolloutRecord, offset: number): void {
    this.lines += 1;
    this.totals = addUsage(this.totals, record.usage);
    this.use = addAdapterUse(this.use, record.adapterUse);
    if (record.status === "ok") this.offsets.set(keyDigest(record), offset);
  }

  /** The result recorded for `key`, if a rollout with that key ran to one (read back from the file). */
  async get(key: RolloutKey): Promise<RolloutRecord | undefined> {
    const offset = this.offsets.get(keyDigest(key));
    if (offset === undefined) return undefined;
    const record = await readJsonLineAt<RolloutRecord>(this.file, offset);
    return record?.status === "ok" && keyString(record) === keyString(key) ? record : undefined;
  }

  /** Record a finished rollout (appended before it counts). */
  async put(record: RolloutRecord): Promise<void> {
    const append = this.appending.then(async () => {
      const offset = this.bytes;
      this.bytes += await appendJsonLine(this.file, record);
      this.remember(record, offset);
    });
    this.appending = append.catch(() => undefined);
    await append;
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
