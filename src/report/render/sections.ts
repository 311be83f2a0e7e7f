/** The report's text sections as HTML (pure): summary, steps table, usage and budgets, provenance. */
import type { BudgetView, ReportData, StepView, UsageFigure, UsageView } from "../types.js";
import { describeAdapterUse } from "../../train/adapter-use.js";
import { describeFigure, describeTokens, sumUsage } from "../usage.js";
import { duration, esc, score, shortId, signed } from "./html.js";
import { LEGEND_STATUSES, statusStyle } from "./palette.js";

export function statusBadge(status: string, repaired = false): string {
  const style = statusStyle(status);
  return `<span class="status" style="--status:${style.color}" data-status="${esc(status)}"><span class="glyph">${style.glyph}</span> ${esc(status)}</span>${repaired ? ' <span class="repaired" title="the candidate was repaired to meet the template">repaired</span>' : ""}`;
}

export function statusLegend(): string {
  return `<div class="legend">${LEGEND_STATUSES.map((status) => statusBadge(status)).join(" ")} <span class="repaired">repaired</span></div>`;
}

const money = (value: number) => `$${value.toFixed(4)}`;


export function summary(data: ReportData): string {
  const { run, test } = data;
  const accepted = data.steps.filter((step) => step.status === "accepted").length;
  const delta = test && test.base.score !== null && test.final.score !== null ? ` (${signed(test.final.score - test.base.score)})` : "";
  const total = sumUsage([data.usage.acting, data.usage.learning]);
  const cards = [
    ["status", `${statusBadge(run.status)}${run.reason ? `<div class="muted">${esc(run.reason)}</div>` : ""}`],
    ["steps", `${run.stepsDone} of ${run.stepsPlanned} · ${accepted} accepted`],
    ["sealed test", test ? `base ${score(test.base.score)} → final ${score(test.final.score)}${delta}` : `<span class="muted">not scored yet (scored once, when the run ends)</span>`],
    ["rollouts", `${run.rollouts.ran} run · ${run.rollouts.cached} reused`],
    ["running time", duration(run.elapsedSeconds * 1000)],
    ["tokens · cost", `${describeTokens(total)} · ${describeFigure(total.costUsd, money)}`],
  ];
  return `<div class="cards">${cards.map(([title, body]) => `<div class="card"><div class="card-title">${title}</div><div class="card-body">${body}</div></div>`).join("")}</div>`;
}

export function stepsTable(steps: StepView[]): string {
  if (steps.length === 0) return `<p class="muted">No step has run yet.</p>`;
  const rows = steps.map((step) => {
    const decision = step.decision ? `${signed(step.decision.difference)}${step.decision.standardError !== null ? ` ± ${step.decision.standardError.toFixed(3)}` : ""}` : "—";
    const usage = sumUsage([step.usage.acting, step.usage.learning]);
    return (
      `<tr id="row-${step.step}" data-step="${step.step}" data-status="${esc(step.status)}">` +
      `<td class="num"><a href="#step-${step.step}">${step.step}</a></td>` +
      `<td>${statusBadge(step.status, step.repaired)}</td>` +
      `<td class="num">${score(step.scores.candidate)}</td><td class="num">${score(step.scores.accepted)}</td>` +
      `<td class="num">${decision}</td><td class="num">${score(step.scores.batch)}</td><td class="num">${score(step.scores.screening)}</td>` +
      `<td class="num">${step.rollouts.ran} / ${step.rollouts.cached}</td><td class="num">${describeTokens(usage)}</td><td class="num">${duration(step.durationMs)}</td>` +
      `<td class="reason">${esc(step.reason)}${step.summary !== step.reason ? `<div class="muted">${esc(step.summary)}</div>` : ""}</td></tr>`
    );
  });
  return (
    `<div class="scroll"><table class="steps"><thead><tr><th>step</th><th>status</th><th>candidate</th><th>accepted</th><th>Δ ± SE</th><th>batch</th><th>screening</th>` +
    `<th title="rollouts run / reused from the cache">rollouts</th><th>tokens</th><th>time</th><th>reason</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`
  );
}

function figureRow(label: string, view: UsageView): string {
  const cell = (figure: UsageFigure, format?: (value: number) => string) =>
    `<td class="num" title="${figure.reported} of ${figure.sources} sources reported it">${esc(describeFigure(figure, format))}</td>`;
  return `<tr><th>${label}</th>${cell(view.input)}${cell(view.output)}${cell(view.cached)}${cell(view.reasoning)}${cell(view.costUsd, money)}<td class="num">${view.input.sources}</td></tr>`;
}

function budgetRow(budget: BudgetView): string {
  const share = budget.limit > 0 ? Math.min(1, budget.used / budget.limit) : 1;
  const used = budget.unit === "USD" ? money(budget.used) : `${budget.used} ${budget.unit}`;
  return (
    `<tr data-budget="${esc(budget.name)}"><th>${esc(budget.name)}</th><td><div class="bar"><div style="width:${(share * 100).toFixed(1)}%"></div></div></td>` +
    `<td class="num">${budget.lowerBound ? "≥ " : ""}${esc(used)} of ${esc(budget.unit === "USD" ? money(budget.limit) : `${budget.limit} ${budget.unit}`)}</td></tr>`
  );
}

export function usageSection(data: ReportData): string {
  const { acting, learning, budgets } = data.usage;
  const table =
    `<table class="usage"><thead><tr><th></th><th>input tokens</th><th>output tokens</th><th>cached</th><th>reasoning</th><th>cost</th><th>sources</th></tr></thead><tbody>` +
    figureRow("acting (rollouts)", acting) +
    figureRow("learning (Evolver)", learning) +
    figureRow("total", sumUsage([acting, learning])) +
    `</tbody></table>` +
    `<p class="muted">A figure no source reported is <em>unknown</em>; when only some reported it, the sum is a lower bound (≥). Missing usage is never counted as 0.</p>`;
  const who = data.acting ? `${data.acting.host ?? "a host"}${data.acting.model ? ` on ${data.acting.model}` : ""}` : "";
  const acted = data.acting
    ? `<p class="acting">Acting: ${esc(who)}; ${esc(describeAdapterUse(data.acting.adapterUse) ?? "no rollout left adapter-use evidence")}.</p>`
    : "";
  const budgetTable = budgets.length > 0 ? `<h3>Budgets</h3><table class="budgets"><tbody>${budgets.map(budgetRow).join("")}</tbody></table>` : `<p class="muted">No budget was set besides the number of steps.</p>`;
  return table + acted + budgetTable;
}

export function provenanceSection(data: ReportData): string {
  const p = data.provenance;
  const rows: Array<[string, string]> = [
    ["run", `<code>${esc(p.run)}</code>, branch <code>${esc(p.branch)}</code>${p.finalTag ? `, final tag <code>${esc(p.finalTag)}</code>` : ""}`],
    ["directory", `<code>${esc(data.run.dir)}</code>`],
    ["version store", `<code>${esc(p.store)}</code>`],
    ["hermit", esc(p.hermitVersion)],
    ["template", `${esc(p.template.name ?? "?")} v${esc(p.template.version ?? "?")}, commit <code>${shortId(p.template.commit)}</code>, <code>${esc(p.template.path)}</code>`],
    ["base", `${esc(p.base.adapterName)} ${esc(p.base.adapterVersion)}, commit <code>${shortId(p.base.commit)}</code>${p.base.from ? `, from <code>${esc(p.base.from)}</code>` : ""}`],
    ["task", `<code>${esc(p.task)}</code>`],
    ["evolver", `<code>${esc(p.evolver)}</code>`],
    ["seed", esc(p.seed)],
    ["created · updated", `${esc(p.createdAt)} · ${esc(p.updatedAt)}`],
  ];
  const settings = Object.entries(p.settings)
    .map(([key, value]) => `<tr><th><code>${esc(key)}</code></th><td><code>${esc(value)}</code></td></tr>`)
    .join("");
  const commands = data.reproduce
    .map((item) => `<div class="command"><div>${esc(item.label)}</div>${item.command ? `<pre>${esc(item.command)}</pre>` : ""}</div>`)
    .join("");
  return (
    `<table class="facts"><tbody>${rows.map(([key, value]) => `<tr><th>${key}</th><td>${value}</td></tr>`).join("")}</tbody></table>` +
    `<h3>Settings</h3><table class="facts settings"><tbody>${settings}</tbody></table>` +
    `<h3 id="reproduce">Reproduce and resume</h3>${commands}`
  );
}
