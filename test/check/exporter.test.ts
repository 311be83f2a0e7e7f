/**
 * The agent exporter is adapter code. `readAdapterIsolated` (what deploy and convert use) runs
 * it in the spec check's child process — inside bubblewrap when present — and gets data only.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readAdapter } from "../../src/adapter/read.js";
import { exportAgentsIsolated, readAdapterIsolated } from "../../src/check/exporter.js";
import { copyDir, exampleAdapter, noBwrap, skipBecause, tempDir } from "../helpers.js";

async function withExporter(source: string): Promise<string> {
  const dir = await copyDir(exampleAdapter, { "agents.ts": source });
  const file = join(dir, "adapter.yaml");
  const doc = parseDocument(await readFile(file, "utf8"));
  doc.setIn(["exports", "agents"], doc.createNode({ exporter: "agents.ts:listAgents" }));
  await writeFile(file, doc.toString());
  return dir;
}

/** An exporter that also tries to write `marker` (outside the adapter) and says whether it could. */
const writingExporter = (marker: string) =>
  "import { writeFileSync } from 'node:fs';\n" +
  "export function listAgents() {\n" +
  `  let wrote = 'no'; try { writeFileSync(${JSON.stringify(marker)}, 'x'); wrote = 'yes'; } catch {}\n` +
  "  console.log('noise on stdout');\n" +
  "  return [{ name: 'rev', description: 'wrote ' + wrote, body: 'Review.', extra: () => 1 }];\n" +
  "}\n";

describe("agent exporters, run isolated for deploy and convert", () => {
  it.skipIf(skipBecause(noBwrap))("returns the agents as data, and the exporter cannot write outside (bwrap)", async () => {
    const marker = join(await tempDir(), "written-by-exporter");
    const adapter = await readAdapterIsolated(await withExporter(writingExporter(marker)));
    expect(adapter.agents).toEqual([{ name: "rev", description: "wrote no", body: "Review.", frontmatter: {}, sourcePath: "agents.ts" }]);
    expect(existsSync(marker)).toBe(false);
    // The same exporter in hermit's own process writes it: what deploy did before.
    await readAdapter(await withExporter(writingExporter(marker)));
    expect(existsSync(marker)).toBe(true);
  });

  it("says how it ran, and an adapter without an exporter starts no child", async () => {
    const dir = await withExporter("export const listAgents = () => [{ name: 'rev', description: 'd', body: 'b' }];\n");
    const inspected = await readAdapter(dir, { runExporters: false });
    expect((await exportAgentsIsolated(inspected, { isolate: false })).isolation).toBe("none");
    const plain = await readAdapter(exampleAdapter);
    expect(await exportAgentsIsolated(plain)).toEqual({ agents: [], problems: [], isolation: "not-run" });
    expect((await readAdapterIsolated(exampleAdapter)).agents.map((agent) => agent.name)).toEqual(plain.agents.map((agent) => agent.name));
  });

  it.each([
    ["exits", "export const listAgents = () => process.exit(0);\n", "agent exporter agents.ts:listAgents failed: it called process.exit(0)"],
    ["returns no array", "export const listAgents = () => ({});\n", "agent exporter agents.ts:listAgents failed: did not return an array"],
    ["loops", "export const listAgents = () => { for (;;) {} };\n", "check timed out after 3000 ms while running agent exporter agents.ts:listAgents"],
  ])("refuses an exporter that %s with ADAPTER_INVALID naming it, and hermit goes on", async (_what, source, problem) => {
    const dir = await withExporter(source);
    await expect(readAdapterIsolated(dir, { timeoutMs: 3000 })).rejects.toMatchObject({
      code: "ADAPTER_INVALID",
      data: { issues: [{ path: "agents.ts", check: "load", problem }] },
    });
  });
});
