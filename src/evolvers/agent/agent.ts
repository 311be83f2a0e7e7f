/**
 * `agent`: a coding-agent host is the learner (docs/evolver.md). Each step: a scratch copy of
 * the candidate (the adapter's files at its root) with the learning material under
 * `learning/`; the host run headless there inside bubblewrap (only the scratch directory and
 * its isolated home writable, the user's home hidden, its web tools denied, its own turn and
 * budget limits, a time limit with the process group killed); then only the learnable paths
 * are copied back into the candidate, and everything else it wrote is reported and dropped.
 */
import { cp, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest } from "../../adapter/read.js";
import { runHeadless, turnEnd, unmeasured } from "../../acting/headless.js";
import { priceUsage, trainerUsage } from "../../acting/usage.js";
import { learnableMatch } from "../../check/rules.js";
import { errorMessage } from "../../errors.js";
import { priceTable } from "../../models/prices.js";
import { defineEvolver } from "../../train/define.js";
import type { EvolverContext, StepResult } from "../../train/types.js";
import { buildBrief } from "./brief.js";
import { applyChanges, diffSnapshots, snapshot, type Changes } from "./changes.js";
import { loadNotes, saveNote, writeMaterial, type LearnerNote } from "./material.js";
import { readLearner, type LearnerSettings } from "./options.js";

/** What the agent Evolver may be given beyond the plugin context: the run's learner settings. */
export type AgentContext = EvolverContext & { learner?: LearnerSettings; env?: Readonly<Record<string, string | undefined>> };

const MESSAGE_CHARS = 600;

function describeDropped(changes: Changes): string {
  return changes.dropped.map((entry) => `${entry.path} (${entry.reason})`).join(", ");
}

async function learn(ctx: AgentContext): Promise<StepResult> {
  const env = ctx.env ?? process.env;
  const learner = readLearner(ctx.learner ?? {}, ctx.options, env);
  const manifest = await readManifest(ctx.root);
  const guide = await stat(join(ctx.workspace.adapter, "EVOLVER.md")).then(() => true, () => false);
  const scratch = await realpath(await mkdtemp(join(tmpdir(), "hermit-learn-")));
  try {
    await cp(ctx.workspace.adapter, scratch, { recursive: true, verbatimSymlinks: true });
    if (!guide) await cp(join(ctx.root, "EVOLVER.md"), join(scratch, "EVOLVER.md")).catch(() => undefined);
    const brief = buildBrief({ manifest, task: ctx.learningMaterial.task, step: ctx.step, guide: guide || (await stat(join(scratch, "EVOLVER.md")).then(() => true, () => false)) });
    await writeMaterial(scratch, ctx.learningMaterial, await loadNotes(ctx.workspace.state), brief);
    const before = await snapshot(scratch);
    ctx.log(`agent: ${learner.host} (${learner.modelName}) learning in ${scratch}`);
    const run = await runHeadless({
      host: learner.host,
      ...(learner.hostBin !== undefined ? { hostBin: learner.hostBin } : {}),
      cwd: scratch,
      prompt: brief,
      purpose: "learn",
      endpoint: learner.endpoint,
      env,
      trustWorkspace: true,
      maxTurns: learner.maxTurns,
      ...(learner.budgetUsd !== undefined ? { maxBudgetUsd: learner.budgetUsd } : {}),
      jail: { writable: [scratch] },
      timeoutMs: learner.timeoutMs,
      signal: ctx.signal,
    });
    const usage = trainerUsage(priceUsage(learner.host, run.transcript.usage, learner.modelName, priceTable()));
    const message = (run.transcript.finalMessage ?? "").trim().slice(0, MESSAGE_CHARS);
    const changes = diffSnapshots(before, await snapshot(scratch), learnableMatch(manifest));
    const note = (status: LearnerNote["status"], text: string, changed: string[] = []): LearnerNote => ({
      step: ctx.step,
      status,
      message: text,
      changed,
      dropped: changes.dropped.map((entry) => entry.path),
    });
    const why = unmeasured(turnEnd(run));
    if (why !== undefined) {
      await saveNote(ctx.workspace.state, note("failed", why), ctx.learningMaterial.history);
      return { status: "failed", summary: `the learner host failed: ${why}`, ...(usage ? { usage } : {}) };
    }
    const dropped = changes.dropped.length > 0 ? `; dropped, not learnable: ${describeDropped(changes)}` : "";
    if (changes.written.length + changes.deleted.length === 0) {
      await saveNote(ctx.workspace.state, note("skipped", message), ctx.learningMaterial.history);
      return { status: "skipped", summary: `the learner changed no learnable file${message ? `: ${message}` : ""}${dropped}`, ...(usage ? { usage } : {}) };
    }
    const applied = await applyChanges(scratch, ctx.workspace.adapter, changes);
    await saveNote(ctx.workspace.state, note("done", message, [...changes.written, ...changes.deleted]), ctx.learningMaterial.history);
    const summary = `${message || `${learner.host} edited the adapter`} [${applied.join("; ")}]${dropped}`;
    return { status: "done", summary, ...(usage ? { usage } : {}) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export const agent = defineEvolver({
  name: "agent",
  options: {
    type: "object",
    properties: {
      host: { type: "string", description: "the learner host (the run's --learner-host wins)" },
      model: { type: "string", description: "the learner model, provider:model-id (the run's --learner-model wins)" },
      "base-url": { type: "string", description: "the learner model's base URL (the run's --learner-base-url wins)" },
      "host-bin": { type: "string", description: "the learner host's executable (default: found on PATH)" },
      "max-turns": { type: "integer", minimum: 1, description: "the host's own turn limit per step (default 40)" },
      timeout: { type: ["string", "number"], description: "the time limit of one step (default 15m)" },
      "max-budget-usd": { type: "number", exclusiveMinimum: 0, description: "Claude Code's --max-budget-usd per step (default: what is left of the run's learning budget)" },
    },
    additionalProperties: false,
  },
  async step(ctx) {
    try {
      return await learn(ctx as AgentContext);
    } catch (error) {
      // Bad settings are the user's to fix before anything runs; the Trainer reports them.
      if ((error as { code?: string }).code === "USAGE" || (error as { code?: string }).code === "HOST_UNKNOWN") throw error;
      return { status: "failed", summary: `the agent learner failed: ${errorMessage(error)}` };
    }
  },
});

export default agent;
