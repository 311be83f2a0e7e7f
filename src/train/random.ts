/** A small seeded PRNG (mulberry32), so a run with the same seed samples the same way. Pure. */

/** A generator of floats in [0, 1) from `seed` and any number of extra integers (e.g. the step). */
export function seededRandom(seed: number, ...salt: number[]): () => number {
  let state = (seed >>> 0) ^ 0x9e3779b9;
  for (const value of salt) state = Math.imul(state ^ (value >>> 0), 0x85ebca6b) ^ (state >>> 13);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded sample of `count` items, in their original order; all of them when count ≥ length. */
export function sample<T>(items: T[], count: number | undefined, random: () => number): T[] {
  if (count === undefined || count >= items.length) return items;
  const indexes = items.map((_, index) => index);
  for (let i = indexes.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
  }
  return indexes
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((index) => items[index]);
}
