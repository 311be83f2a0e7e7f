/**
 * What a run keeps in memory instead of its records: the rollout cache's index (a hit is read
 * back from `rollouts.jsonl`), and the committed steps' history read back from disk (the last
 * step's learning material, or the step records when that file does not list the steps).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { train } from "../../src/builtins.js";
import { historyEntry } from "../../src/train/learning.js";
import type { StepRecord } from "../../src/train/records.js";
import { RecentCache } from "../../src/train/recent-cache.js";
import { RolloutCache } from "../../src/train/rollouts/cache.js";
import type { RolloutRecord } from "../../src/train/types.js";
import { tempDir } from "../helpers.js";
import { addCheck, addNoise, markerTask, scriptedEvolver, setup } from "./helpers.js";

function rollout(instance: string, fields: Partial<RolloutRecord> = {}): RolloutRecord {
  return { tree: "t1", split: "val", instance, instanceHash: "h", task: "task", trial: 0, status: "ok", attempts: 1, score: 0.5, durationMs: 1, evidenceDir: `/e/${instance}`, ranAt: 1, ...fields };
}
const keyOf = ({ tree, split, instance, instanceHash, task, trial }: RolloutRecord) => ({ tree, split, instance, instanceHash, task, trial });

describe("rollout cache: an index in memory, the records on disk", () => {
  it("reads a hit back whole, in this process and after reopening, and never reuses a failed rollout", async () => {
    const file = join(await tempDir(), "rollouts.jsonl");
    const cache = await RolloutCache.open(file);
    const records = [rollout("a", { feedback: "é ✓ multi-byte text moves the offsets" }), rollout("b", { status: "error", score: null, error: "crashed" }), rollout("c", { trial: 1 })];
    // Appended concurrently, as a batch does: every line's offset must still be its own.
    await Promise.all(records.map((record) => cache.put(record)));
    for (const opened of [cache, await RolloutCache.open(file)]) {
      expect(await opened.get(keyOf(records[0]))).toEqual(records[0]);
      expect(await opened.get(keyOf(records[2]))).toEqual(records[2]);
      expect(await opened.get(keyOf(records[1]))).toBeUndefined();
      expect(await opened.get({ ...keyOf(records[0]), tree: "t2" })).toBeUndefined();
      expect(opened.size).toBe(3);
    }
  });

  it("drops a torn last line, appends after it, and finds nothing where the file no longer holds the key's record", async () => {
    const file = join(await tempDir(), "rollouts.jsonl");
    await writeFile(file, `${JSON.stringify(rollout("a"))}\n{"tree":"t1","spl`);
    const cache = await RolloutCache.open(file);
    expect(cache.size).toBe(1);
    await cache.put(rollout("d"));
    expect(await cache.get(keyOf(rollout("d")))).toEqual(rollout("d"));
    expect((await readFile(file, "utf8")).split("\n").filter(Boolean).map((line) => line.startsWith("{") && line.endsWith("}"))).toEqual([true, false, true]);
    // A file rewritten under the cache: the offset now points at another record, which is not reused for this key.
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace('"instance":"a"', '"instance":"z"'));
    expect(await cache.get(keyOf(rollout("a")))).toBeUndefined();
  });
});

describe("history: read back from disk each step", () => {
  const steps = 5;
  const recorded = async (runDir: string) =>
    Promise.all(Array.from({ length: steps }, async (_, index) => JSON.parse(await readFile(join(runDir, "steps", String(index + 1), "step.json"), "utf8")) as StepRecord));

  it("gives the Evolver every earlier step as recorded, also when a learning material file was damaged", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const { evolver, seen } = scriptedEvolver([
      addCheck,
      addNoise,
      async (context) => {
        // Step 3 damages its own learning material: step 4 must read the step records instead.
        await writeFile(context.learningMaterial.file, "{ not json");
        return addCheck(context);
      },
      async (context) => {
        await writeFile(context.learningMaterial.file, JSON.stringify({ history: [] }));
        return addNoise(context);
      },
      addCheck,
    ]);
    const result = await train({ adapter, template, task, evolver, steps, runsDir, runId: "history" });
    const records = await recorded(result.runDir);
    expect(seen).toHaveLength(steps);
    seen.forEach((material, index) => {
      expect(material.history).toEqual(records.slice(0, index).map(historyEntry));
      const previous = records[index - 1];
      expect(material.repairs.length).toBe(previous?.repair && previous.repair.before.length > 0 ? 1 : 0);
    });
    expect(result.steps.map((step) => [step.step, step.status, step.commit])).toEqual(records.map((record) => [record.step, record.status, record.commit]));
    expect(await readFile(join(result.runDir, "CARD.md"), "utf8")).toContain(records[4].summary);
  });
});

describe("the version store's caches: bounded, most recently used kept", () => {
  it("drops the least recently used entry past its count, and past its bytes", () => {
    let count = 2;
    const cache = new RecentCache<string, string>({ count: () => count, bytes: 10, size: (value) => value.length });
    cache.set("a", "1");
    cache.set("b", "2");
    expect(cache.get("a")).toBe("1");
    cache.set("c", "3");
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    count = 3;
    cache.set("d", "123456789");
    // 1 + 1 + 9 bytes > 10: the least recently used ("a") goes, and then it fits.
    expect([cache.has("a"), cache.has("c"), cache.get("d")]).toEqual([false, true, "123456789"]);
    expect(cache.size).toBe(2);
  });
});
