/**
 * Progress on stderr: steps, rollouts done/total, best score. On a TTY one status line with a
 * bar is redrawn in place; otherwise plain lines, one per finished batch and step.
 */
import type { StepStatus } from "./types.js";

export interface Progress {
  /** A one-off line (preparing, resuming, final evaluation, deploy). */
  note(text: string): void;
  /** A step begins; step 0 means work outside the steps (the final evaluation). */
  stepStarted(step: number, lastStep: number): void;
  batchStarted(label: string, total: number): void;
  rolloutSettled(cached: boolean): void;
  batchFinished(): void;
  stepFinished(step: number, status: StepStatus, score: number | null, best: number | null, summary: string): void;
  close(): void;
}

export const silentProgress: Progress = {
  note() {},
  stepStarted() {},
  batchStarted() {},
  rolloutSettled() {},
  batchFinished() {},
  stepFinished() {},
  close() {},
};

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const fmt = (score: number | null) => (score === null ? "—" : score.toFixed(3));

export function createProgress(stream: Stream = process.stderr, tty = Boolean(stream.isTTY)): Progress {
  let step = 0;
  let lastStep = 0;
  let label = "";
  let total = 0;
  let done = 0;
  let cached = 0;
  let best: number | null = null;
  let statusShown = false;

  const prefix = () => (step > 0 ? `step ${step}/${lastStep}` : "hermit train");
  const clearStatus = () => {
    if (tty && statusShown) stream.write("\r\x1b[K");
    statusShown = false;
  };
  const line = (text: string) => {
    clearStatus();
    stream.write(`${text}\n`);
    drawStatus();
  };
  const drawStatus = () => {
    if (!tty || total === 0) return;
    const width = 20;
    const filled = Math.round((done / total) * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const text = `${prefix()} ${bar} ${label} ${done}/${total}${cached ? ` (${cached} cached)` : ""} · best ${fmt(best)}`;
    stream.write(`\r\x1b[K${text.slice(0, Math.max(20, (stream.columns || 120) - 1))}`);
    statusShown = true;
  };

  return {
    note: (text) => line(`hermit train: ${text}`),
    stepStarted(n, last) {
      step = n;
      lastStep = last;
    },
    batchStarted(name, count) {
      label = name;
      total = count;
      done = 0;
      cached = 0;
      drawStatus();
    },
    rolloutSettled(wasCached) {
      done += 1;
      if (wasCached) cached += 1;
      drawStatus();
    },
    batchFinished() {
      const text = `${prefix()}: ${label} ${done}/${total} rollouts${cached ? ` (${cached} cached)` : ""}`;
      total = 0;
      if (!tty) line(text);
      else clearStatus();
    },
    stepFinished(n, status, score, bestScore, summary) {
      if (bestScore !== null && (best === null || bestScore > best)) best = bestScore;
      line(`step ${n}/${lastStep}: ${status}, candidate ${fmt(score)}, best ${fmt(best)}${summary ? ` — ${summary}` : ""}`);
    },
    close: clearStatus,
  };
}
