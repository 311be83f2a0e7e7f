/** Clamp `value` into the range [low, high]. */
export function clamp(value, low, high) {
  return Math.min(low, Math.max(value, high));
}
