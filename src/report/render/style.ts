/** The page's stylesheet: system fonts only (nothing to fetch), readable in print. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1d1d1f; --muted: #6b6b6b; --line: #e2e2e2; --bg: #ffffff; --panel: #f7f7f8; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1280px; padding: 16px 24px 64px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
h4 { margin: 8px 0 4px; }
code, pre, .diff { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); padding: 8px 10px; border-radius: 4px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
nav { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: 6px 0; z-index: 2; }
nav a { margin-right: 14px; color: #0b57d0; text-decoration: none; }
.muted { color: var(--muted); }
.live { background: #fff7e0; border: 1px solid #f0d890; padding: 6px 10px; border-radius: 4px; }
.scroll { overflow-x: auto; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 10px; }
.card { background: var(--panel); border-radius: 6px; padding: 10px 12px; }
.card-title { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card-body { font-size: 15px; margin-top: 4px; }
.status { display: inline-flex; align-items: center; gap: 3px; padding: 0 7px; border-radius: 10px; background: var(--status); color: #fff; font-size: 12px; font-weight: 600; white-space: nowrap; }
.status .glyph { font-size: 10px; }
.repaired { display: inline-block; padding: 0 6px; border-radius: 10px; border: 1.5px dashed #CC79A7; color: #8a3f6b; font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 8px 0; font-size: 12px; }
.legend svg { vertical-align: middle; }
.chart { min-height: 40px; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.steps td.reason { min-width: 320px; }
table.facts th { width: 170px; color: var(--muted); font-weight: 500; }
svg text.axis { font-size: 10px; fill: var(--muted); }
svg text.label { font-size: 11px; fill: var(--ink); font-family: ui-monospace, monospace; }
svg text.glyph { font-size: 10px; }
svg.heatmap rect[data-state], svg.status-strip g, svg.lineage g { cursor: pointer; }
.heatmap-block { margin-bottom: 16px; }
details.step { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.step > summary { cursor: pointer; padding: 4px 0; }
details.step[open] > summary { border-bottom: 1px solid var(--line); margin-bottom: 6px; }
.step-no { font-weight: 600; margin-right: 6px; }
.file { margin: 8px 0; border: 1px solid var(--line); border-radius: 4px; }
.file-head { background: var(--panel); padding: 4px 8px; }
.change { font-size: 11px; text-transform: uppercase; color: var(--muted); }
.diff { overflow-x: auto; }
.diff .line { white-space: pre; padding: 0 8px; }
.diff .hunk { color: #6f42c1; background: #f5f0ff; padding: 0 8px; }
.line.add, span.add { color: #0a6b2d; }
.line.add { background: #e6f6ea; }
.line.del, span.del { color: #a3161a; }
.line.del { background: #fdecec; }
.line.meta { color: var(--muted); }
.repair { border-left: 3px dashed #CC79A7; padding-left: 10px; margin: 6px 0; }
.bar { width: 260px; height: 10px; background: var(--panel); border: 1px solid var(--line); border-radius: 5px; overflow: hidden; }
.bar > div { height: 100%; background: #0072B2; }
.command pre { margin: 4px 0 10px; }
.tip { position: absolute; z-index: 5; background: #1d1d1f; color: #fff; padding: 5px 8px; border-radius: 4px; font-size: 12px; white-space: pre; pointer-events: none; }
@media print { nav { position: static; } details.step { break-inside: avoid; } }
`;
