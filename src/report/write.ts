/**
 * The report's one writer: read the run, build the model, render the page, write it
 * atomically (a reader of `report.html` never sees half a file). `RunReporter` is the
 * Trainer's handle: it refreshes `runs/<id>/report.html` after every step, reusing what it
 * computed before (diffs of committed steps never change).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic.js";
import type { VersionStore } from "../train/store.js";
import { buildReport } from "./model.js";
import { ReportMemo, readReportInput } from "./read.js";
import { renderReport, type ReportAssets } from "./render/page.js";
import type { ReportData } from "./types.js";

/** The file name of a run's report inside its directory. */
export const REPORT_FILE = "report.html";

let assets: Promise<ReportAssets> | undefined;

/** uPlot's script and stylesheet, from hermit's own dependencies (read once per process). */
export function loadAssets(): Promise<ReportAssets> {
  assets ??= (async () => {
    const require = createRequire(import.meta.url);
    const [uplotScript, uplotStyle] = await Promise.all([
      readFile(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"),
      readFile(require.resolve("uplot/dist/uPlot.min.css"), "utf8"),
    ]);
    return { uplotScript, uplotStyle };
  })();
  return assets;
}

export interface ReportOptions {
  runsDir: string;
  runId: string;
  /** An open store to read from (the Trainer's own). */
  store?: VersionStore;
  memo?: ReportMemo;
}

/** The report data of a run: what the page shows, and what `hermit report --json` prints. */
export async function reportData(options: ReportOptions): Promise<ReportData> {
  return buildReport(await readReportInput(options.runsDir, options.runId, { store: options.store, memo: options.memo }));
}

export interface WrittenReport {
  file: string;
  bytes: number;
  data: ReportData;
}

/** Write the report of a run to `out` (default `<runs-dir>/<run-id>/report.html`). */
export async function writeReport(options: ReportOptions & { out?: string }): Promise<WrittenReport> {
  const data = await reportData(options);
  const html = renderReport(data, await loadAssets());
  const file = options.out ?? join(data.run.dir, REPORT_FILE);
  await writeFileAtomic(file, html, { mkdir: true });
  return { file, bytes: Buffer.byteLength(html), data };
}

/**
 * Keeps a running run's `report.html` current. `refresh` never throws: a report that cannot
 * be written must not stop training; it returns the problem for the progress line instead.
 */
export class RunReporter {
  private readonly memo = new ReportMemo();

  constructor(
    private readonly runsDir: string,
    private readonly runId: string,
    private readonly store?: VersionStore,
  ) {}

  async refresh(): Promise<string | undefined> {
    try {
      await writeReport({ runsDir: this.runsDir, runId: this.runId, store: this.store, memo: this.memo });
      return undefined;
    } catch (error) {
      return `the run report could not be written: ${errorMessage(error)}`;
    }
  }
}
