/**
 * Commit messages of the version store: a subject, an optional body, and `Hermit-*` trailers
 * that carry what the Trainer needs to rebuild a run from Git alone (step, status, scores,
 * repair). Pure.
 */

/** Trailer keys, in the order they are written. */
export const TRAILER_KEYS = [
  "Hermit-Run",
  "Hermit-Step",
  "Hermit-Status",
  "Hermit-Score",
  "Hermit-Accepted-Score",
  "Hermit-Evolver",
  "Hermit-Repair",
  "Hermit-Repaired-From",
  "Hermit-State",
  "Hermit-Parent",
] as const;
export type TrailerKey = (typeof TRAILER_KEYS)[number];
export type Trailers = Partial<Record<TrailerKey, string>>;

export interface CommitMessage {
  subject: string;
  body?: string;
  trailers: Trailers;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** Render a message; trailer values are folded onto one line. */
export function formatMessage(message: CommitMessage): string {
  const parts = [oneLine(message.subject) || "(no subject)"];
  const body = message.body?.replace(/\r\n/g, "\n").trim();
  // A body whose last paragraph looks like trailers would be read as ours: indent it.
  if (body) parts.push(body.replace(/^([A-Za-z-]+: )/gm, "  $1"));
  const trailers = TRAILER_KEYS.filter((key) => message.trailers[key] !== undefined).map(
    (key) => `${key}: ${oneLine(message.trailers[key]!)}`,
  );
  if (trailers.length > 0) parts.push(trailers.join("\n"));
  return `${parts.join("\n\n")}\n`;
}

/** Read the trailers (the last paragraph's `Hermit-*: value` lines) and the subject. */
export function parseMessage(text: string): CommitMessage {
  const paragraphs = text.replace(/\r\n/g, "\n").trim().split(/\n{2,}/);
  const subject = paragraphs[0] ?? "";
  const trailers: Trailers = {};
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1] : "";
  const lines = last.split("\n");
  const isTrailerBlock = lines.every((line) => /^Hermit-[A-Za-z-]+: /.test(line));
  if (isTrailerBlock) {
    for (const line of lines) {
      const colon = line.indexOf(": ");
      const key = line.slice(0, colon) as TrailerKey;
      if ((TRAILER_KEYS as readonly string[]).includes(key)) trailers[key] = line.slice(colon + 2);
    }
  }
  const bodyParts = paragraphs.slice(1, isTrailerBlock ? -1 : undefined);
  return { subject, body: bodyParts.length > 0 ? bodyParts.join("\n\n") : undefined, trailers };
}

/** A score as a trailer value: up to 6 decimals, `none` when missing. */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined) return "none";
  return String(Number(score.toFixed(6)));
}

export function parseScore(value: string | undefined): number | null {
  if (value === undefined || value === "none") return null;
  const score = Number(value);
  return Number.isFinite(score) ? score : null;
}
