/**
 * The report's drawings as SVG text (pure): the candidate lineage, the heatmaps and their
 * legend, and the status strip under the score chart. Every mark carries `data-*` attributes
 * naming what it stands for, which the page's script (tooltips) and the tests read.
 */
import type { Heatmap, LineageNode, StepView } from "../types.js";
import { esc } from "./html.js";
import { VIRIDIS, scoreColor, statusStyle } from "./palette.js";

/** Hatching for a failed or timed-out rollout: a pattern, so it is not told by colour alone. */
export const SVG_DEFS =
  '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>' +
  '<pattern id="hatch-failed" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
  '<rect width="6" height="6" fill="#f4d6c6"/><line x1="0" y1="0" x2="0" y2="6" stroke="#7a2a00" stroke-width="3"/></pattern>' +
  "</defs></svg>";

const NOT_EVALUATED = "#f1f1f1";

/** The step spacing for `count` columns: readable when few, still compact at hundreds. */
function spacing(count: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.floor(960 / Math.max(1, count))));
}

/** The lineage: the accepted chain as a line, each other candidate hanging from the version it was made from. */
export function lineageSvg(nodes: LineageNode[]): string {
  const maxStep = nodes.reduce((top, node) => Math.max(top, node.step), 0);
  const dx = spacing(maxStep + 1, 14, 64);
  const left = 24;
  const [chainY, branchY] = [28, 78];
  const width = left * 2 + dx * maxStep;
  const x = (step: number) => left + step * dx;
  const byCommit = new Map(nodes.filter((node) => node.commit).map((node) => [node.commit!, node]));
  const onChain = (node: LineageNode) => node.kind !== "candidate" || node.status === "accepted";
  const parts: string[] = [];
  const chain = nodes.filter(onChain).sort((a, b) => a.step - b.step);
  parts.push(`<line x1="${x(0)}" y1="${chainY}" x2="${x(maxStep)}" y2="${chainY}" stroke="#bbbbbb" stroke-width="2"/>`);
  for (const node of chain) {
    const parent = node.parent ? byCommit.get(node.parent) : undefined;
    if (parent) parts.push(`<line x1="${x(parent.step)}" y1="${chainY}" x2="${x(node.step)}" y2="${chainY}" stroke="#009E73" stroke-width="3" data-edge="${esc(parent.id)}→${esc(node.id)}"/>`);
  }
  for (const node of nodes) {
    const style = node.kind === "candidate" ? statusStyle(node.status) : { color: node.kind === "final" ? "#0072B2" : "#444444" };
    const cx = x(node.step);
    const cy = onChain(node) ? chainY : branchY;
    const parent = node.parent ? byCommit.get(node.parent) : undefined;
    if (!onChain(node)) parts.push(`<line x1="${parent ? x(parent.step) : cx}" y1="${chainY}" x2="${cx}" y2="${cy}" stroke="#c8c8c8" stroke-width="1"/>`);
    const from = parent ? `made from ${parent.kind === "base" ? "the base" : parent.kind === "final" ? "the final version" : `step ${parent.step}`} (${node.parent!.slice(0, 10)})` : "";
    const title = [node.label, node.commit ? `commit ${node.commit.slice(0, 12)}` : "", from].filter(Boolean).join("\n");
    const radius = node.kind === "candidate" ? 5 : 7;
    const ring = node.label.includes("(repaired)") ? `<circle cx="${cx}" cy="${cy}" r="${radius + 3}" fill="none" stroke="#CC79A7" stroke-width="2" stroke-dasharray="3 2"/>` : "";
    parts.push(
      `<g class="lineage-node" data-node="${esc(node.id)}" data-status="${esc(node.status)}"${node.commit ? ` data-commit="${esc(node.commit)}"` : ""}${node.parent ? ` data-parent="${esc(node.parent)}"` : ""}>` +
        `<title>${esc(title)}</title>${ring}<circle cx="${cx}" cy="${cy}" r="${radius}" fill="${style.color}" stroke="#ffffff" stroke-width="1"/></g>`,
    );
  }
  const every = maxStep <= 40 ? 1 : maxStep <= 120 ? 5 : 10;
  for (const node of nodes) {
    if (node.kind === "candidate" && node.step % every !== 0) continue;
    const text = node.kind === "base" ? "base" : node.kind === "final" ? "final" : String(node.step);
    parts.push(`<text x="${x(node.step)}" y="${branchY + 22}" text-anchor="middle" class="axis">${text}</text>`);
  }
  return `<svg class="lineage" width="${width}" height="${branchY + 30}" viewBox="0 0 ${width} ${branchY + 30}" role="img" aria-label="lineage of candidates">${parts.join("")}</svg>`;
}

/** The value range a heatmap's colours span: 0–1, widened to any score outside it. */
export function scoreDomain(maps: Heatmap[]): [number, number] {
  let [min, max] = [0, 1];
  for (const map of maps) for (const row of map.rows) for (const cell of row.cells) if (cell.state === "score") [min, max] = [Math.min(min, cell.score), Math.max(max, cell.score)];
  return [min, max];
}

export function heatmapSvg(map: Heatmap, domain: [number, number]): string {
  if (map.rows.length === 0) return `<p class="muted">No rollouts on this split yet.</p>`;
  const cw = spacing(map.columns.length, 9, 40);
  const ch = 18;
  const longest = map.rows.reduce((top, row) => Math.max(top, row.instance.length), 0);
  const left = Math.min(240, 16 + longest * 7);
  const top = 26;
  const width = left + cw * map.columns.length + 8;
  const height = top + ch * map.rows.length + 4;
  const every = map.columns.length <= 40 ? 1 : map.columns.length <= 120 ? 5 : 10;
  const parts: string[] = [];
  map.columns.forEach((column, index) => {
    if (index % every === 0 || column.key === "base" || column.key === "final") {
      parts.push(`<text x="${left + index * cw + cw / 2}" y="${top - 8}" text-anchor="middle" class="axis">${esc(column.label)}</text>`);
    }
  });
  map.rows.forEach((row, r) => {
    const y = top + r * ch;
    const label = row.instance.length > 32 ? `${row.instance.slice(0, 31)}…` : row.instance;
    parts.push(`<text x="${left - 6}" y="${y + ch / 2 + 4}" text-anchor="end" class="label">${esc(label)}</text>`);
    row.cells.forEach((cell, c) => {
      const fill = cell.state === "score" ? scoreColor(cell.score, domain[0], domain[1]) : cell.state === "failed" ? "url(#hatch-failed)" : NOT_EVALUATED;
      parts.push(
        `<rect x="${left + c * cw}" y="${y}" width="${cw - 1}" height="${ch - 1}" fill="${fill}" data-state="${cell.state}" data-row="${r}" data-col="${c}"/>`,
      );
    });
  });
  return `<svg class="heatmap" data-heatmap="${map.id}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(map.title)}">${parts.join("")}</svg>`;
}

/** The heatmaps' legend: the score scale, a failed rollout, an instance not evaluated. */
export function heatmapLegend(domain: [number, number]): string {
  const swatches = VIRIDIS.map((color, index) => `<rect x="${index * 18}" y="0" width="18" height="14" fill="${color}"/>`).join("");
  return (
    `<div class="legend heat-legend">` +
    `<span><svg width="${VIRIDIS.length * 18}" height="14" aria-hidden="true">${swatches}</svg> score ${domain[0].toFixed(2)} → ${domain[1].toFixed(2)}</span>` +
    `<span><svg width="18" height="14" aria-hidden="true"><rect width="18" height="14" fill="url(#hatch-failed)"/></svg> failed or timed out (no score: missing data, not 0)</span>` +
    `<span><svg width="18" height="14" aria-hidden="true"><rect width="18" height="14" fill="${NOT_EVALUATED}" stroke="#cccccc"/></svg> not evaluated</span>` +
    `</div>`
  );
}

/** One mark per step under the score chart, in the status colour, with its glyph. */
export function statusStrip(steps: StepView[]): string {
  if (steps.length === 0) return "";
  const cw = spacing(steps.length, 6, 40);
  const width = cw * steps.length;
  const cells = steps
    .map((step, index) => {
      const style = statusStyle(step.status);
      const glyph = cw >= 14 ? `<text x="${index * cw + cw / 2}" y="15" text-anchor="middle" fill="#ffffff" class="glyph">${style.glyph}</text>` : "";
      return `<g data-step="${step.step}" data-status="${esc(step.status)}"${step.repaired ? ' data-repaired="true"' : ""}><title>${esc(`step ${step.step}: ${step.status}${step.repaired ? " (repaired)" : ""} — ${step.reason}`)}</title><rect x="${index * cw}" y="0" width="${cw - 1}" height="20" fill="${style.color}"/>${glyph}${step.repaired ? `<rect x="${index * cw}" y="21" width="${cw - 1}" height="4" fill="#CC79A7"/>` : ""}</g>`;
    })
    .join("");
  return `<svg class="status-strip" width="${width}" height="26" viewBox="0 0 ${width} 26" role="img" aria-label="status of each step">${cells}</svg>`;
}
