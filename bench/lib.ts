/**
 * The benchmark harness: every speed goal (bench/goals.ts) is a ratio of a subject to a
 * baseline measured in the same run, in pairs, interleaved (A B A B …) after one warm-up of
 * each, so that the machine's load hits both alike. Each pair gives a wall-time ratio and a
 * CPU-time ratio (steadier on a shared machine); the min, median and max of each are printed
 * next to the goal, and `npm run bench` ends with one line per goal.
 *
 *   await compare("version", { label: "hermit --version", command: [node, cli, "--version"] },
 *                            { label: "node -e 0", command: [node, "-e", "0"] });
 *
 * A side is a whole process (`command`: its wall time from start to reaping and the kernel's
 * user + system time of it and the children it waited for, via bench/process-times.py) or a
 * call in this process (`run`: wall time, and `process.cpuUsage()` plus the CPU of child
 * processes it waited for, which Linux counts in 10 ms ticks).
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { GOALS, type GoalId } from "./goals.js";

export type Side = ProcessSide | CallSide;

export interface ProcessSide {
  label: string;
  /** argv of the whole process to time. It must exit 0. */
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Runs before each run, untimed (a fresh workspace, …). */
  prepare?: () => Promise<void> | void;
}

export interface CallSide {
  label: string;
  /** One run, in this process. */
  run: () => Promise<unknown> | unknown;
  prepare?: () => Promise<void> | void;
}

export interface CompareOptions {
  /** Counted pairs (default: BENCH_PAIRS, else 9). */
  pairs?: number;
}

/** Min, median and max. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface Comparison {
  id: GoalId;
  subject: { label: string; wallMs: Spread; cpuMs: Spread };
  baseline: { label: string; wallMs: Spread; cpuMs: Spread };
  /** Per-pair ratios subject / baseline. */
  wall: Spread;
  cpu: Spread;
  pairs: number;
  /** Whether the median of the ratio the goal is on meets it; undefined for a row without a goal. */
  met: boolean | undefined;
}

/** A row judged by something other than a ratio (memory), or a ratio with a condition. */
export interface Observation {
  id: GoalId;
  value: string;
  met: boolean;
}

const results = new Map<GoalId, Comparison | Observation>();

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/**
 * Measure `subject` against `baseline` for the goal `id`: one warm-up run of each, then
 * `pairs` pairs, subject first in each; prints the row and keeps it for `printSummary`.
 */
export async function compare(id: GoalId, subject: Side, baseline: Side, options: CompareOptions = {}): Promise<Comparison> {
  const pairs = options.pairs ?? Number(process.env.BENCH_PAIRS ?? 9);
  await measure(subject);
  await measure(baseline);
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    a.push(await measure(subject));
    b.push(await measure(baseline));
  }
  const goal = GOALS[id];
  const wall = spread(a.map((sample, i) => sample.wallMs / b[i]!.wallMs));
  const cpu = spread(a.map((sample, i) => sample.cpuMs / b[i]!.cpuMs));
  const judged = goal.on === "cpu" ? cpu : wall;
  const comparison: Comparison = {
    id,
    subject: { label: subject.label, wallMs: spread(a.map((s) => s.wallMs)), cpuMs: spread(a.map((s) => s.cpuMs)) },
    baseline: { label: baseline.label, wallMs: spread(b.map((s) => s.wallMs)), cpuMs: spread(b.map((s) => s.cpuMs)) },
    wall,
    cpu,
    pairs,
    met: "max" in goal && goal.max !== undefined ? judged.median <= goal.max : undefined,
  };
  results.set(id, comparison);
  printComparison(comparison);
  return comparison;
}

/** Keep a row that is not a plain ratio (e.g. memory growth per step), printed in the summary. */
export function observe(id: GoalId, value: string, met: boolean): void {
  results.set(id, { id, value, met });
  console.log(`\n${GOALS[id].measure}: ${value} — goal ${GOALS[id].text}: ${met ? "met" : "NOT met"}`);
}

async function measure(side: Side): Promise<Sample> {
  await side.prepare?.();
  if ("command" in side) return measureProcess(side);
  const cpuBefore = process.cpuUsage();
  const childrenBefore = await childrenCpuMs();
  const start = performance.now();
  await side.run();
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  const children = (await childrenCpuMs()) - childrenBefore;
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 + children };
}

/** CPU of this process's waited-for children so far (`/proc/self/stat` cutime + cstime, 10 ms ticks). */
async function childrenCpuMs(): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8").catch(() => undefined);
  if (stat === undefined) return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of stat(5); the slice starts at field 3. USER_HZ is 100 on Linux.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface ProcessTimer {
  child: ChildProcessByStdio<Writable, Readable, null>;
  answers: AsyncIterator<string>;
}
let timer: ProcessTimer | undefined;

function processTimer(): ProcessTimer {
  if (!timer) {
    const child = spawn("python3", ["-I", "-S", join(import.meta.dirname, "process-times.py")], { stdio: ["pipe", "pipe", "inherit"] });
    timer = { child, answers: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
  }
  return timer;
}

async function measureProcess(side: ProcessSide): Promise<Sample> {
  const { child, answers } = processTimer();
  // Referenced only while a run is timed, so an idle timer never keeps the benchmark alive.
  child.ref();
  (child.stdout as Socket).ref();
  child.stdin.write(`${JSON.stringify({ argv: side.command, cwd: side.cwd, env: side.env ?? process.env })}\n`);
  const { value } = await answers.next();
  child.unref();
  (child.stdout as Socket).unref();
  const answer = JSON.parse(String(value)) as { wall: number; user: number; system: number; status: number; error?: string };
  if (answer.error || answer.status !== 0) {
    throw new Error(`${side.label}: ${side.command.join(" ")} ${answer.error ?? `exited with ${answer.status}`}`);
  }
  return { wallMs: answer.wall * 1000, cpuMs: (answer.user + answer.system) * 1000 };
}

/** Stop the process timer (the benchmark process may then exit). */
export function closeTimer(): void {
  timer?.child.stdin.end();
  timer = undefined;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

const ratio = (s: Spread) => `${s.min.toFixed(2)} / ${s.median.toFixed(2)} / ${s.max.toFixed(2)}×`;
const ms = (s: Spread) => `${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;

function printComparison(c: Comparison): void {
  const goal = GOALS[c.id];
  console.log(`\n${goal.measure} — ${c.pairs} pairs, interleaved`);
  for (const side of [c.subject, c.baseline]) {
    console.log(`  ${side.label.padEnd(34)} wall ${ms(side.wallMs).padEnd(30)} cpu ${ms(side.cpuMs)}`);
  }
  console.log(`  ratio, min / median / max:          wall ${ratio(c.wall).padEnd(30)} cpu ${ratio(c.cpu)}`);
  const median = `median ${(goal.on === "cpu" ? c.cpu : c.wall).median.toFixed(2)}×`;
  console.log(`  goal ${goal.text}${c.met === undefined ? ` (${goal.on} ${median})` : ` on the ${goal.on} ratio: ${median} — ${verdict(c.met)}`}`);
}

const verdict = (met: boolean | undefined) => (met === undefined ? "—" : met ? "met" : "NOT met");

/** One line per goal: measured here (ratio next to goal), or not measured in this run. */
export function printSummary(): void {
  console.log("\n# goals\n");
  console.log("| measure | goal | median (judged) | wall ratio min/med/max | cpu ratio min/med/max | |");
  console.log("|---|---|---|---|---|---|");
  for (const [id, goal] of Object.entries(GOALS) as Array<[GoalId, (typeof GOALS)[GoalId]]>) {
    const result = results.get(id);
    if (!result) {
      console.log(`| ${goal.measure} | ${goal.text} | not measured in this run (bench/${goal.bench}.ts) | | | |`);
    } else if ("value" in result) {
      console.log(`| ${goal.measure} | ${goal.text} | ${result.value} | | | ${result.met ? "met" : "NOT met"} |`);
    } else {
      const judged = goal.on === "cpu" ? result.cpu : result.wall;
      console.log(
        `| ${goal.measure} | ${goal.text} (${goal.on}) | ${judged.median.toFixed(2)}× | ${ratio(result.wall)} | ${ratio(result.cpu)} | ${verdict(result.met)} |`,
      );
    }
  }
}

/** Median wall time in ms of `runs` calls (after one warm-up). Older benchmarks; new ones use `compare`. */
export async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function table(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n## ${title}\n`);
  const keys = Object.keys(rows[0]!);
  console.log(`| ${keys.join(" | ")} |`);
  console.log(`|${keys.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${keys.map((k) => (typeof row[k] === "number" ? (row[k] as number).toFixed(2) : row[k])).join(" | ")} |`);
}

export interface GeneratedAdapter {
  adapter: string;
  root: string;
  files: string[];
}

/**
 * An adapter with `skills` skills of 3 files each, `agents` agents and `tools` tools, plus a
 * template root declaring the same structure (a copy of the adapter, as a template would be).
 */
export async function generateAdapter(options: { skills: number; agents: number; tools: number }): Promise<GeneratedAdapter> {
  const base = await mkdtemp(join(tmpdir(), "hermit-bench-"));
  const tree: Record<string, string> = {};
  const toolLines: string[] = [];
  const toolCode: string[] = [];
  for (let t = 0; t < options.tools; t++) {
    toolLines.push(
      `    - name: tool_${t}\n      description: Tool number ${t}.\n      entrypoint: tools.ts:tool${t}\n` +
        `      input_schema: { type: object, properties: { text: { type: string } }, required: [text] }`,
    );
    toolCode.push(`export function tool${t}(input: { text: string }) { return { length: input.text.length + ${t} }; }`);
  }
  tree["adapter.yaml"] = [
    "contract: 1.0.0",
    "name: bench-adapter",
    "version: 1.0.0",
    "description: A generated adapter for benchmarks.",
    "template: { name: bench, version: 1 }",
    "exports:",
    "  agents: agents",
    "  skills: skills",
    options.tools > 0 ? `  tools:\n${toolLines.join("\n")}` : "  tools: []",
    "structure:",
    "  fixed: [tools.ts]",
    "  learnable:",
    "    - { path: ADAPTER.md, format: markdown, max_bytes: 65536 }",
    `    - { path: "agents/*.md", format: agent, max_files: ${options.agents + 10} }`,
    `    - { path: "skills/*/SKILL.md", format: skill, max_files: ${options.skills + 10} }`,
    '    - { path: "skills/*/**", max_bytes: 65536 }',
    "",
  ].join("\n");
  tree["ADAPTER.md"] = "# Bench adapter\n\n" + "Follow the procedure carefully.\n".repeat(50);
  tree["tools.ts"] = toolCode.join("\n") + "\n";
  for (let a = 0; a < options.agents; a++) {
    tree[`agents/agent-${a}.md`] = `---\nname: agent-${a}\ndescription: Agent number ${a}.\n---\n${"Review the work step by step.\n".repeat(20)}`;
  }
  for (let s = 0; s < options.skills; s++) {
    const name = `skill-${s}`;
    tree[`skills/${name}/SKILL.md`] = `---\nname: ${name}\ndescription: Skill number ${s}.\n---\n# ${name}\n${"Do the thing.\n".repeat(40)}`;
    tree[`skills/${name}/reference.md`] = "Reference material.\n".repeat(60);
    tree[`skills/${name}/scripts/run.sh`] = `#!/bin/sh\necho ${name}\n`;
  }
  const adapter = join(base, "adapter");
  const root = join(base, "root");
  for (const dir of [adapter, root]) {
    for (const [path, content] of Object.entries(tree)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
  }
  return { adapter, root, files: Object.keys(tree) };
}

/** Baseline: read every file of the tree once. */
export async function readAll(dir: string, files: string[]): Promise<void> {
  await Promise.all(files.map((file) => readFile(join(dir, file))));
}
