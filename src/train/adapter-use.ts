/**
 * "Did the agent use the adapter", summed over rollouts (pure): how many rollouts acted through
 * a host and left evidence, in how many the host read a deployed skill or called an adapter
 * tool, and how often each skill and tool was used. A rollout without evidence (a task that
 * does not act through a host, or a host that never started) is not counted as "not used".
 */
import type { AdapterUse } from "../acting/types.js";

export interface AdapterUseTotals {
  /** Rollouts that carried adapter-use evidence. */
  rollouts: number;
  /** Of those, how many used the adapter (a skill read or an adapter tool called). */
  used: number;
  /** Rollouts that read each skill, by name. */
  skillsRead: Record<string, number>;
  /** Rollouts that called each adapter tool, by name. */
  toolsCalled: Record<string, number>;
}

export function emptyAdapterUse(): AdapterUseTotals {
  return { rollouts: 0, used: 0, skillsRead: {}, toolsCalled: {} };
}

function tally(counts: Record<string, number>, names: readonly string[]): Record<string, number> {
  const next = { ...counts };
  for (const name of new Set(names)) next[name] = (next[name] ?? 0) + 1;
  return next;
}

/** Add one rollout's evidence (undefined: it had none, and is not counted). */
export function addAdapterUse(totals: AdapterUseTotals, use: AdapterUse | undefined): AdapterUseTotals {
  if (!use) return totals;
  return {
    rollouts: totals.rollouts + 1,
    used: totals.used + (use.used ? 1 : 0),
    skillsRead: tally(totals.skillsRead, use.skillsRead),
    toolsCalled: tally(totals.toolsCalled, use.toolsCalled),
  };
}

/** One line: `adapter used in 3 of 4 rollouts (skill fix-failing-tests 3; tool run_tests 3)`, or undefined without evidence. */
export function describeAdapterUse(totals: AdapterUseTotals | undefined): string | undefined {
  if (!totals || totals.rollouts === 0) return undefined;
  const parts = [
    ...Object.entries(totals.skillsRead).map(([name, count]) => `skill ${name} ${count}`),
    ...Object.entries(totals.toolsCalled).map(([name, count]) => `tool ${name} ${count}`),
  ];
  return `adapter used in ${totals.used} of ${totals.rollouts} acted rollout${totals.rollouts === 1 ? "" : "s"}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}

/** One rollout's evidence as a short phrase: `used (skills: a; tools: b)`, `not used`. */
export function describeRolloutUse(use: AdapterUse | undefined): string {
  if (!use) return "no evidence";
  if (!use.used) return "not used";
  const parts = [use.skillsRead.length > 0 ? `skills: ${use.skillsRead.join(", ")}` : "", use.toolsCalled.length > 0 ? `tools: ${use.toolsCalled.join(", ")}` : ""].filter(Boolean);
  return `used (${parts.join("; ")})`;
}
