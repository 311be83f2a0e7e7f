/**
 * Candidate selection over validation instances (pure), as in GEPA: the Pareto front holds, for
 * each instance, the candidates that scored best on it. A candidate that is on the front only
 * where others also are is dominated and dropped; the parent of the next proposal is drawn from
 * the rest, weighted by how many instances each leads. Two front candidates that improved
 * different components over a common ancestor can be merged without a model call.
 */

/** A version `reflect` knows the text files of. */
export interface Program {
  /** `base`, `step-<n>`. */
  id: string;
  /** The program it was made from (a merge has two). */
  parents: string[];
  /** Text components: path → text. A path missing here is absent from the version. */
  files: Record<string, string>;
}

/** Mean validation score per instance, per program. */
export type Scores = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** The mean of a program's instance scores (null without any). */
export function aggregate(scores: ReadonlyMap<string, number> | undefined): number | null {
  if (!scores || scores.size === 0) return null;
  let sum = 0;
  for (const value of scores.values()) sum += value;
  return sum / scores.size;
}

/** For each instance, the programs with the best score on it. */
export function frontByInstance(scores: Scores): Map<string, Set<string>> {
  const best = new Map<string, { score: number; programs: Set<string> }>();
  for (const [program, instances] of scores) {
    for (const [instance, score] of instances) {
      const current = best.get(instance);
      if (!current || score > current.score) best.set(instance, { score, programs: new Set([program]) });
      else if (score === current.score) current.programs.add(program);
    }
  }
  return new Map([...best].map(([instance, { programs }]) => [instance, programs]));
}

/**
 * The front without dominated programs: a program is dropped when every instance it leads is
 * also led by another program still kept. Weaker programs (lower mean) are dropped first.
 */
export function nonDominated(scores: Scores): Map<string, Set<string>> {
  const fronts = frontByInstance(scores);
  const kept = new Set([...fronts.values()].flatMap((programs) => [...programs]));
  const order = [...kept].sort((a, b) => (aggregate(scores.get(a)) ?? 0) - (aggregate(scores.get(b)) ?? 0) || a.localeCompare(b));
  for (let changed = true; changed; ) {
    changed = false;
    for (const program of order) {
      if (!kept.has(program)) continue;
      const dominated = [...fronts.values()].filter((front) => front.has(program)).every((front) => [...front].some((other) => other !== program && kept.has(other)));
      if (dominated) {
        kept.delete(program);
        changed = true;
        break;
      }
    }
  }
  return new Map([...fronts].map(([instance, programs]) => [instance, new Set([...programs].filter((program) => kept.has(program)))]));
}

/** How many instances each front program leads. */
export function frontCounts(scores: Scores): Map<string, number> {
  const counts = new Map<string, number>();
  for (const programs of nonDominated(scores).values()) for (const program of programs) counts.set(program, (counts.get(program) ?? 0) + 1);
  return counts;
}

/**
 * The parent for the next proposal: a front program drawn with weight = instances it leads
 * (`random` in [0, 1)). Undefined when no program has a score yet.
 */
export function selectParent(scores: Scores, random: () => number): string | undefined {
  const counts = [...frontCounts(scores)].sort(([a], [b]) => a.localeCompare(b));
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return undefined;
  let pick = random() * total;
  for (const [program, count] of counts) {
    pick -= count;
    if (pick < 0) return program;
  }
  return counts.at(-1)![0];
}

/** A merge of two front programs over their common ancestor. */
export interface Merge {
  a: string;
  b: string;
  ancestor: string;
  files: Record<string, string>;
  /** Which program each changed path was taken from. */
  from: Record<string, string>;
}

function ancestors(id: string, programs: ReadonlyMap<string, Program>): Set<string> {
  const found = new Set<string>();
  const stack = [...(programs.get(id)?.parents ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    stack.push(...(programs.get(next)?.parents ?? []));
  }
  return found;
}

/**
 * A merge not tried yet: two front programs, neither descending from the other, with a common
 * ancestor no better than either, that each changed a component the other did not. Each path
 * takes the version that changed it (both changed it: the better program's).
 */
export function findMerge(programList: readonly Program[], scores: Scores, tried: ReadonlySet<string>, random: () => number): Merge | undefined {
  const programs = new Map(programList.map((program) => [program.id, program]));
  const front = [...frontCounts(scores).keys()].filter((id) => programs.has(id)).sort();
  const options: Merge[] = [];
  for (const [i, a] of front.entries()) {
    for (const b of front.slice(i + 1)) {
      const ofA = ancestors(a, programs);
      const ofB = ancestors(b, programs);
      if (ofA.has(b) || ofB.has(a)) continue;
      for (const ancestor of [...ofA].filter((id) => ofB.has(id) && programs.has(id)).sort()) {
        if (tried.has(mergeKey(a, b, ancestor))) continue;
        const low = aggregate(scores.get(ancestor));
        if (low !== null && (low > (aggregate(scores.get(a)) ?? -Infinity) || low > (aggregate(scores.get(b)) ?? -Infinity))) continue;
        const merge = combine(programs.get(a)!, programs.get(b)!, programs.get(ancestor)!, scores);
        if (merge) options.push(merge);
      }
    }
  }
  return options.length === 0 ? undefined : options[Math.floor(random() * options.length)];
}

export function mergeKey(a: string, b: string, ancestor: string): string {
  return `${[a, b].sort().join("+")}@${ancestor}`;
}

function combine(a: Program, b: Program, ancestor: Program, scores: Scores): Merge | undefined {
  const files: Record<string, string> = {};
  const from: Record<string, string> = {};
  const better = (aggregate(scores.get(b.id)) ?? 0) > (aggregate(scores.get(a.id)) ?? 0) ? b : a;
  let fromA = false;
  let fromB = false;
  for (const path of new Set([...Object.keys(a.files), ...Object.keys(b.files), ...Object.keys(ancestor.files)])) {
    const changedA = a.files[path] !== ancestor.files[path];
    const changedB = b.files[path] !== ancestor.files[path];
    const source = changedA && changedB ? better : changedA ? a : changedB ? b : ancestor;
    if (changedA && !changedB) fromA = true;
    if (changedB && !changedA) fromB = true;
    if (source !== ancestor) from[path] = source.id;
    const text = source.files[path];
    if (text !== undefined) files[path] = text;
  }
  return fromA && fromB ? { a: a.id, b: b.id, ancestor: ancestor.id, files, from } : undefined;
}
