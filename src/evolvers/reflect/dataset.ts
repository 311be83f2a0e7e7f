/**
 * The reflective dataset (pure): per rollout the instance's input, what the agent produced, the
 * score and the feedback — failures first (worst first), then crashes, then a few successes —
 * fitted into a token budget. Long fields are cut in the middle with a marker saying how much
 * was cut; when even that does not fit, the last examples are left out (and counted). The
 * result never exceeds the budget, so a reflection prompt cannot outgrow the model's context.
 */
import { estimateTokens } from "../../models/usage.js";

/** One rollout, as the learner sees it. */
export interface Example {
  instance: string;
  trial: number;
  /** Null: the rollout could not be measured (crash, timeout). */
  score: number | null;
  feedback?: string;
  error?: string;
  /** The instance's input, rendered as text. */
  input?: string;
  /** What the agent produced (its answer, transcript, tool calls), rendered as text. */
  output?: string;
}

export interface DatasetOptions {
  /** The most tokens the dataset may take (estimated high: bytes / 3). */
  tokens: number;
  /** How many successes to show after the failures. */
  successes: number;
}

export interface Dataset {
  text: string;
  /** Examples shown, by kind. */
  failures: number;
  crashes: number;
  successes: number;
  /** Examples left out to fit the budget. */
  omitted: number;
  /** Fields cut to fit. */
  cut: number;
  /** The instances shown, in order. */
  instances: string[];
}

/** True when `example` did not reach the best score the batch could get. */
export function isFailure(example: Example, best: number): boolean {
  return example.score !== null && example.score < best;
}

/** Failures (worst first), then unmeasured rollouts, then up to `successes` successes. */
export function orderExamples(examples: readonly Example[], successes: number): { ordered: Example[]; best: number } {
  const measured = examples.flatMap((example) => (example.score === null ? [] : [example.score]));
  // Scores are usually in [0, 1]; a batch that never reached 1 still has 1 as its goal.
  const best = Math.max(1, ...measured);
  const failures = examples.filter((example) => isFailure(example, best)).sort((a, b) => a.score! - b.score! || a.instance.localeCompare(b.instance));
  const crashes = examples.filter((example) => example.score === null);
  const passed = examples.filter((example) => example.score !== null && example.score >= best).slice(0, successes);
  return { ordered: [...failures, ...crashes, ...passed], best };
}

interface Caps {
  input: number;
  output: number;
  feedback: number;
}

const START: Caps = { input: 4_000, output: 8_000, feedback: 3_000 };
const FLOOR: Caps = { input: 300, output: 600, feedback: 400 };

/** Build the dataset within `options.tokens`. */
export function reflectiveDataset(examples: readonly Example[], options: DatasetOptions): Dataset {
  const { ordered, best } = orderExamples(examples, options.successes);
  let caps = START;
  for (;;) {
    const rendered = ordered.map((example, index) => renderExample(example, index + 1, best, caps));
    const fitted = fit(rendered, options.tokens);
    const shrinkable = caps.output > FLOOR.output || caps.input > FLOOR.input || caps.feedback > FLOOR.feedback;
    if (fitted.count === rendered.length || !shrinkable) return summarize(ordered, rendered, fitted.count, best);
    caps = { input: Math.max(FLOOR.input, caps.input >> 1), output: Math.max(FLOOR.output, caps.output >> 1), feedback: Math.max(FLOOR.feedback, caps.feedback >> 1) };
  }
}

interface Rendered {
  text: string;
  cut: number;
}

/** How many leading examples fit in `tokens`. */
function fit(rendered: readonly Rendered[], tokens: number): { count: number } {
  let used = 0;
  let count = 0;
  for (const example of rendered) {
    const cost = estimateTokens(example.text) + 1;
    if (used + cost > tokens) break;
    used += cost;
    count += 1;
  }
  return { count };
}

function summarize(ordered: readonly Example[], rendered: readonly Rendered[], count: number, best: number): Dataset {
  const shown = ordered.slice(0, count);
  return {
    text: rendered.slice(0, count).map((example) => example.text).join("\n"),
    failures: shown.filter((example) => isFailure(example, best)).length,
    crashes: shown.filter((example) => example.score === null).length,
    successes: shown.filter((example) => example.score !== null && example.score >= best).length,
    omitted: ordered.length - count,
    cut: rendered.slice(0, count).reduce((sum, example) => sum + example.cut, 0),
    instances: shown.map((example) => example.instance),
  };
}

function renderExample(example: Example, number: number, best: number, caps: Caps): Rendered {
  let cut = 0;
  const field = (title: string, text: string | undefined, cap: number): string => {
    if (text === undefined || text.trim() === "") return "";
    const clipped = clipMiddle(text.trim(), cap);
    if (clipped !== text.trim()) cut += 1;
    return `#### ${title}\n${clipped}\n`;
  };
  const verdict = example.score === null ? "not measured (the rollout crashed or timed out)" : example.score >= best ? `score ${example.score} (passed)` : `score ${example.score} (failed)`;
  const trial = example.trial > 0 ? `, trial ${example.trial + 1}` : "";
  const text = [
    `### Example ${number}: instance \`${example.instance}\`${trial} — ${verdict}\n`,
    field("Input", example.input, caps.input),
    field("What the agent produced", example.output, caps.output),
    field("Feedback", example.feedback, caps.feedback),
    field("Error", example.error, caps.feedback),
  ].join("");
  return { text, cut };
}

/** `text` with its middle replaced by a marker when it is longer than `limit` characters. */
export function clipMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit - 60);
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  const removed = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${removed.toLocaleString("en-US")} characters cut …]\n${tail > 0 ? text.slice(-tail) : ""}`;
}
