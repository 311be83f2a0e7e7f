/**
 * Check and repair: the candidate as the Evolver left it is recorded, checked against the
 * template (a tree is checked once per run), and repaired when it fails. A repair that cannot
 * make it pass leaves the step `invalid`. Records go to `steps/<n>/check.json` and `repair.json`.
 */
import { join } from "node:path";
import { checkSpec } from "../../check/check.js";
import { repairCandidate, type RepairRecord } from "../../check/repair.js";
import type { SpecResult } from "../../check/types.js";
import { writeJson } from "../../fs/json.js";
import type { RunEnvironment } from "./run-state.js";

export interface VettedCandidate {
  /** The tree the Evolver left. */
  raw: string;
  /** The tree to evaluate: `raw`, or the repaired one. */
  tree: string;
  check?: SpecResult;
  repair?: RepairRecord;
  /** The repair could not make it pass. */
  invalid: boolean;
  /** Nothing changed: there is no candidate to evaluate. */
  unchanged: boolean;
}

/** Record the candidate; check and repair it unless its Evolver did not finish or it equals the accepted version. */
export async function vetCandidate(env: RunEnvironment, acceptedTree: string, evolverDone: boolean, stepDir: string): Promise<VettedCandidate> {
  const { store, paths } = env;
  const raw = (await store.writeDirectory(paths.candidate)).tree;
  const vetted: VettedCandidate = { raw, tree: raw, invalid: false, unchanged: raw === acceptedTree };
  if (!evolverDone || vetted.unchanged) return vetted;
  const check = env.checks.get(raw) ?? (await checkSpec(paths.candidate, paths.root, { manifestErrors: "issue" }));
  env.checks.set(raw, check);
  await writeJson(join(stepDir, "check.json"), check);
  if (check.passed) return { ...vetted, check };
  const repair = await repairCandidate(paths.candidate, paths.root, paths.rolloutAdapter, { checked: check });
  await writeJson(join(stepDir, "repair.json"), repair);
  if (!repair.after.passed) return { ...vetted, check, repair, invalid: true };
  return { ...vetted, check, repair, tree: (await store.writeDirectory(paths.candidate)).tree };
}
