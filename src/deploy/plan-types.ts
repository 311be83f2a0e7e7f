/** The shape of a deploy (or undeploy) plan: one decision per file, and the drift found. Pure. */
import type { FileIntent, FileOwner } from "../hosts/types.js";
import type { DeploymentNames, DeploymentReport } from "./record.js";

/** `block-edit`: hermit's block in a shared file; `keys-edit`: hermit's entries in a user's JSON config. */
export type ActionKind = "create" | "replace" | "block-edit" | "keys-edit" | "delete" | "unchanged";

/** One decision of the plan. */
export interface PlannedAction {
  path: string;
  action: ActionKind;
  intent: FileIntent;
  owner: FileOwner;
  /** The full bytes to write (create, replace, block-edit). */
  content?: Uint8Array;
  /** The bytes on disk before, kept to roll back a failed apply. */
  previous?: Uint8Array;
  /** The file's mode to write (default 0644); an executable skill file is 0755. */
  mode?: number;
  /** Why, when it is not the plain case (recreated after deletion, forced over a hand edit). */
  note?: string;
}

/** Something in the workspace hermit cannot reconcile without losing someone's work. */
export interface DriftIssue {
  path: string;
  /** 1-based line, for marker problems. */
  line?: number;
  problem: string;
  /** True when `--force` may overwrite it; marker damage, unsafe paths and what hermit cannot prove is its own never are. */
  forceable: boolean;
}

export interface Plan {
  actions: PlannedAction[];
  drift: DriftIssue[];
  /** The report to write (absent for undeploy). */
  record?: DeploymentReport;
  /** Bytes apply writes to the pending report before its first change (deploy only). */
  journal?: Uint8Array;
  /**
   * Paths hermit no longer keeps a file at (deleted now, or already gone, such as files an
   * interrupted deploy never wrote): apply removes the folders above them that are left empty.
   */
  vacated?: string[];
  /** Where the deployment keeps its report and pending report (default: the generated workspace's). */
  names?: DeploymentNames;
  /**
   * Paths whose folders may hold a killed writer's temp files (what a report names, files that
   * exist): apply sweeps those folders and the workspace's top. Default: every folder of the plan.
   */
  sweep?: string[];
}

/** True when applying the plan would write or delete anything. */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.some((action) => action.action !== "unchanged");
}

/** The drift the caller must refuse on: everything unforceable, and the rest unless forced. */
export function blockingDrift(plan: Plan, force: boolean): DriftIssue[] {
  return plan.drift.filter((issue) => !issue.forceable || !force);
}

/** What every planner of one file gets: the mode, the adapter names markers and headers may carry, and where drift goes. */
export interface PlanContext {
  /** Deploying into the user's own project (`--existing`). */
  existing: boolean;
  adapters: readonly string[];
  drift: DriftIssue[];
}
