/** Each step's changes as HTML (pure): the candidate against its parent, and the repair if any. */
import type { FileDiff, StepView } from "../types.js";
import { esc, score, shortId } from "./html.js";
import { statusBadge } from "./sections.js";

function lineClass(line: string): string {
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("\\")) return "meta";
  return "ctx";
}

function fileBlock(file: FileDiff): string {
  const head = `<div class="file-head" data-file="${esc(file.path)}"><span class="change ${file.change}">${file.change}</span> <code>${esc(file.path)}</code> <span class="add">+${file.added}</span> <span class="del">−${file.removed}</span>${file.note ? ` <span class="muted">(${esc(file.note)})</span>` : ""}</div>`;
  if (file.hunks.length === 0) return `<div class="file">${head}</div>`;
  const hunks = file.hunks
    .map((hunk) => {
      const header = `<div class="hunk">@@ −${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</div>`;
      return header + hunk.lines.map((line) => `<div class="line ${lineClass(line)}">${esc(line)}</div>`).join("");
    })
    .join("");
  return `<div class="file">${head}<div class="diff">${hunks}</div></div>`;
}

function filesBlock(files: FileDiff[], empty: string): string {
  if (files.length === 0) return `<p class="muted">${empty}</p>`;
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  return `<p>${files.length} file${files.length === 1 ? "" : "s"} changed, <span class="add">+${added}</span> <span class="del">−${removed}</span></p>${files.map(fileBlock).join("")}`;
}

function repairBlock(step: StepView): string {
  const repair = step.repair;
  if (!repair) return "";
  return (
    `<div class="repair"><h4>Repair ${repair.passedAfter ? "(the repaired candidate passed)" : "(still invalid after repair)"}</h4>` +
    `<p>Issues the check found in the candidate as the Evolver left it${step.rawCommit ? ` (commit <code>${shortId(step.rawCommit)}</code>)` : ""}:</p>` +
    `<ul>${repair.issues.map((issue) => `<li><code>${esc(issue.path)}</code>: ${esc(issue.problem)}</li>`).join("")}</ul>` +
    `<p>What the repair did:</p><ul>${repair.actions.map((action) => `<li>${esc(action)}</li>`).join("")}</ul>` +
    (repair.diff.length > 0 ? `<details><summary>The repair's own changes (raw candidate → recorded candidate)</summary>${filesBlock(repair.diff, "")}</details>` : "") +
    `</div>`
  );
}

/** One collapsible block per step, newest last. */
export function changesSection(steps: StepView[]): string {
  if (steps.length === 0) return `<p class="muted">No step has run yet.</p>`;
  return steps
    .map((step) => {
      const files = step.diff.length;
      const head =
        `<summary><span class="step-no">step ${step.step}</span> ${statusBadge(step.status, step.repaired)} ` +
        `<span class="muted">${files} file${files === 1 ? "" : "s"} · candidate ${score(step.scores.candidate)} vs ${score(step.scores.accepted)}</span> ${esc(step.summary)}</summary>`;
      const commits = step.commit
        ? `<p>Candidate <code>${shortId(step.commit)}</code> made from <code>${shortId(step.parent)}</code>. ${esc(step.reason)}</p>`
        : `<p>${esc(step.reason)}</p>`;
      const body = step.commit ? filesBlock(step.diff, step.diffNote ? esc(step.diffNote) : "No file changed: the candidate is its parent.") : "";
      return `<details class="step" id="step-${step.step}" data-step="${step.step}">${head}${commits}${repairBlock(step)}${body}</details>`;
    })
    .join("");
}
