/**
 * `hermit train`, `hermit runs list`, `hermit runs show`: flags in, library call, formatted
 * result out. The work is in `src/train/`.
 */
import type { Command } from "commander";
import { ExitCode, HermitError } from "../../errors.js";
import { formatList, formatShow, formatTrain, trainJson } from "./train-format.js";
import type { CommandRegistration } from "../output.js";
import { addSettingFlags, settingsFromFlags } from "../setting-flags.js";


interface TrainFlags {
  config?: string;
  dryRun?: boolean;
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
        "CARD.md, and optional deploys. The run report runs/<id>/report.html is rewritten after every step (see hermit report).\n" +
        "Every setting can also come from --config run.yaml (see docs/trainer.md for its keys); flags override it.\n" +
        "Exit 0 when the run ended (completed, stopped by the Evolver, or a budget reached), 1 when no step succeeded, a deploy failed or the run was interrupted (Ctrl-C; it says how to resume), 2 bad input.",
    )
    .option("--config <file>", "YAML file with the settings below (relative paths are relative to it)")
    .option("--resume <run-id>", "continue a run after a crash (or with more --steps) from its last committed step")
    .option("--dry-run", "check every input (settings, plugins, splits, the learner's key and price) and print the plan — splits, rollouts per step, steps, budgets — and what can be estimated; write and run nothing")
    .option("--json", "print one JSON document: { run, status, runDir, acceptedCommit, finalTag, steps, usage, … }");
  const attributes = addSettingFlags(command);
  command.action(async (flags: TrainFlags) =>
    run(Boolean(flags.json), async () => {
      const [{ train, planTrain }, { createProgress }] = await Promise.all([import("../../builtins.js"), import("../../train/progress.js")]);
      const settings = settingsFromFlags(flags, attributes);
      if (flags.dryRun) {
        if (flags.resume) throw new HermitError("USAGE", "--dry-run plans a new run; it does not take --resume");
        const { formatPlan } = await import("../../train/loop/plan.js");
        const plan = await planTrain({ ...settings, config: flags.config, source: "flags" });
        return { exitCode: ExitCode.ok, json: plan, text: formatPlan(plan) };
      }
      const stop = stopOnInterrupt();
      try {
        const result = await train({ ...settings, config: flags.config, resume: flags.resume, source: "flags", progress: createProgress(), signal: stop.signal });
        const failed = result.status === "failed" || result.deployments.some((deployment) => deployment.error);
        return { exitCode: failed ? ExitCode.problems : ExitCode.ok, json: trainJson(result), text: formatTrain(result) };
      } finally {
        stop.dispose();
      }
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
    .option("--rollouts", "also list every rollout: split, instance, status, score, whether the acting host used the adapter, usage and cost (or why unknown)")
    .option("--json", "print run.json and the step records as JSON (with --rollouts, the rollout records too)")
    .action(async (runId: string, options: { runsDir: string; json?: boolean; rollouts?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { showRun } = await import("../../train/runs.js");
        const details = await showRun(resolve(options.runsDir), runId, { rollouts: Boolean(options.rollouts) });
        const report = await reportPath(details.dir);
        return {
          exitCode: ExitCode.ok,
          json: { run: details.record, steps: details.stepRecords, status: details.status, report: report ?? null, ...(details.rollouts ? { rollouts: details.rollouts } : {}) },
          text: formatShow(details, report, options.runsDir),
        };
      }),
    );
};

/**
 * Ctrl-C stops the run after its last committed step (the error then says how to resume it); a
 * second Ctrl-C ends the process at once.
 */
function stopOnInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) {
      process.off("SIGINT", onInterrupt);
      process.kill(process.pid, "SIGINT");
      return;
    }
    process.stderr.write("\nhermit train: interrupted; stopping after the rollouts in flight (Ctrl-C again to quit at once)\n");
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onInterrupt);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onInterrupt);
      // The run is saved; a rollout the task left running must not keep the process alive.
      if (controller.signal.aborted) setTimeout(() => process.exit(), 2_000).unref();
    },
  };
}

/** The run's `report.html`, when the Trainer (or `hermit report`) has written one. */
async function reportPath(dir: string): Promise<string | undefined> {
  const { join } = await import("node:path");
  const { stat } = await import("node:fs/promises");
  const { REPORT_FILE } = await import("../../report/write.js");
  const file = join(dir, REPORT_FILE);
  return (await stat(file).catch(() => undefined))?.isFile() ? file : undefined;
}
