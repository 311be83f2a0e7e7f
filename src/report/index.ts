/** The run report's public surface: build the data, render the page, write it. */
export { reportData, writeReport, loadAssets, RunReporter, REPORT_FILE } from "./write.js";
export type { ReportOptions, WrittenReport } from "./write.js";
export { buildReport } from "./model.js";
export type { ReportInput, ReportStep } from "./model.js";
export { readReportInput, ReportMemo } from "./read.js";
export { renderReport } from "./render/page.js";
export type { ReportAssets } from "./render/page.js";
export type * from "./types.js";
