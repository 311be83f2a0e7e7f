/**
 * One duration syntax for every time limit hermit takes (`--rollout-timeout`, `--timeout`, …):
 * a number of seconds, or a number with a unit — `500ms`, `90s`, `10m`, `1.5h`.
 */

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/;

/** Seconds, from a number (seconds) or a duration string; undefined when `value` is not a positive duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value !== "number" && typeof value !== "string") return undefined;
  const match = DURATION.exec(String(value));
  const seconds = match ? Number(match[1]) * UNITS[match[2] ?? "s"]! : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** How to write a duration, for error messages. */
export const DURATION_HINT = "a positive duration such as 90, 90s, 10m or 1h (plain numbers are seconds)";
