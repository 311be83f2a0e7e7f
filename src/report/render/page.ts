/**
 * The whole report page (pure): one self-contained HTML document. Data, styles, uPlot and the
 * page's script are inlined, and a Content-Security-Policy allows nothing to be fetched and
 * only these exact scripts (by hash) to run, so text from a run (summaries, file contents,
 * instance ids) can never load or execute anything.
 */
import { createHash } from "node:crypto";
import type { ReportData } from "../types.js";
import { CLIENT_SCRIPT } from "./client.js";
import { changesSection } from "./diffs.js";
import { esc, jsonForScript } from "./html.js";
import { LEGEND_STATUSES, statusStyle } from "./palette.js";
import { provenanceSection, statusBadge, statusLegend, stepsTable, summary, usageSection } from "./sections.js";
import { PAGE_STYLE } from "./style.js";
import { SVG_DEFS, heatmapLegend, heatmapSvg, lineageSvg, scoreDomain, statusStrip } from "./svg.js";

/** The chart library, inlined from hermit's own `node_modules`. */
export interface ReportAssets {
  uplotScript: string;
  uplotStyle: string;
}

const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

function section(id: string, title: string, body: string, note = ""): string {
  return `<section id="${id}"><h2>${title}</h2>${note ? `<p class="muted">${note}</p>` : ""}${body}</section>`;
}

export function renderReport(data: ReportData, assets: ReportAssets): string {
  const domain = scoreDomain(data.heatmaps);
  const styles = {
    status: Object.fromEntries([...new Set([...LEGEND_STATUSES, ...data.steps.map((step) => step.status), "unmeasured", "budget"])].map((status) => [status, statusStyle(status)])),
    unknown: statusStyle("\u0000"),
  };
  const uplotScript = assets.uplotScript;
  const csp = [
    "default-src 'none'",
    `script-src ${hash(uplotScript)} ${hash(CLIENT_SCRIPT)}`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
  const run = data.run;
  const title = `hermit run ${run.id}`;
  const live = run.live
    ? `<p class="live">This run was still going when this page was written: the Trainer rewrites this file after every step, and the page reloads itself every 15 s. If the time it was updated stops moving, the process is gone (<code>hermit report ${esc(run.id)}</code> then shows the run as interrupted).</p>`
    : "";
  const heatmaps = data.heatmaps
    .map((map) => `<div class="heatmap-block" id="heatmap-${map.id}"><h3>${esc(map.title)}</h3><p class="muted">${esc(map.description)}</p><div class="scroll">${heatmapSvg(map, domain)}</div></div>`)
    .join("");
  const notes = data.notes.length > 0 ? section("notes", "Notes", `<ul>${data.notes.map((note) => `<li>${esc(note)}</li>`).join("")}</ul>`) : "";
  const body = [
    `<header><h1>${esc(title)} ${statusBadge(run.status)}</h1><p class="muted">Directory <code>${esc(run.dir)}</code> · task <code>${esc(data.provenance.task)}</code> · evolver <code>${esc(data.provenance.evolver)}</code> · updated ${esc(data.provenance.updatedAt)}</p>${live}</header>`,
    `<nav>${[
      ["summary", "Summary"],
      ["scores", "Scores"],
      ["steps", "Steps"],
      ["lineage", "Lineage"],
      ["heatmaps", "Per instance"],
      ["changes", "Changes"],
      ["usage", "Usage"],
      ["provenance", "Provenance"],
    ]
      .map(([id, label]) => `<a href="#${id}">${label}</a>`)
      .join("")}</nav>`,
    section("summary", "Summary", summary(data)),
    section(
      "scores",
      "Score per step",
      `<div id="score-chart" class="chart"></div>${statusLegend()}<div class="scroll">${statusStrip(data.steps)}</div>`,
      "Each mark is a step's candidate on the validation split, shaped and coloured by what happened to it (in the shaded band: no score). The line is the accepted version it was compared with; dashed: the acting batch on train instances; the sealed test is scored once, for the base and the final version. Click a mark to open that step's changes.",
    ),
    section("steps", "Steps", stepsTable(data.steps)),
    section("lineage", "Lineage of candidates", `<div class="scroll">${lineageSvg(data.lineage)}</div>`, "The accepted versions form the line; every other candidate hangs from the version it was made from. Hover a node for its commit."),
    section("heatmaps", "Per instance", `${heatmapLegend(domain)}${heatmaps}`, "Hover a cell for its score or error; click a step's column to open its changes."),
    section("changes", "Changes per step", changesSection(data.steps), "Each candidate against its parent (the accepted version it was made from), and the repair where one was needed."),
    section("usage", "Usage, cost and time", `${usageSection(data)}<h3>Wall time per step</h3><div id="time-chart" class="chart"></div>`),
    section("provenance", "Provenance", provenanceSection(data)),
    notes,
  ].join("\n");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${esc(title)}</title>`,
    `<style>${assets.uplotStyle}</style>`,
    `<style>${PAGE_STYLE}</style>`,
    "</head><body>",
    SVG_DEFS,
    body,
    '<div id="tip" class="tip" hidden></div>',
    `<script type="application/json" id="report-data">${jsonForScript(data)}</script>`,
    `<script type="application/json" id="report-styles">${jsonForScript(styles)}</script>`,
    `<script>${uplotScript}</script>`,
    `<script>${CLIENT_SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
