/**
 * The learning material as files for the learner host (`learning/` in its scratch directory):
 * a summary of the batch, one folder per rollout with its score, feedback and evidence, the
 * previous repair, and `history.md` — the steps so far with what the learner said and changed,
 * kept in the Evolver's state directory across steps (and a resume).
 */
import { constants } from "node:fs";
import { mkdir, open, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../fs/atomic.js";
import type { HistoryEntry, LearningMaterial, RolloutRecord } from "../../train/types.js";

/** What the learner did in one step, remembered for the next ones. */
export interface LearnerNote {
  step: number;
  status: "done" | "skipped" | "failed";
  /** The host's final message, or why the step failed. */
  message: string;
  changed: string[];
  dropped: string[];
}

const NOTES_FILE = "agent-notes.json";
const HISTORY_FILE = "history.md";
/** Evidence files larger than this are listed, not copied. */
const MAX_EVIDENCE_FILE = 256 * 1024;
/** At most this much evidence per rollout. */
const MAX_EVIDENCE_TOTAL = 2 * 1024 * 1024;

export async function loadNotes(state: string): Promise<LearnerNote[]> {
  const text = await readFile(join(state, NOTES_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return [];
  try {
    const notes = JSON.parse(text) as unknown;
    return Array.isArray(notes) ? (notes as LearnerNote[]) : [];
  } catch {
    return [];
  }
}

/** Record this step's note (replacing one of the same step, as a resumed step runs again) and rewrite history.md. */
export async function saveNote(state: string, note: LearnerNote, history: readonly HistoryEntry[]): Promise<void> {
  const notes = [...(await loadNotes(state)).filter((entry) => entry.step !== note.step), note].sort((a, b) => a.step - b.step);
  await mkdir(state, { recursive: true });
  await writeFileAtomic(join(state, NOTES_FILE), `${JSON.stringify(notes, null, 2)}\n`);
  await writeFileAtomic(join(state, HISTORY_FILE), renderHistory(history, notes));
}

function score(value: number | null | undefined): string {
  return value === null || value === undefined ? "not measured" : value.toFixed(3);
}

/** The history the learner reads: each step's outcome (the Trainer's record) with what the learner said and changed. */
export function renderHistory(history: readonly HistoryEntry[], notes: readonly LearnerNote[]): string {
  const steps = new Set([...history.map((entry) => entry.step), ...notes.map((note) => note.step)]);
  if (steps.size === 0) return "# History\n\nThis is the first step.\n";
  const lines = ["# History", ""];
  for (const step of [...steps].sort((a, b) => a - b)) {
    const entry = history.find((item) => item.step === step);
    const note = notes.find((item) => item.step === step);
    const outcome = entry ? `${entry.status}: candidate ${score(entry.score)}, accepted ${score(entry.acceptedScore)}` : "outcome not recorded yet";
    lines.push(`## Step ${step} — ${outcome}`, "");
    if (note) {
      lines.push(`The learner (${note.status}): ${note.message.trim() || "(no message)"}`);
      if (note.changed.length > 0) lines.push(`Changed: ${note.changed.join(", ")}`);
      if (note.dropped.length > 0) lines.push(`Dropped (not learnable): ${note.dropped.join(", ")}`);
    } else if (entry) {
      lines.push(entry.summary);
    }
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

function folderOf(record: RolloutRecord): string {
  const safe = record.instance.replace(/[^A-Za-z0-9._-]/g, "_");
  return record.trial > 0 ? `${safe}.trial-${record.trial}` : safe;
}

/** Copy a rollout's evidence (small text files), listing what was left out. */
async function copyEvidence(from: string, to: string): Promise<string[]> {
  const skipped: string[] = [];
  let total = 0;
  const walk = async (dir: string, rel: string) => {
    const entries = await readdir(join(from, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(dir, path);
      else if (entry.isFile()) {
        // O_NOFOLLOW: a file swapped for a link after the listing is left out, never followed.
        const handle = await open(join(from, path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
        if (!handle) continue;
        try {
          const info = await handle.stat();
          if (!info.isFile()) continue;
          if (info.size > MAX_EVIDENCE_FILE || total + info.size > MAX_EVIDENCE_TOTAL) {
            skipped.push(`${path} (${info.size} bytes)`);
            continue;
          }
          total += info.size;
          await mkdir(join(to, rel), { recursive: true });
          await writeFile(join(to, path), await handle.readFile());
        } finally {
          await handle.close();
        }
      }
    }
  };
  await walk(from, "");
  return skipped;
}

/** Write `learning/` into the scratch directory. */
export async function writeMaterial(scratch: string, material: LearningMaterial, notes: readonly LearnerNote[], brief: string): Promise<void> {
  const learning = join(scratch, "learning");
  await mkdir(join(learning, "rollouts"), { recursive: true });
  await writeFile(join(learning, "BRIEF.md"), brief);
  const rows = material.rollouts.map(
    (record) => `| ${record.instance} | ${record.trial} | ${record.status} | ${score(record.score)} | ${(record.feedback ?? record.error ?? "").split("\n")[0]!.replace(/\|/g, "\\|").slice(0, 160)} |`,
  );
  const summary = [
    `# Step ${material.step} — task ${material.task}`,
    "",
    `The current (accepted) version scores ${score(material.accepted.score)} on validation; this batch of ${material.rollouts.length} ` +
      `rollout(s) (of ${material.trainInstances} train instances) scores ${score(material.batchScore)}. A score that is "not measured" ` +
      "is a rollout that could not finish (see its feedback), not a failure of the agent.",
    "",
    "| instance | trial | status | score | feedback |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
  await writeFile(join(learning, "summary.md"), summary);
  for (const record of material.rollouts) {
    const dir = join(learning, "rollouts", folderOf(record));
    await mkdir(dir, { recursive: true });
    const skipped = await copyEvidence(record.evidenceDir, join(dir, "evidence"));
    const { evidenceDir: _evidence, ...shown } = record;
    await writeFile(join(dir, "rollout.json"), `${JSON.stringify({ ...shown, ...(skipped.length > 0 ? { evidenceLeftOut: skipped } : {}) }, null, 2)}\n`);
    await writeFile(join(dir, "feedback.md"), `${record.feedback ?? record.error ?? "(no feedback)"}\n`);
  }
  const repairs = material.repairs.flatMap((repair) => [
    `## Step ${repair.step}: ${repair.passedAfter ? "repaired" : "still failing after repair"}`,
    "",
    ...repair.issues.map((issue) => `- ${issue.path}: ${issue.problem}`),
    ...repair.actions.map((action) => `- repair: ${JSON.stringify(action)}`),
    "",
  ]);
  await writeFile(join(learning, "repairs.md"), repairs.length > 0 ? `# Repairs\n\n${repairs.join("\n")}` : "# Repairs\n\nThe previous candidate needed no repair.\n");
  await writeFile(join(learning, HISTORY_FILE), renderHistory(material.history, notes));
}
