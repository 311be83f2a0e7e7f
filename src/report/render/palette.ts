/**
 * Colours and marks (pure). Statuses use the Okabe–Ito palette and each also has its own
 * glyph, so no state is told by colour alone; scores use viridis, which stays ordered for
 * every common colour-vision deficiency and in greyscale.
 */

export interface StatusStyle {
  color: string;
  /** A one-character mark shown beside the status word and drawn on the chart. */
  glyph: string;
  /** The chart marker's shape. */
  shape: "circle" | "cross" | "diamond" | "triangle" | "square" | "ring" | "bar";
}

const STATUS: Record<string, StatusStyle> = {
  accepted: { color: "#009E73", glyph: "●", shape: "circle" },
  rejected: { color: "#D55E00", glyph: "✕", shape: "cross" },
  indecisive: { color: "#E69F00", glyph: "◆", shape: "diamond" },
  unmeasured: { color: "#E69F00", glyph: "◆", shape: "diamond" },
  "screened-out": { color: "#56B4E9", glyph: "▲", shape: "triangle" },
  invalid: { color: "#CC79A7", glyph: "■", shape: "square" },
  failed: { color: "#000000", glyph: "■", shape: "square" },
  skipped: { color: "#999999", glyph: "○", shape: "ring" },
  stopped: { color: "#0072B2", glyph: "◼", shape: "bar" },
  budget: { color: "#0072B2", glyph: "◼", shape: "bar" },
  interrupted: { color: "#999999", glyph: "…", shape: "ring" },
};

const UNKNOWN: StatusStyle = { color: "#777777", glyph: "?", shape: "ring" };

/** The style of a step status; a status this version does not know gets a neutral one. */
export function statusStyle(status: string): StatusStyle {
  return STATUS[status] ?? UNKNOWN;
}

/** The statuses the legend explains, in the order shown. */
export const LEGEND_STATUSES = ["accepted", "rejected", "indecisive", "screened-out", "invalid", "failed", "skipped", "stopped", "interrupted"];

/** Viridis, ten steps from low to high. */
export const VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"];

/** The colour of `score` on a scale from `min` to `max`. */
export function scoreColor(score: number, min: number, max: number): string {
  const span = max - min;
  const position = span > 0 ? (score - min) / span : 1;
  const index = Math.min(VIRIDIS.length - 1, Math.max(0, Math.floor(position * VIRIDIS.length)));
  return VIRIDIS[index];
}

/** Text that stays readable on a viridis cell. */
export function inkOn(color: string): string {
  return VIRIDIS.indexOf(color) >= 6 ? "#000000" : "#ffffff";
}
