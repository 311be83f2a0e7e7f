/**
 * `reflect`: a GEPA-class reflective Evolver. Each step it picks a parent from the Pareto front
 * of the versions it made (per validation instance), picks one component (by blame or
 * round-robin), shows the learner model the component, the template's rules and the rollouts'
 * evidence (failures first, within a token budget), and adopts the full new text it returns —
 * unless the answer is truncated, empty, unchanged or malformed, in which case the step fails
 * with the reason and the next prompt says so. Now and then it merges two front versions that
 * improved different components, without a model call.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readAdapterText, resolveInside } from "../../adapter/files.js";
import { walkTree } from "../../adapter/tree.js";
import { readManifest } from "../../adapter/read.js";
import type { Manifest } from "../../adapter/types.js";
import { isHermitError } from "../../errors.js";
import { defineEvolver } from "../../train/define.js";
import { seededRandom } from "../../train/random.js";
import type { EvolverContext, StepResult } from "../../train/types.js";
import { blamed, key, listComponents, roundRobin, type Component } from "./components.js";
import { isFailure, orderExamples, reflectiveDataset, type Example } from "./dataset.js";
import { readEvidence } from "./evidence.js";
import { findMerge, mergeKey, selectParent } from "./pareto.js";
import { readProposal } from "./proposal.js";
import { buildPrompt } from "./prompt.js";
import { attemptNotes, learnFromHistory, programScores, type History } from "./programs.js";
import { loadState, saveState, type KnownProgram, type ReflectState } from "./state.js";
import { readOptions, type ReflectOptions } from "./options.js";

/** What `reflect` reads from the context: the learner model (`ctx.model`) comes with `--learner-model`. */
export type ReflectContext = EvolverContext;

export const reflect = defineEvolver({
  name: "reflect",
  // The run is refused without --learner-model; candidates are screened on the acting batch unless --screen off.
  model: "required",
  screen: true,
  options: {
    type: "object",
    properties: {
      component: { type: "string", enum: ["blame", "round-robin"], description: "how the file to rewrite is chosen: the one the failures name (else round-robin), or round-robin" },
      "dataset-tokens": { type: "integer", minimum: 500, description: "the most tokens the rollouts may take in the prompt" },
      successes: { type: "integer", minimum: 0, description: "passing rollouts shown after the failures" },
      "max-output-tokens": { type: "integer", minimum: 256, description: "the learner's output limit per proposal" },
      "merge-every": { type: "integer", minimum: 0, description: "try a merge of two Pareto-front versions every n steps (0: never)" },
    },
    additionalProperties: false,
  },
  validate(options) {
    readOptions(options);
  },
  async step(context: EvolverContext): Promise<StepResult> {
    const ctx = context as ReflectContext;
    if (!ctx.model) return { status: "failed", summary: "reflect needs a learner model: give --learner-model provider:model-id" };
    const options = readOptions(ctx.options);
    const template = await readManifest(ctx.root);
    const state = await loadState(ctx.workspace.state);
    const history = ctx.learningMaterial.history as History;
    const accepted = await textFiles(ctx.rolloutAdapter, template);
    const acceptedId = learnFromHistory(state, ctx.learningMaterial, history, accepted);
    const scores = programScores(state, history);
    const random = seededRandom(ctx.seed, ctx.step);
    if (options.mergeEvery > 0 && ctx.step % options.mergeEvery === 0) {
      const merge = findMerge(state.programs.filter((program) => !program.repaired), scores, new Set(state.merges), random);
      if (merge) return applyMerge(ctx, template, state, merge, accepted);
    }
    const parentId = selectParent(scores, random) ?? acceptedId;
    const parent = state.programs.find((program) => program.id === parentId)!;
    await materialize(ctx.workspace.adapter, template, parent.files);
    return propose(ctx, { template, state, parent, options, history });
  },
});

export default reflect;

interface Proposing {
  template: Manifest;
  state: ReflectState;
  parent: KnownProgram;
  options: ReflectOptions;
  history: History;
}

async function propose(ctx: ReflectContext, input: Proposing): Promise<StepResult> {
  const { template, state, parent, options } = input;
  const tree = await walkTree(ctx.workspace.adapter);
  const paths = tree.files.map((file) => file.path);
  const components = listComponents(paths, template);
  if (components.length === 0) return { status: "stop", summary: "the template declares no learnable text file for reflect to improve" };
  const examples = await examplesOf(ctx);
  const { best } = orderExamples(examples, 0);
  const failing = examples.filter((example) => example.score === null || isFailure(example, best));
  const fullBatch = ctx.learningMaterial.rollouts.length > 0 && new Set(examples.map((example) => example.instance)).size >= ctx.learningMaterial.trainInstances;
  if (failing.length === 0) {
    return fullBatch ? { status: "stop", summary: "every rollout of the train split passed: nothing left to learn" } : { status: "skipped", summary: "no failing rollout in this batch" };
  }
  const choice = chooseComponent(components, failing, state, options);
  const component = choice.component;
  const current = component.kind === "new-skill" || component.kind === "new-agent" ? undefined : await readAdapterText(ctx.workspace.adapter, component.path);
  const dataset = reflectiveDataset(examples, { tokens: options.datasetTokens, successes: options.successes });
  const guide = await readFile(join(ctx.root, "EVOLVER.md"), "utf8").catch(() => undefined);
  const siblings = components.filter((other) => other.name !== undefined).map((other) => other.name!);
  const notes = attemptNotes(state, input.history, key(component));
  const prompt = buildPrompt({ component, ...(current !== undefined ? { current } : {}), siblings, ...(guide ? { guide } : {}), dataset, batch: { rollouts: examples.length, score: ctx.learningMaterial.batchScore }, notes });
  state.lastComponent = key(component);
  let answer;
  try {
    answer = await ctx.model!.generate({ ...prompt, maxOutputTokens: options.maxOutputTokens, purpose: `reflect: propose ${component.path}` });
  } catch (error) {
    if (isHermitError(error) && error.code === "MODEL_CALL_FAILED") return notAdopted(ctx, state, component, `the learner model failed: ${error.message}`);
    throw error;
  }
  const proposal = readProposal({ answer: answer.text, finishReason: answer.finishReason, maxOutputTokens: options.maxOutputTokens, component, ...(current !== undefined ? { current } : {}), existing: new Set(paths) });
  if (!proposal.ok) return notAdopted(ctx, state, component, proposal.reason);
  await writeInside(ctx.workspace.adapter, proposal.path, proposal.text);
  const files = { ...parent.files, [proposal.path]: proposal.text };
  state.programs.push({ id: `step-${ctx.step}`, parents: [parent.id], files, step: ctx.step, changed: [proposal.path] });
  delete state.lastFailure;
  await saveState(ctx.workspace.state, state);
  const from = parent.id === state.acceptedAt[String(ctx.step)] ? "" : ` of ${describeProgram(parent)}`;
  const verb = component.kind === "new-skill" ? `added skill ${proposal.name}` : component.kind === "new-agent" ? `added subagent ${proposal.name}` : `rewrote ${proposal.path}${from}`;
  return { status: "done", summary: `${verb} (${choice.why}; ${dataset.failures + dataset.crashes} failing rollout(s) shown)` };
}

async function notAdopted(ctx: ReflectContext, state: ReflectState, component: Component, reason: string): Promise<StepResult> {
  state.lastFailure = { step: ctx.step, component: key(component), reason };
  await saveState(ctx.workspace.state, state);
  return { status: "failed", summary: `proposal for ${component.path} not adopted: ${reason}` };
}

function chooseComponent(components: Component[], failing: Example[], state: ReflectState, options: ReflectOptions): { component: Component; why: string } {
  if (options.component === "blame") {
    const texts = failing.map((example) => `${example.feedback ?? ""}\n${example.error ?? ""}\n${example.output ?? ""}`.toLowerCase());
    const found = blamed(components, { failures: texts });
    if (found) return { component: found.component, why: `named in ${found.failures} failing rollout(s)` };
  }
  return { component: roundRobin(components, state.lastComponent), why: "next in turn" };
}

async function applyMerge(ctx: ReflectContext, template: Manifest, state: ReflectState, merge: NonNullable<ReturnType<typeof findMerge>>, accepted: Record<string, string>): Promise<StepResult> {
  await materialize(ctx.workspace.adapter, template, merge.files);
  state.merges.push(mergeKey(merge.a, merge.b, merge.ancestor));
  state.programs.push({ id: `step-${ctx.step}`, parents: [merge.a, merge.b], files: merge.files, step: ctx.step, changed: Object.keys(merge.from) });
  await saveState(ctx.workspace.state, state);
  const parts = [merge.a, merge.b].map((id) => `${id} (${Object.entries(merge.from).filter(([, from]) => from === id).map(([path]) => path).join(", ")})`);
  const same = Object.keys(merge.files).length === Object.keys(accepted).length && Object.entries(merge.files).every(([path, text]) => accepted[path] === text);
  return { status: "done", summary: `merged ${parts.join(" and ")} over ${merge.ancestor}${same ? " (the same as the accepted version)" : ""}` };
}

function describeProgram(program: KnownProgram): string {
  return program.step === undefined ? "the base" : `step ${program.step}'s candidate`;
}

/** The rollouts of the acting batch as examples, with what each left in its evidence. */
async function examplesOf(ctx: ReflectContext): Promise<Example[]> {
  return Promise.all(
    ctx.learningMaterial.rollouts.map(async (record) => {
      const input = (record as { input?: unknown }).input;
      const output = await readEvidence(record.evidenceDir);
      return {
        instance: record.instance,
        trial: record.trial,
        score: record.score,
        ...(record.feedback ? { feedback: record.feedback } : {}),
        ...(record.error ? { error: record.error } : {}),
        ...(input !== undefined ? { input: typeof input === "string" ? input : JSON.stringify(input, null, 2) } : {}),
        ...(output ? { output } : {}),
      };
    }),
  );
}

/** The text components of an adapter directory: path → text. */
export async function textFiles(dir: string, template: Manifest): Promise<Record<string, string>> {
  const tree = await walkTree(dir);
  const components = listComponents(tree.files.map((file) => file.path), template).filter((component) => component.kind !== "new-skill" && component.kind !== "new-agent");
  const entries = await Promise.all(components.map(async (component) => [component.path, await readAdapterText(dir, component.path)] as const));
  return Object.fromEntries(entries);
}

/** Make the candidate's text components exactly `files`: write those, remove the others (a removed skill takes its folder). */
async function materialize(dir: string, template: Manifest, files: Record<string, string>): Promise<void> {
  const present = await textFiles(dir, template);
  for (const path of Object.keys(present)) {
    if (path in files) continue;
    const skillFolder = /^(.*\/)?[^/]+\/SKILL\.md$/.test(path) ? dirname(path) : undefined;
    await rm(resolveInside(dir, skillFolder ?? path), { recursive: true, force: true });
  }
  for (const [path, text] of Object.entries(files)) if (present[path] !== text) await writeInside(dir, path, text);
}

async function writeInside(dir: string, path: string, text: string): Promise<void> {
  const file = resolveInside(dir, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}
