/** What deploy and undeploy return, and how drift becomes a refusal. */
import { HermitError } from "../errors.js";
import type { FileIntent } from "../hosts/types.js";
import { blockingDrift, type ActionKind, type DriftIssue, type Plan } from "./plan-types.js";
import type { DeploymentReport } from "./record.js";

/** One line of the plan as reported. */
export interface ActionSummary {
  path: string;
  action: ActionKind;
  /** `block` for a managed block inside a shared file, `keys` for hermit's entries in a user's config file. */
  intent: FileIntent;
  note?: string;
}

/** What `deploy` and `undeploy` return. */
export interface DeployResult {
  /** The deployment's host (empty when an undeploy found only what a killed deploy left). */
  host: string;
  /** Absolute real path of the workspace. */
  workspace: string;
  dryRun: boolean;
  /** True when the plan wrote (or, dry, would write) anything. */
  changed: boolean;
  actions: ActionSummary[];
  /** Drift that `--force` overrode (empty unless forced). */
  forced: DriftIssue[];
  written: string[];
  deleted: string[];
  /** The deployment report (as written to its report file); absent for undeploy. */
  report?: DeploymentReport;
}

function describeDrift(workspace: string, issues: readonly DriftIssue[]): string {
  return issues.map((issue) => `  ${workspace}/${issue.path}${issue.line ? `:${issue.line}` : ""}: ${issue.problem}`).join("\n");
}

/** DRIFT (exit 3) when the plan has drift that `force` does not override. */
export function refuseDrift(workspace: string, plan: Plan, force: boolean): void {
  const blocking = blockingDrift(plan, force);
  if (blocking.length === 0) return;
  const forceable = blocking.every((issue) => issue.forceable);
  throw new HermitError(
    "DRIFT",
    `${workspace}: drift refused, nothing written:\n${describeDrift(workspace, blocking)}\n` +
      (forceable
        ? "Keep your edits in the adapter instead, or rerun with --force to overwrite them."
        : "Repair these by hand (restore the markers or the files, move away what is yours); --force does not override them."),
    { path: workspace, drift: blocking },
  );
}

export function summarize(plan: Pick<Plan, "actions">): ActionSummary[] {
  return plan.actions.map((action) => ({ path: action.path, action: action.action, intent: action.intent, ...(action.note ? { note: action.note } : {}) }));
}

