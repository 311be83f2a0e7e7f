/** How `hermit train`, `hermit runs list` and `hermit runs show` print their results (pure). */
import type { TrainResult } from "../../train/loop/trainer.js";
import { describeAdapterUse, describeRolloutUse } from "../../train/adapter-use.js";
import { describeDeployment } from "../../train/deployments.js";
import type { RunRecord } from "../../train/records.js";
import type { RunDetails, RunSummary } from "../../train/runs.js";
import type { RolloutRecord } from "../../train/types.js";
import { describeTotals, describeUsage, usageJson, type UsageTotals } from "../../train/usage.js";

const fmt = (score: number | null | undefined) => (score === null || score === undefined ? "—" : score.toFixed(3));

export function trainJson(result: TrainResult) {
  return {
    run: result.run,
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
    runDir: result.runDir,
    acceptedCommit: result.acceptedCommit,
    finalCommit: result.finalCommit,
    finalTag: result.finalTag,
    exported: result.exported,
    steps: result.steps,
    test: { base: result.test.base.score, final: result.test.final.score },
    rollouts: result.rollouts,
    usage: { acting: usageJson(result.usage.acting), learning: usageJson(result.usage.learning), total: usageJson(result.usage.total) },
    deployments: result.deployments,
  };
}

interface StepLine {
  step: number;
  status: string;
  score: number | null;
  acceptedScore?: number | null;
  commit: string;
  summary?: string;
}

function stepLines(steps: StepLine[]): string[] {
  return steps.map(
    (step) =>
      `  ${String(step.step).padStart(4)}  ${step.status.padEnd(10)} ${fmt(step.score).padStart(9)}  ${step.acceptedScore !== undefined ? `${fmt(step.acceptedScore).padStart(8)}  ` : ""}${step.commit.slice(0, 10)}${step.summary ? `  ${step.summary}` : ""}`,
  );
}

export function formatTrain(result: TrainResult): string {
  const { base, final } = result.test;
  const delta = base.score !== null && final.score !== null ? ` (${final.score - base.score >= 0 ? "+" : ""}${(final.score - base.score).toFixed(3)})` : "";
  const count = (status: string) => result.steps.filter((step) => step.status === status).length;
  const lines = [
    `run ${result.run}: ${result.status}${result.reason ? ` (${result.reason})` : ""}`,
    `  steps: ${result.steps.length}: ${count("accepted")} accepted, ${count("rejected")} rejected${["screened-out", "indecisive", "invalid", "failed", "skipped"].map((status) => (count(status) > 0 ? `, ${count(status)} ${status}` : "")).join("")}; rollouts: ${result.rollouts.ran} run, ${result.rollouts.cached} from the cache`,
    `  test score (sealed split): base ${fmt(base.score)} → final ${fmt(final.score)}${delta}`,
    ...usageLines(result.usage),
    `  final version: tag ${result.finalTag} (commit ${result.finalCommit.slice(0, 12)}), exported to ${result.exported}`,
    `  card: ${result.runDir}/CARD.md`,
  ];
  if (result.steps.length > 0) lines.push("", "  step  status     candidate  commit", ...stepLines(result.steps));
  for (const deployment of result.deployments) lines.push(`  ${describeDeployment(deployment)}`);
  return lines.join("\n");
}

export function formatList(list: RunSummary[], runsDir: string): string {
  if (list.length === 0) return `no runs in ${runsDir}`;
  return [
    `${"run".padEnd(28)} ${"status".padEnd(12)} ${"steps".padEnd(7)} ${"val".padStart(6)}  test base → final`,
    ...list.map(
      (item) =>
        `${item.run.padEnd(28)} ${item.status.padEnd(12)} ${`${item.lastStep}/${item.steps}`.padEnd(7)} ${fmt(item.acceptedScore).padStart(6)}  ${item.test ? `${fmt(item.test.base)} → ${fmt(item.test.final)}` : "—"}`,
    ),
  ].join("\n");
}

export function formatShow(details: RunDetails, report: string | undefined, runsDir: string): string {
  const record = details.record;
  const lines = [
    `run ${record.run}: ${details.status}${record.reason ? ` (${record.reason})` : ""}`,
    `  dir: ${details.dir}`,
    `  task: ${record.task}; evolver: ${record.evolver}; seed ${record.settings.seed}; accept ${record.settings.accept} (margin ${record.settings.margin}, margin-se ${record.settings.marginSe}, trials ${record.settings.trials})`,
    `  template: ${record.template.path} (commit ${record.template.commit.slice(0, 12)})`,
    `  base: commit ${record.base.commit.slice(0, 12)}${record.base.from ? ` from ${record.base.from}` : ""}`,
    `  accepted: commit ${record.accepted.commit.slice(0, 12)} (step ${record.accepted.step}, validation ${fmt(record.accepted.score)})`,
    `  steps: ${record.lastStep}/${record.settings.steps}; rollouts: ${record.rollouts.ran} run, ${record.rollouts.cached} from the cache; ${record.elapsedSeconds.toFixed(1)} s`,
    ...(record.settings.learnerModel ? [`  learner: ${record.settings.learnerModel}${record.settings.learnerBaseUrl ? ` at ${record.settings.learnerBaseUrl}` : ""}`] : []),
    ...(record.usageByRole ? [`  usage by role: acting ${describeTotals(record.usageByRole.acting, "rollouts")}`, `                 learning ${describeTotals(record.usageByRole.learning, "Evolver steps")}`] : []),
  ];
  if (record.final) {
    lines.push(`  final: tag ${record.final.tag} (commit ${record.final.commit.slice(0, 12)}); test base ${fmt(record.final.test.base.score)} → final ${fmt(record.final.test.final.score)}`);
  }
  if (record.exported) lines.push(`  exported to ${record.exported}`);
  lines.push(...actingLines(record));
  lines.push(report ? `  report: ${report}` : `  report: none yet (hermit report ${record.run} --runs-dir ${runsDir} writes it)`);
  for (const deployment of record.deployments ?? []) lines.push(`  ${describeDeployment(deployment)}`);
  if (details.stepRecords.length > 0) {
    const steps = details.stepRecords.map((step) => {
      const use = describeAdapterUse(step.adapterUse);
      return use ? { ...step, summary: `${step.summary} [${use}]` } : step;
    });
    lines.push("", "  step  status     candidate  accepted  commit", ...stepLines(steps));
  }
  if (details.rollouts) lines.push("", ...rolloutLines(details.rollouts));
  return lines.join("\n");
}

/** The run's usage, and who acted and whether it used the adapter. */
function actingLines(record: RunRecord): string[] {
  const usage = record.usage;
  const lines = [`  usage: input ${describeUsage(usage, "inputTokens")} tokens, output ${describeUsage(usage, "outputTokens")} tokens, cost ${describeUsage(usage, "costUsd")}`];
  const { actorHost, actorModel } = record.settings;
  const use = describeAdapterUse(record.adapterUse);
  if (actorHost !== undefined || use !== undefined) {
    lines.push(`  acting: ${actorHost !== undefined ? `${actorHost}${actorModel ? ` on ${actorModel}` : ""}` : "through a host"}; ${use ?? "no rollout left adapter-use evidence"}`);
  }
  return lines;
}

const count = (value: number | undefined) => (value === undefined ? "?" : String(value));

/** One line per rollout: where it ran, how it ended, whether the host used the adapter, its usage (or why it is unknown). */
function rolloutLines(rollouts: RolloutRecord[]): string[] {
  if (rollouts.length === 0) return ["  rollouts: none yet"];
  return [
    `  rollouts (${rollouts.length}): step  split  instance  trial  status  score  adapter  tokens in/out  cost`,
    ...rollouts.map((rollout) => {
      const cost = rollout.usage?.costUsd !== undefined ? `$${rollout.usage.costUsd.toFixed(4)}` : "cost unknown";
      const tokens = rollout.usage ? `${count(rollout.usage.inputTokens)}/${count(rollout.usage.outputTokens)} tokens` : "tokens unknown";
      const why = rollout.usageUnknown ? ` (${rollout.usageUnknown})` : "";
      const error = rollout.status === "ok" ? "" : `: ${(rollout.error ?? "").split("\n")[0]}`;
      return `    ${String(rollout.ranAt).padStart(5)}  ${rollout.split.padEnd(5)}  ${rollout.instance}  #${rollout.trial}  ${rollout.status}${error}  ${fmt(rollout.score)}  adapter ${describeRolloutUse(rollout.adapterUse)}  ${tokens}  ${cost}${why}`;
    }),
  ];
}

/** Usage lines: acting, learning (with its calls) and the total; unknown figures say so. */
function usageLines(usage: { acting: UsageTotals; learning: UsageTotals; total: UsageTotals }): string[] {
  return [`  usage: acting ${describeTotals(usage.acting, "rollouts")}`, `         learning ${describeTotals(usage.learning, "Evolver steps")}`, `         total ${describeTotals(usage.total, "rollouts and Evolver steps")}`];
}
