/**
 * `deploy` of a generated adapter (200 skills × 3 files, 50 agents, 20 tools) to each host,
 * against `cp -R` of the same source tree measured in the same run, interleaved run by run
 * so that machine load hits both alike; plus the no-op redeploy (which must write nothing).
 * Pi refuses subagents, so it gets the same adapter without agents (and its own baseline).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { deploy } from "../src/deploy/deploy.js";
import { HOST_IDS } from "../src/hosts/index.js";
import { generateAdapter, table } from "./lib.js";

const exec = promisify(execFile);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-deploy-"));
let counter = 0;
const fresh = () => join(scratch, `w${counter++}`);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const full = await generateAdapter({ skills: 200, agents: 50, tools: 20 });
const noAgents = await generateAdapter({ skills: 200, agents: 0, tools: 20 });

const rows: Array<Record<string, string | number>> = [];
for (const host of HOST_IDS) {
  const source = host === "pi" ? noAgents : full;
  const copies: number[] = [];
  const deploys: number[] = [];
  let written = 0;
  for (let run = 0; run <= runs; run++) {
    const copy = fresh();
    const copyTime = await timed(() => exec("cp", ["-R", source.adapter, copy]));
    const workspace = fresh();
    const deployTime = await timed(async () => {
      written = (await deploy({ adapter: source.adapter, workspace, host })).written.length;
    });
    if (run > 0) {
      // run 0 warms the caches and the module graph
      copies.push(copyTime);
      deploys.push(deployTime);
    }
    await rm(copy, { recursive: true, force: true });
    await rm(workspace, { recursive: true, force: true });
  }
  const workspace = fresh();
  await deploy({ adapter: source.adapter, workspace, host });
  const noops: number[] = [];
  for (let run = 0; run < runs; run++) {
    noops.push(
      await timed(async () => {
        const result = await deploy({ adapter: source.adapter, workspace, host });
        if (result.changed || result.written.length > 0) throw new Error(`${host}: a redeploy of the same source wrote files`);
      }),
    );
  }
  const copy = median(copies);
  rows.push({
    host,
    "source files": String(source.files.length),
    "files written": String(written),
    "cp -R ms": copy,
    "deploy ms": median(deploys),
    "deploy / cp -R": median(deploys) / copy,
    "no-op redeploy ms": median(noops),
    "no-op / cp -R": median(noops) / copy,
  });
}
table(`deploy: 200 skills × 3 files, 50 agents (Pi: none), 20 tools; median of ${runs}, cp -R interleaved`, rows);
await rm(scratch, { recursive: true, force: true });
for (const generated of [full, noAgents]) await rm(join(generated.adapter, ".."), { recursive: true, force: true });
