/**
 * `hermit train`, `hermit runs list`, `hermit runs show`: flags in, library call, formatted
 * result out. The work is in `src/train/`.
 */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import type { TrainResult } from "../../train/loop/trainer.js";
import type { RunDetails, RunSummary } from "../../train/runs.js";
import type { CommandRegistration } from "../program.js";
import { addSettingFlags, settingsFromFlags } from "../setting-flags.js";

const fmt = (score: number | null | undefined) => (score === null || score === undefined ? "—" : score.toFixed(3));

interface TrainFlags {
  config?: string;
  resume?: string;
  json?: boolean;
  [key: string]: unknown;
}

export const register: CommandRegistration = (program: Command, run) => {
  const command = program
    .command("train")
    .summary("Train an adapter: rollouts, Evolver, check and repair, accept, commit")
    .description(
      "Train an adapter: run scored rollouts with the accepted version, let an Evolver edit a candidate, " +
        "check and repair it against the template, accept or reject it on the validation split, and commit every " +
        "candidate to a Git version store. Ends with the sealed test split scored for the base and final versions, " +
        "CARD.md, and optional deploys.\n" +
        "Every setting can also come from --config run.yaml (see docs/trainer.md for its keys); flags override it.\n" +
        "Exit 0 when the run ended (completed, stopped by the Evolver, or a budget reached), 1 when a deploy failed, 2 bad input.",
    )
    .option("--config <file>", "YAML file with the settings below (relative paths are relative to it)")
    .option("--resume <run-id>", "continue a run after a crash (or with more --steps) from its last committed step")
    .option("--json", "print one JSON document: { run, status, runDir, acceptedCommit, finalTag, steps, … }");
  const attributes = addSettingFlags(command);
  command.action(async (flags: TrainFlags) =>
    run(Boolean(flags.json), async () => {
      const [{ train }, { createProgress }] = await Promise.all([import("../../builtins.js"), import("../../train/progress.js")]);
      const settings = settingsFromFlags(flags, attributes);
      const result = await train({ ...settings, config: flags.config, resume: flags.resume, source: "flags", progress: createProgress() });
      const failedDeploys = result.deployments.filter((deployment) => deployment.error);
      return {
        exitCode: failedDeploys.length > 0 ? ExitCode.problems : ExitCode.ok,
        json: trainJson(result),
        text: formatTrain(result),
      };
    }),
  );

  const runs = program.command("runs").summary("List and inspect training runs").description("List and inspect training runs.");
  runs
    .command("list")
    .description("List the runs in a runs directory, newest first.")
    .option("--runs-dir <dir>", "where runs live", "runs")
    .option("--json", "print the list as JSON")
    .action(async (options: { runsDir: string; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { listRuns } = await import("../../train/runs.js");
        const list = await listRuns(resolve(options.runsDir));
        return { exitCode: ExitCode.ok, json: list, text: formatList(list, options.runsDir) };
      }),
    );
  runs
    .command("show")
    .description("Show one run: settings, steps with scores and commits, test scores, final tag.")
    .argument("<run-id>", "the run")
    .option("--runs-dir <dir>", "where runs live", "runs")
    .option("--json", "print run.json and the step records as JSON")
    .action(async (runId: string, options: { runsDir: string; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { showRun } = await import("../../train/runs.js");
        const details = await showRun(resolve(options.runsDir), runId);
        const report = await reportPath(details.dir);
        return {
          exitCode: ExitCode.ok,
          json: { run: details.record, steps: details.stepRecords, status: details.status, report: report ?? null },
          text: formatShow(details, report, options.runsDir),
        };
      }),
    );
};

export function trainJson(result: TrainResult) {
  return {
    run: result.run,
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
    runDir: result.runDir,
    acceptedCommit: result.acceptedCommit,
    finalCommit: result.finalCommit,
    finalTag: result.finalTag,
    steps: result.steps,
    test: { base: result.test.base.score, final: result.test.final.score },
    rollouts: result.rollouts,
    deployments: result.deployments,
  };
}

function stepLines(steps: Array<{ step: number; status: string; score: number | null; acceptedScore?: number | null; commit: string; summary?: string }>): string[] {
  return steps.map(
    (step) =>
      `  ${String(step.step).padStart(4)}  ${step.status.padEnd(10)} ${fmt(step.score).padStart(9)}  ${step.acceptedScore !== undefined ? `${fmt(step.acceptedScore).padStart(8)}  ` : ""}${step.commit.slice(0, 10)}${step.summary ? `  ${step.summary}` : ""}`,
  );
}

export function formatTrain(result: TrainResult): string {
  const { base, final } = result.test;
  const delta = base.score !== null && final.score !== null ? ` (${final.score - base.score >= 0 ? "+" : ""}${(final.score - base.score).toFixed(3)})` : "";
  const lines = [
    `run ${result.run}: ${result.status}${result.reason ? ` (${result.reason})` : ""}`,
    `  steps: ${result.steps.length}, accepted: ${result.steps.filter((s) => s.status === "accepted").length}; rollouts: ${result.rollouts.ran} run, ${result.rollouts.cached} from the cache`,
    `  test score (sealed split): base ${fmt(base.score)} → final ${fmt(final.score)}${delta}`,
    `  final version: tag ${result.finalTag} (commit ${result.finalCommit.slice(0, 12)}), files in ${result.runDir}/checkout`,
    `  card: ${result.runDir}/CARD.md`,
  ];
  if (result.steps.length > 0) lines.push("", "  step  status     candidate  commit", ...stepLines(result.steps));
  for (const deployment of result.deployments) {
    lines.push(deployment.error ? `  deploy ${deployment.host} → ${deployment.workspace}: FAILED: ${deployment.error}` : `  deployed ${deployment.host} → ${deployment.workspace}${deployment.changed ? "" : " (already up to date)"}`);
  }
  return lines.join("\n");
}

function formatList(list: RunSummary[], runsDir: string): string {
  if (list.length === 0) return `no runs in ${runsDir}`;
  return [
    `${"run".padEnd(28)} ${"status".padEnd(12)} ${"steps".padEnd(7)} ${"val".padStart(6)}  test base → final`,
    ...list.map(
      (item) =>
        `${item.run.padEnd(28)} ${item.status.padEnd(12)} ${`${item.lastStep}/${item.steps}`.padEnd(7)} ${fmt(item.acceptedScore).padStart(6)}  ${item.test ? `${fmt(item.test.base)} → ${fmt(item.test.final)}` : "—"}`,
    ),
  ].join("\n");
}

/** The run's `report.html`, when the Trainer (or `hermit report`) has written one. */
async function reportPath(dir: string): Promise<string | undefined> {
  const { join } = await import("node:path");
  const { stat } = await import("node:fs/promises");
  const { REPORT_FILE } = await import("../../report/write.js");
  const file = join(dir, REPORT_FILE);
  return (await stat(file).catch(() => undefined))?.isFile() ? file : undefined;
}

function formatShow(details: RunDetails, report: string | undefined, runsDir: string): string {
  const record = details.record;
  const lines = [
    `run ${record.run}: ${details.status}${record.reason ? ` (${record.reason})` : ""}`,
    `  dir: ${details.dir}`,
    `  task: ${record.task}; evolver: ${record.evolver}; seed ${record.settings.seed}; accept ${record.settings.accept} (margin ${record.settings.margin}, margin-se ${record.settings.marginSe}, trials ${record.settings.trials})`,
    `  template: ${record.template.path} (commit ${record.template.commit.slice(0, 12)})`,
    `  base: commit ${record.base.commit.slice(0, 12)}${record.base.from ? ` from ${record.base.from}` : ""}`,
    `  accepted: commit ${record.accepted.commit.slice(0, 12)} (step ${record.accepted.step}, validation ${fmt(record.accepted.score)})`,
    `  steps: ${record.lastStep}/${record.settings.steps}; rollouts: ${record.rollouts.ran} run, ${record.rollouts.cached} from the cache; ${record.elapsedSeconds.toFixed(1)} s`,
  ];
  if (record.final) {
    lines.push(`  final: tag ${record.final.tag} (commit ${record.final.commit.slice(0, 12)}); test base ${fmt(record.final.test.base.score)} → final ${fmt(record.final.test.final.score)}`);
  }
  lines.push(report ? `  report: ${report}` : `  report: none yet (hermit report ${record.run} --runs-dir ${runsDir} writes it)`);
  if (details.stepRecords.length > 0) lines.push("", "  step  status     candidate  accepted  commit", ...stepLines(details.stepRecords));
  return lines.join("\n");
}
