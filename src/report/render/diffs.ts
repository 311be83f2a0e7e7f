/**
 * Each step's changes (pure): a collapsible block per step with its commits, its reason and its
 * repair. The line diffs themselves are in the embedded data and drawn by the page's script when
 * a block is opened, so a 200-step page does not build thousands of diff lines up front.
 */
import type { StepView } from "../types.js";
import { esc, score, shortId } from "./html.js";
import { statusBadge } from "./sections.js";

function repairBlock(step: StepView): string {
  const repair = step.repair;
  if (!repair) return "";
  return (
    `<div class="repair"><h4>Repair ${repair.passedAfter ? "(the repaired candidate passed)" : "(still invalid after repair)"}</h4>` +
    `<p>Issues the check found in the candidate as the Evolver left it${step.rawCommit ? ` (commit <code>${shortId(step.rawCommit)}</code>)` : ""}:</p>` +
    `<ul>${repair.issues.map((issue) => `<li><code>${esc(issue.path)}</code>: ${esc(issue.problem)}</li>`).join("")}</ul>` +
    `<p>What the repair did:</p><ul>${repair.actions.map((action) => `<li>${esc(action)}</li>`).join("")}</ul>` +
    (repair.diff.length > 0 ? `<details class="repair-diff"><summary>The repair's own changes (raw candidate → recorded candidate)</summary><div class="files" data-files="repair"></div></details>` : "") +
    `</div>`
  );
}

/** One collapsible block per step, oldest first. */
export function changesSection(steps: StepView[]): string {
  if (steps.length === 0) return `<p class="muted">No step has run yet.</p>`;
  return steps
    .map((step, index) => {
      const files = step.diff.length;
      const added = step.diff.reduce((sum, file) => sum + file.added, 0);
      const removed = step.diff.reduce((sum, file) => sum + file.removed, 0);
      const head =
        `<summary><span class="step-no">step ${step.step}</span> ${statusBadge(step.status, step.repaired)} ` +
        `<span class="muted">${step.diffNote && files === 0 ? "changes unavailable" : `${files} file${files === 1 ? "" : "s"} <span class="add">+${added}</span> <span class="del">−${removed}</span>`} · candidate ${score(step.scores.candidate)} vs ${score(step.scores.accepted)}</span> ${esc(step.summary)}</summary>`;
      const commits = step.commit ? `<p>Candidate <code>${shortId(step.commit)}</code> made from <code>${shortId(step.parent)}</code>. ${esc(step.reason)}</p>` : `<p>${esc(step.reason)}</p>`;
      const empty = step.diffNote ? esc(step.diffNote) : "No file changed: the candidate is its parent.";
      const body = step.commit ? (files > 0 ? `<div class="files" data-files="diff"></div>` : `<p class="muted">${empty}</p>`) : "";
      return `<details class="step" id="step-${step.step}" data-step="${step.step}" data-index="${index}">${head}${commits}${repairBlock(step)}${body}</details>`;
    })
    .join("");
}
