/** "Did you mean …?" for names a user types: hosts, options, settings, tools. */

/** The candidate closest to `input` when it is close enough to be a likely typo or a short form; else undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const typed = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const lower = name.toLowerCase();
    // A prefix or a part of a hyphenated name ("claude" for "claude-code") is a short form.
    const distance = lower.startsWith(typed) || lower.split("-").includes(typed) ? 0.5 : editDistance(typed, lower);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(typed.length, best.name.length) / 3));
  return best.distance <= allowed ? best.name : undefined;
}

/** `; did you mean 'x'?` or an empty string. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const match = closest(input, candidates);
  return match ? `; did you mean '${match}'?` : "";
}

/** Levenshtein distance (insertions, deletions, substitutions each cost 1). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
