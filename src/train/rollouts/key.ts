/**
 * What a rollout's result depends on, as its cache key (pure): the adapter tree, the split, the
 * instance (its id and a hash of its content), the task (its name and version, or a hash of its
 * module and options), and the trial. Changing any of them runs the rollout again; a resumed run
 * whose task data changed never reuses an old score.
 */
import { createHash } from "node:crypto";
import type { RolloutKey, TaskInstance } from "../types.js";

export type { RolloutKey };

/** JSON with object keys sorted, so equal content hashes equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const digest = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex").slice(0, 16);

export function instanceHash(instance: TaskInstance): string {
  return digest(canonicalJson(instance));
}

/**
 * The task's identity: `name@version` when the task declares a version; otherwise its name and
 * a hash of its module file (when loaded from one). Its options are part of it either way.
 */
export function taskIdentity(task: { name: string; version?: string }, module: Uint8Array | undefined, options: Record<string, unknown>): string {
  const base = task.version !== undefined ? `${task.name}@${task.version}` : module ? `${task.name}#${digest(module)}` : task.name;
  return Object.keys(options).length > 0 ? `${base}+${digest(canonicalJson(options))}` : base;
}

/** The key as one string (the cache's map key, a queue's job id). */
export function keyString(key: RolloutKey): string {
  return JSON.stringify([key.tree, key.split, key.instance, key.instanceHash, key.task, key.trial]);
}
