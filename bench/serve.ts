/**
 * Tool-call round trip through `hermit serve` (stdio), next to a minimal MCP SDK server that
 * exposes the same function (`count_words` of examples/file_adapter) with no validation, no
 * tool thread and no audit log, measured in the same run with the same SDK client:
 * sequential latency (p50, p95) and throughput with concurrent calls. The servers take turns
 * per round so machine load hits both alike. Then the goal's row (`serve-p50`): one call to
 * each server in turn, both connected, BENCH_SERVE_PAIRS pairs (default 501); the median of
 * the per-pair ratios is the p50 round trip's ratio. Last (`serve-python-p50`, when python3 is
 * on PATH): the same tool written in Python (examples/file_adapter_py) against the TypeScript
 * one, both through `hermit serve`, the same way.
 *
 *   npx jiti bench/serve.ts   (env: BENCH_CALLS, BENCH_CONCURRENCY, BENCH_ROUNDS)
 */
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { hermitCli, packageRoot } from "../src/package-root.js";
import { findOnPath } from "../src/sandbox/bwrap.js";
import { compare, table } from "./lib.js";

const calls = Number(process.env.BENCH_CALLS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const adapter = join(packageRoot, "examples", "file_adapter");
const text = "the quick brown fox jumps over the lazy dog ".repeat(8);

await access(hermitCli).catch(() => {
  throw new Error(`${hermitCli} is missing: run npm run build first`);
});

const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-serve-"));
const baselineServer = join(scratch, "baseline-server.mjs");
const resolveFrom = createRequire(join(packageRoot, "package.json"));
const url = (specifier: string) => JSON.stringify(pathToFileURL(resolveFrom.resolve(specifier)).href);
// The baseline: the SDK's low-level server, the same schemas, the function called directly.
await writeFile(
  baselineServer,
  `import { Server } from ${url("@modelcontextprotocol/sdk/server/index.js")};
import { StdioServerTransport } from ${url("@modelcontextprotocol/sdk/server/stdio.js")};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${url("@modelcontextprotocol/sdk/types.js")};
import { createJiti } from ${url("jiti")};
const tools = await createJiti(import.meta.url).import(${JSON.stringify(join(adapter, "tools.ts"))});
const tool = {
  name: "count_words",
  description: "Count the words in a text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  outputSchema: { type: "object", properties: { count: { type: "integer", minimum: 0 } }, required: ["count"] },
};
const server = new Server({ name: "baseline", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const value = await tools.countWords(request.params.arguments);
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
});
await server.connect(new StdioServerTransport());
`,
);

interface Sample {
  latencies: number[];
  throughput: number;
}

/** A client connected to a server started with `args`, and one checked `count_words` call. */
async function connect(args: string[]) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
  const call = async () => {
    const result = await client.callTool({ name: "count_words", arguments: { text } });
    if (result.isError || (result.structuredContent as { count: number }).count !== 72) throw new Error("wrong result");
  };
  return { client, call };
}

async function measure(args: string[]): Promise<Sample> {
  const { client, call } = await connect(args);
  for (let i = 0; i < 100; i++) await call(); // warm-up
  const latencies: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call();
    latencies.push(performance.now() - start);
  }
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < calls * 4) await call();
    }),
  );
  const throughput = (calls * 4) / ((performance.now() - start) / 1000);
  await client.close();
  return { latencies, throughput };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const servers = {
  "minimal SDK server": [baselineServer],
  "hermit serve": [hermitCli, "serve", "--adapter", adapter, "--quiet"],
};
const samples: Record<string, Sample[]> = { "minimal SDK server": [], "hermit serve": [] };
try {
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(servers)) samples[name]!.push(await measure(args));
  }
  const hermit = await connect(servers["hermit serve"]);
  const minimal = await connect(servers["minimal SDK server"]);
  for (let i = 0; i < 100; i++) await Promise.all([hermit.call(), minimal.call()]);
  await compare(
    "serve-p50",
    { label: "hermit serve: one call", run: hermit.call },
    { label: "minimal SDK server: one call", run: minimal.call },
    { pairs: Number(process.env.BENCH_SERVE_PAIRS ?? 501) },
  );
  await Promise.all([hermit.client.close(), minimal.client.close()]);
  await comparePython();
} finally {
  await rm(scratch, { recursive: true, force: true });
}

/** The Python tool against the TypeScript one, both through `hermit serve` (skipped, saying why, without python3). */
async function comparePython(): Promise<void> {
  const python = await findOnPath("python3");
  if (!python) return console.log("\nserve-python-p50: not measured: no python3 on PATH");
  const typescript = await connect(servers["hermit serve"]);
  const pythonTool = await connect([hermitCli, "serve", "--adapter", join(packageRoot, "examples", "file_adapter_py"), "--quiet"]);
  for (let i = 0; i < 100; i++) await Promise.all([pythonTool.call(), typescript.call()]);
  await compare(
    "serve-python-p50",
    { label: "hermit serve, Python tool: one call", run: pythonTool.call },
    { label: "hermit serve, TypeScript tool: one call", run: typescript.call },
    { pairs: Number(process.env.BENCH_SERVE_PAIRS ?? 501) },
  );
  await Promise.all([pythonTool.client.close(), typescript.client.close()]);
}

const summary = Object.fromEntries(
  Object.entries(samples).map(([name, runs]) => {
    const latencies = runs.flatMap((run) => run.latencies);
    const throughput = runs.map((run) => run.throughput).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
    return [name, { p50: percentile(latencies, 50), p95: percentile(latencies, 95), throughput }];
  }),
);
const base = summary["minimal SDK server"]!;
const ours = summary["hermit serve"]!;
table(`count_words over stdio: ${rounds} rounds × ${calls} sequential calls, then ${calls * 4} calls ${concurrency} at a time`, [
  { server: "minimal SDK server", "p50 ms": base.p50, "p95 ms": base.p95, "calls/s": base.throughput },
  { server: "hermit serve", "p50 ms": ours.p50, "p95 ms": ours.p95, "calls/s": ours.throughput },
  {
    server: "ratio hermit / minimal",
    "p50 ms": ours.p50 / base.p50,
    "p95 ms": ours.p95 / base.p95,
    "calls/s": ours.throughput / base.throughput,
  },
]);
