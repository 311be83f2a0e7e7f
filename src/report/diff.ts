/**
 * Line diffs of one file between two versions (pure), with the `diff` library. Bounded: a
 * binary file, a file past `MAX_FILE_BYTES`, or a change past `MAX_EDITS` gets a note instead
 * of a line diff, and a diff past `MAX_LINES` lines is cut, so one huge file cannot make a
 * report too big to open.
 */
import { structuredPatch } from "diff";
import type { FileChange } from "../train/card.js";
import type { FileDiff } from "./types.js";

export const MAX_FILE_BYTES = 256 * 1024;
export const MAX_EDITS = 4000;
export const MAX_LINES = 600;

/** Is this content text we can show line by line (UTF-8, no NUL byte)? */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8000).includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The diff of one changed file; `before`/`after` are absent for an added/deleted file. */
export function fileDiff(change: FileChange, before: Uint8Array | undefined, after: Uint8Array | undefined): FileDiff {
  const base: FileDiff = { path: change.path, change: change.change, added: 0, removed: 0, hunks: [] };
  const size = Math.max(before?.length ?? 0, after?.length ?? 0);
  if (size > MAX_FILE_BYTES) return { ...base, note: `too large for a line diff (${size} bytes)` };
  const oldText = before ? asText(before) : "";
  const newText = after ? asText(after) : "";
  if (oldText === undefined || newText === undefined) return { ...base, note: "binary file" };
  if (oldText === newText) return { ...base, note: "file mode changed" };
  const patch = structuredPatch(change.path, change.path, oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDITS });
  if (!patch) return { ...base, note: `too many changed lines for a line diff (more than ${MAX_EDITS} edits)` };
  let added = 0;
  let removed = 0;
  let shown = 0;
  let cut = false;
  const hunks: FileDiff["hunks"] = [];
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added += 1;
      else if (line.startsWith("-")) removed += 1;
    }
    if (shown >= MAX_LINES) {
      cut = true;
      continue;
    }
    const lines = hunk.lines.slice(0, MAX_LINES - shown);
    if (lines.length < hunk.lines.length) cut = true;
    shown += lines.length;
    hunks.push({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines });
  }
  return { ...base, added, removed, hunks, ...(cut ? { note: `diff cut at ${MAX_LINES} lines` } : {}) };
}
