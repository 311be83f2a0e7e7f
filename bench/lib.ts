/** Small helpers shared by the benchmarks: timing, generated adapters, a table. */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";

/** Median wall time in ms of `runs` calls (after one warm-up). */
export async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export function table(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n## ${title}\n`);
  const keys = Object.keys(rows[0]);
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
