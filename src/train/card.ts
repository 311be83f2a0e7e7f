/**
 * `CARD.md` (pure render): provenance of the trained adapter, an evaluation table per step,
 * base vs final scores on the sealed test split, and the files that changed.
 */
import { SETTINGS } from "./settings/table.js";
import { basename, isAbsolute } from "node:path";
import type { Evaluation, RunRecord, StepRecord } from "./records.js";
import type { FileMap } from "./store.js";
import { describeTotals, describeUsage, emptyUsage, mergeUsage } from "./usage.js";
import { evolverUsage } from "./learner.js";
import { describeAdapterUse } from "./adapter-use.js";

export interface FileChange {
  path: string;
  change: "added" | "modified" | "deleted";
}

/** Files that differ between two recorded trees. Pure. */
export function diffFiles(before: FileMap, after: FileMap): FileChange[] {
  const changes: FileChange[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (!old) changes.push({ path, change: "added" });
    else if (old.oid !== entry.oid || old.mode !== entry.mode) changes.push({ path, change: "modified" });
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push({ path, change: "deleted" });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

export interface CardInput {
  run: RunRecord;
  steps: StepRecord[];
  test: { base: Evaluation; final: Evaluation };
  changes: FileChange[];
  adapterName: string;
  /** The final tag's name. */
  finalTag: string;
}

const short = (oid: string) => oid.slice(0, 12);
const score = (value: number | null) => (value === null ? "—" : value.toFixed(4));
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

export function renderCard(input: CardInput): string {
  const { run, steps, test } = input;
  const s = run.settings;
  const settings = [
    `steps=${s.steps}`,
    `accept=${s.accept}`,
    `margin=${s.margin}`,
    `margin-se=${s.marginSe}`,
    `trials=${s.trials}`,
    `concurrency=${s.concurrency}`,
    `checkpoint-every=${s.checkpointEvery}`,
    `rollout-timeout=${s.rolloutTimeout}s`,
    ...(s.batchSize !== undefined ? [`batch-size=${s.batchSize}`] : []),
    ...(s.maxRollouts !== undefined ? [`max-rollouts=${s.maxRollouts}`] : []),
    ...(s.maxTime !== undefined ? [`max-time=${s.maxTime}s`] : []),
    ...(s.maxTokens !== undefined ? [`max-tokens=${SETTINGS.maxTokens.kind.show(s.maxTokens)}`] : []),
    ...(s.maxCostUsd !== undefined ? [`max-cost-usd=${SETTINGS.maxCostUsd.kind.show(s.maxCostUsd)}`] : []),
    ...(s.learnerModel !== undefined ? [`learner=${s.learnerModel}`] : []),
    ...(s.screen !== undefined ? [`screen=${s.screen ? "on" : "off"}`] : []),
    `retries=${s.retries ?? 0}`,
    ...pluginOptions("evolver", s.evolverOptions),
    ...pluginOptions("task", s.taskOptions),
  ].join(", ");
  const template = `${run.template.name ?? "?"} v${run.template.version ?? "?"}`;
  const baseSource = run.base.from ? `from \`${run.base.from}\`` : `imported from a folder named \`${basename(s.adapter ?? "?")}\``;
  const delta = test.base.score !== null && test.final.score !== null ? test.final.score - test.base.score : null;
  const lines = [
    `# ${input.adapterName}: training card`,
    "",
    `Written by hermit ${run.hermitVersion} at the end of run \`${run.run}\` (${run.status}${run.reason ? `: ${run.reason}` : ""}).`,
    "This file is provenance and evaluation; it is never part of the acting context.",
    "",
    "## Provenance",
    "",
    "| | |",
    "|---|---|",
    `| run | \`${run.run}\`, branch \`${run.branch}\`, final tag \`${input.finalTag}\` |`,
    `| hermit | ${run.hermitVersion} |`,
    `| template | ${cell(template)}, commit \`${short(run.template.commit)}\` (tree \`${short(run.template.tree)}\`) |`,
    `| base | commit \`${short(run.base.commit)}\` (${cell(run.base.adapterName)} ${cell(run.base.adapterVersion)}), ${cell(baseSource)} |`,
    `| final version | commit \`${short(run.accepted.commit)}\`, accepted at step ${run.accepted.step} |`,
    `| task | \`${cell(run.task)}\` |`,
    `| evolver | \`${cell(run.evolver)}\` |`,
    `| seed | ${s.seed} |`,
    `| settings | ${cell(settings)} |`,
    `| rollouts | ${run.rollouts.ran} run, ${run.rollouts.cached} reused from the cache |`,
    `| tokens in / out | ${describeUsage(run.usage, "inputTokens")} / ${describeUsage(run.usage, "outputTokens")} |`,
    `| cost | ${describeUsage(run.usage, "costUsd")} |`,
    ...(s.learnerModel !== undefined ? [`| learner | \`${cell(s.learnerModel)}\`: ${describeTotals(steps.reduce((sum, step) => mergeUsage(sum, evolverUsage(step.evolver)), emptyUsage()))} |`] : []),
    ...actingRow(run),
    "",
    "## Test split (sealed, scored once)",
    "",
    "| version | commit | mean score | measured | missing |",
    "|---|---|---|---|---|",
    `| base | \`${short(test.base.commit)}\` | ${score(test.base.score)} | ${test.base.measured} | ${test.base.missing} |`,
    `| final | \`${short(test.final.commit)}\` | ${score(test.final.score)} | ${test.final.measured} | ${test.final.missing} |`,
    "",
    delta === null ? "Change: not measurable (a version has no measured test score)." : `Change: ${delta >= 0 ? "+" : ""}${delta.toFixed(4)}.`,
    "",
    "## Steps (validation split)",
    "",
    "| step | status | candidate | accepted | commit | summary |",
    "|---|---|---|---|---|---|",
    ...steps.map(
      (step) =>
        `| ${step.step} | ${step.status} | ${score(step.score)} | ${score(step.acceptedScore)} | \`${short(step.commit)}\` | ${cell(step.summary)} |`,
    ),
    ...(steps.length === 0 ? ["| — | no step ran | | | | |"] : []),
    "",
    ...repairSection(steps),
    "## Files changed (base → final version)",
    "",
    ...(input.changes.length === 0 ? ["No file changed."] : input.changes.map((change) => `- ${change.change} \`${change.path}\``)),
    "",
    "The final commit also records `origin` in `adapter.yaml` and adds this `CARD.md`.",
    "",
  ];
  return lines.join("\n");
}

/**
 * A plugin's options for the card. The card travels with the adapter: a path is shown by its
 * last part, never as the path on the machine that trained it.
 */
function pluginOptions(kind: "evolver" | "task", options: Record<string, unknown> | undefined): string[] {
  return Object.entries(options ?? {}).map(([key, value]) => `${kind}.${key}=${typeof value === "string" && isAbsolute(value) ? `…/${basename(value)}` : JSON.stringify(value)}`);
}

/** Per repaired step: what broke the template's specification and what the repair did. */
function repairSection(steps: StepRecord[]): string[] {
  const repaired = steps.filter((step) => step.repair && step.repair.before.length > 0);
  if (repaired.length === 0) return [];
  return [
    "## Repairs",
    "",
    "Candidates that broke the template's specification, and what the Trainer did about it before evaluating them.",
    "",
    "| step | status | issues | repair |",
    "|---|---|---|---|",
    ...repaired.map((step) => {
      const repair = step.repair!;
      const issues = repair.before.map((issue) => `${issue.path}: ${issue.problem}`).join("; ");
      const actions = repair.actions.map((action) => `${action.op} ${action.path}`).join("; ");
      return `| ${step.step} | ${step.status} | ${cell(issues)} | ${cell(actions)}${repair.after.passed ? "" : " (still invalid)"} |`;
    }),
    "",
  ];
}

/** Who acted, and whether it used the adapter, for a run whose task acted through a host. */
function actingRow(run: RunRecord): string[] {
  const use = describeAdapterUse(run.adapterUse);
  const { actorHost, actorModel } = run.settings;
  if (actorHost === undefined && use === undefined) return [];
  const who = actorHost !== undefined ? `${actorHost}${actorModel ? ` on ${actorModel}` : ""}` : "a host";
  return [`| acting | ${cell(`${who}; ${use ?? "no rollout left adapter-use evidence"}`)} |`];
}
