/**
 * `reflect`'s memory (`workspace/state/reflect.json`), kept across steps and restored by the
 * Trainer after a crash: the versions it knows the text of (programs), which step evaluated
 * which, what it tried, and the last proposal that was not adopted.
 */
import { join } from "node:path";
import { readJson, writeJson } from "../../fs/json.js";
import type { Program } from "./pareto.js";

export interface KnownProgram extends Program {
  /** The version's commit, once known (the base's from step 1, a step's from its history entry). */
  commit?: string;
  /** The step that proposed it (none for the base). */
  step?: number;
  /** Paths it changed from its parent. */
  changed: string[];
  /** Its step's status, once the next step's history tells it. */
  outcome?: string;
  /** True when the Trainer had to repair it: its scores belong to another text. */
  repaired?: boolean;
}

export interface ReflectState {
  version: 1;
  programs: KnownProgram[];
  /** Which program was the accepted version at each step (its validation scores belong to it). */
  acceptedAt: Record<string, string>;
  /** The last component each step worked on, for round-robin. */
  lastComponent?: string;
  /** Merges tried (`a+b@ancestor`). */
  merges: string[];
  /** The last proposal that was not adopted, and why; the next prompt says so. */
  lastFailure?: { step: number; component: string; reason: string };
}

const FILE = "reflect.json";

export async function loadState(dir: string): Promise<ReflectState> {
  const stored = await readJson<ReflectState>(join(dir, FILE), "RUN_INVALID");
  return stored?.version === 1 ? stored : { version: 1, programs: [], acceptedAt: {}, merges: [] };
}

export async function saveState(dir: string, state: ReflectState): Promise<void> {
  await writeJson(join(dir, FILE), state);
}
