/** `hermit report <run-id>`: one self-contained HTML page of a run. The work is in `src/report/`. */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import type { CommandRegistration } from "../output.js";

interface ReportFlags {
  runsDir: string;
  out?: string;
  json?: boolean;
}

export const register: CommandRegistration = (program: Command, run) => {
  program
    .command("report")
    .summary("Write a run's report: one self-contained HTML page")
    .description(
      "Write one self-contained HTML file for a training run (no network request of any kind): score per step with " +
        "each step's status and reason, the lineage of candidates, per-instance heatmaps, each candidate's diff and " +
        "repairs, usage and cost against the budgets, wall time, provenance and how to reproduce or resume it.\n" +
        "Works for finished, crashed and running runs; the Trainer also keeps <runs-dir>/<run-id>/report.html current.\n" +
        "Exit 0 written, 2 bad input (no such run).",
    )
    .argument("<run-id>", "the run")
    .option("--runs-dir <dir>", "where runs live", "runs")
    .option("--out <file>", "where to write the page (default <runs-dir>/<run-id>/report.html)")
    .option("--json", "print the report's data (what the page shows) as JSON instead; writes the page only with --out")
    .action(async (runId: string, flags: ReportFlags) =>
      run(Boolean(flags.json), async () => {
        const { resolve } = await import("node:path");
        const { reportData, writeReport } = await import("../../report/write.js");
        const options = { runsDir: resolve(flags.runsDir), runId };
        const out = flags.out ? resolve(flags.out) : undefined;
        if (flags.json && !out) return { exitCode: ExitCode.ok, json: await reportData(options) };
        const written = await writeReport({ ...options, out });
        const { data } = written;
        const text = [
          `wrote ${written.file} (${(written.bytes / 1024).toFixed(0)} KB)`,
          `  run ${data.run.id}: ${data.run.status}, ${data.run.stepsDone} of ${data.run.stepsPlanned} steps, ${data.steps.filter((step) => step.status === "accepted").length} accepted`,
          ...data.notes.map((note) => `  note: ${note}`),
        ].join("\n");
        return { exitCode: ExitCode.ok, json: data, text };
      }),
    );
};
