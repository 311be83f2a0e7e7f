/** Small pure helpers for building HTML as text: escaping, numbers, short ids. */

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escape text for an element's content or a quoted attribute value. */
export function esc(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

/** A score with three decimals, or an em dash when there is none. */
export function score(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toFixed(3);
}

/** A signed difference with three decimals. */
export function signed(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(3)}`;
}

export function shortId(oid: string | undefined): string {
  return oid ? oid.slice(0, 10) : "—";
}

/** Milliseconds as seconds (or minutes past 120 s). */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  const seconds = ms / 1000;
  if (seconds < 120) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(2)} h`;
}

/** Embed a value as JSON inside `<script type="application/json">`: nothing in it can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
