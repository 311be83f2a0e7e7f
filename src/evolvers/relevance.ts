/**
 * How well a pool fragment matches what went wrong (pure): the failing rollouts' feedback is
 * compared with each fragment's description, word by word, weighting words by how rare they
 * are among the fragments (a word most fragments use tells nothing) and failures by how badly
 * they scored. A word in the feedback of every rollout of the batch (the grader's own phrasing,
 * "answered", "text") tells nothing about what went wrong either, and is left out.
 */
import type { RolloutRecord } from "../train/types.js";
import type { Fragment } from "./pool.js";

const STOPWORDS = new Set(
  "a about after all also an and any are as at be been before but by can do does each for from had has have how if in into is it its of on one or out so such than that the their them then there these they this those to too use used using was were what when where which while who will with within without you your not no".split(
    " ",
  ),
);

/** Lower-case content words, crudely stemmed so "blocks" meets "block". */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[a-z][a-z-]*[a-z]|[a-z]/g) ?? []) {
    for (const part of raw.split("-")) {
      if (part.length < 3 || STOPWORDS.has(part)) continue;
      out.add(stem(part));
    }
  }
  return out;
}

/** A crude stemmer: plurals to singular ("blocks" → "block", "dashes" → "dash", "entries" → "entry"). */
export function stem(word: string): string {
  if (/ies$/.test(word)) return word.replace(/ies$/, "y");
  if (/(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

export interface Failure {
  /** 0..1: how far below the best score of the batch (1 for a rollout with no score). */
  weight: number;
  text: string;
}

/** The failing rollouts of a batch: those below the batch's best possible score. */
export function failures(rollouts: RolloutRecord[]): Failure[] {
  const scores = rollouts.flatMap((record) => (record.score === null ? [] : [record.score]));
  const top = Math.max(1, ...scores);
  return rollouts.flatMap((record) => {
    const text = [record.feedback, record.error].filter(Boolean).join(" ");
    if (record.score === null) return [{ weight: 1, text }];
    if (record.score >= top) return [];
    return [{ weight: (top - record.score) / top, text }];
  });
}

/** Words in the feedback of every rollout of the batch (with two or more rollouts): they tell no rollout apart. */
export function commonWords(rollouts: RolloutRecord[]): Set<string> {
  if (rollouts.length < 2) return new Set();
  const each = rollouts.map((record) => words([record.feedback, record.error].filter(Boolean).join(" ")));
  return new Set([...each[0]!].filter((word) => each.every((set) => set.has(word))));
}

export interface Relevance {
  fragment: Fragment;
  score: number;
  /** The description words found in failure feedback. */
  matched: string[];
  /** How many failures mention at least one of them. */
  failures: number;
}

/** Relevance of every fragment to the failures (pure); words in `ignore` never count as a match. */
export function rankFragments(fragments: Fragment[], found: Failure[], ignore: Set<string> = new Set()): Relevance[] {
  const vocab = new Map(fragments.map((fragment) => [fragment.id, words(`${fragment.name.replace(/-/g, " ")} ${fragment.description}`)]));
  const documentFrequency = new Map<string, number>();
  for (const set of vocab.values()) for (const word of set) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  // A word most fragments use ("word", "count") tells nothing about which one fits.
  const informative = (word: string) => {
    const df = documentFrequency.get(word) ?? 0;
    return df === 1 || df * 2 <= fragments.length;
  };
  const idf = (word: string) => Math.log((fragments.length + 1) / (documentFrequency.get(word) ?? 1));
  const failureWords = found.map((failure) => ({ weight: failure.weight, words: new Set([...words(failure.text)].filter((word) => !ignore.has(word))) }));
  return fragments.map((fragment) => {
    const own = [...vocab.get(fragment.id)!].filter(informative);
    const total = own.reduce((sum, word) => sum + idf(word), 0) || 1;
    let score = 0;
    let hits = 0;
    const matched = new Set<string>();
    for (const failure of failureWords) {
      const common = own.filter((word) => failure.words.has(word));
      if (common.length === 0) continue;
      hits += 1;
      common.forEach((word) => matched.add(word));
      score += failure.weight * (common.reduce((sum, word) => sum + idf(word), 0) / total);
    }
    return { fragment, score, matched: [...matched].sort(), failures: hits };
  });
}
