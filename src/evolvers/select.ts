/**
 * `select`: a built-in, offline Evolver that searches which pool fragments (skills, subagents,
 * instruction sections; `--pool DIR`) to include. Each step it adds or removes one fragment,
 * chosen by how well the fragment matches the failing rollouts' feedback, and remembers every
 * move and its outcome in `workspace/state/select.json`, so a rejected move is not tried
 * again from the same starting point. No model is involved.
 *
 * Order of moves: untried additions that match failures (best match first) → untried
 * additions that match nothing → removals of included fragments → additions that validation
 * rejected (or could not decide on) earlier, from a different starting point. What a move led to
 * is read back from the history: a move whose step never evaluated it (the step failed or was
 * skipped) counts as untried. Nothing left, or nothing failing in the whole train split: `stop`
 * (nothing failing in a sampled batch: `skipped`).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeJson } from "../fs/json.js";
import { defineEvolver } from "../train/define.js";
import { seededRandom } from "../train/random.js";
import type { EvolverContext, LearningMaterial, StepResult } from "../train/types.js";
import {
  addFragment,
  fragmentPaths,
  isIncluded,
  readPlacement,
  readPool,
  removeFragment,
  unplaceable,
  type Fragment,
  type Placement,
} from "./pool.js";
import { commonWords, failures, rankFragments, type Relevance } from "./relevance.js";

export interface SelectMove {
  step: number;
  op: "add" | "remove";
  fragment: string;
  /** The pool fragments included when the move was made (sorted ids). */
  base: string[];
  /** The step's status, once the next step's history tells it. */
  outcome?: string;
  relevance: number;
}

export interface SelectState {
  version: 1;
  moves: SelectMove[];
  /** Fragments the Trainer had to repair away: never tried again. */
  invalid: Record<string, string>;
}

const STATE_FILE = "select.json";

/** `select`'s options (`--evolver-option pool=DIR`, `--pool DIR`, or `pool:` in the config's `evolver:` section). */
export type SelectOptions = { pool: string };

export const select = defineEvolver<SelectOptions>({
  name: "select",
  options: {
    type: "object",
    properties: {
      pool: { type: "string", format: "path", description: "the pool of fragments to choose from: a folder with skills/, agents/, sections/" },
    },
    required: ["pool"],
    additionalProperties: false,
  },
  /** Without a readable pool every step would fail: refuse it at the start. */
  async validate(options) {
    await readPool(options.pool);
  },
  async step(context: EvolverContext<SelectOptions>): Promise<StepResult> {
    const pool = await readPool(context.options.pool);
    const where = await readPlacement(context.workspace.adapter);
    const state = await readState(context.workspace.state);
    learnFromHistory(state, context.learningMaterial, pool, where, context.log);

    const included = new Set<string>();
    for (const fragment of pool) if (await isIncluded(context.workspace.adapter, fragment, where)) included.add(fragment.id);
    const base = [...included].sort();
    const failing = failures(context.learningMaterial.rollouts);
    if (failing.length === 0) {
      await saveState(context.workspace.state, state);
      // A sampled batch (--batch-size) without failures says nothing about the instances it left out.
      const sampled = new Set(context.learningMaterial.rollouts.map((record) => record.instance)).size;
      const total = context.learningMaterial.trainInstances ?? sampled;
      if (sampled < total) {
        return { status: "skipped", summary: `no failure in this batch (a sample of ${sampled} of ${total} train instances); nothing to learn from it` };
      }
      return { status: "stop", summary: "every rollout of the batch got the best score; nothing left to fix" };
    }

    const ranked = rankFragments(pool, failing, commonWords(context.learningMaterial.rollouts));
    const move = chooseMove(pool, where, state, base, ranked, context.seed, context.step);
    if (!move) {
      await saveState(context.workspace.state, state);
      return { status: "stop", summary: `search exhausted: every move from the current ${base.length} fragment(s) has been tried` };
    }
    const { fragment, op, relevance } = move;
    if (op === "add") await addFragment(context.workspace.adapter, fragment, where);
    else await removeFragment(context.workspace.adapter, fragment, where);
    state.moves.push({ step: context.step, op, fragment: fragment.id, base, relevance: Number(relevance.score.toFixed(4)) });
    await saveState(context.workspace.state, state);
    const why =
      relevance.failures > 0
        ? `matches ${relevance.matched.map((word) => `'${word}'`).join(", ")} in ${relevance.failures} of ${failing.length} failing rollout(s)`
        : `no failure mentions it; trying it anyway`;
    return { status: "done", summary: `${op === "add" ? "added" : "removed"} ${fragment.kind} ${fragment.name} (${why})` };
  },
});

export default select;

interface Move {
  fragment: Fragment;
  op: "add" | "remove";
  relevance: Relevance;
}

/** Step statuses that mean the move was tried: its candidate was evaluated (or found invalid). */
const EVALUATED = new Set(["accepted", "rejected", "indecisive", "unmeasured", "invalid"]);
/** Outcomes after which an addition may be tried again from another starting point. */
const RETRYABLE = new Set(["rejected", "indecisive", "unmeasured"]);

/** Pick the next move (pure apart from the seeded tie-break). */
export function chooseMove(
  pool: Fragment[],
  where: Placement,
  state: SelectState,
  base: string[],
  ranked: Relevance[],
  seed: number,
  step: number,
): Move | undefined {
  const baseKey = base.join(",");
  const evaluated = state.moves.filter((m) => m.outcome === undefined || EVALUATED.has(m.outcome));
  const triedHere = new Set(evaluated.filter((m) => m.base.join(",") === baseKey).map((m) => `${m.op}:${m.fragment}`));
  const triedAnywhere = new Set(evaluated.map((m) => `${m.op}:${m.fragment}`));
  // Only an addition validation turned down is worth another try elsewhere; an accepted one is in, an invalid one never fits.
  const rejectedAdds = new Set(evaluated.filter((m) => m.op === "add" && RETRYABLE.has(m.outcome ?? "")).map((m) => m.fragment));
  const random = seededRandom(seed, step);
  const jitter = new Map(pool.map((fragment) => [fragment.id, random()]));
  const byRelevance = (a: Relevance, b: Relevance) => b.score - a.score || jitter.get(a.fragment.id)! - jitter.get(b.fragment.id)!;
  const usable = ranked.filter((r) => !state.invalid[r.fragment.id] && !unplaceable(r.fragment, where)).sort(byRelevance);
  const adds = usable.filter((r) => !base.includes(r.fragment.id) && !triedHere.has(`add:${r.fragment.id}`));
  const removes = usable.filter((r) => base.includes(r.fragment.id) && !triedHere.has(`remove:${r.fragment.id}`));
  const tiers: Array<[Relevance[], "add" | "remove"]> = [
    [adds.filter((r) => r.score > 0 && !triedAnywhere.has(`add:${r.fragment.id}`)), "add"],
    [adds.filter((r) => r.score === 0 && !triedAnywhere.has(`add:${r.fragment.id}`)), "add"],
    [removes, "remove"],
    [adds.filter((r) => r.score > 0 && rejectedAdds.has(r.fragment.id)), "add"],
  ];
  for (const [list, op] of tiers) if (list.length > 0) return { fragment: list[0].fragment, op, relevance: list[0] };
  return undefined;
}

/** Fill in the outcome of earlier moves from the history, and learn from repairs. */
function learnFromHistory(state: SelectState, material: LearningMaterial, pool: Fragment[], where: Placement, log: (line: string) => void): void {
  const byStep = new Map(material.history.map((entry) => [entry.step, entry]));
  for (const move of state.moves) {
    if (move.outcome === undefined && byStep.has(move.step)) move.outcome = byStep.get(move.step)!.status;
  }
  for (const repair of material.repairs) {
    const move = state.moves.find((m) => m.step === repair.step);
    const fragment = pool.find((f) => f.id === move?.fragment);
    if (!move || !fragment || move.op !== "add") continue;
    const paths = fragmentPaths(fragment, where);
    const hit = repair.issues.find((issue) => paths.some((path) => (path.endsWith("/") ? issue.path.startsWith(path) : issue.path === path)));
    if (hit) {
      state.invalid[fragment.id] = `${hit.path}: ${hit.problem}`;
      log(`fragment ${fragment.id} broke the specification (${hit.problem}); it will not be tried again`);
    }
  }
}

async function readState(dir: string): Promise<SelectState> {
  const text = await readFile(join(dir, STATE_FILE), "utf8").catch(() => undefined);
  if (!text) return { version: 1, moves: [], invalid: {} };
  const parsed = JSON.parse(text) as SelectState;
  return { version: 1, moves: parsed.moves ?? [], invalid: parsed.invalid ?? {} };
}

async function saveState(dir: string, state: SelectState): Promise<void> {
  await writeJson(join(dir, STATE_FILE), state);
}
