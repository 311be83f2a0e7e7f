/**
 * An adapter is a portable artifact: its code (tool modules, the agent exporter, the
 * template's checker) may import its own files, packages in its own node_modules and Node's
 * built-ins — an import that resolves anywhere else is a `load` issue naming the file and the
 * import, and the code outside never runs.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importAdapterModule } from "../../src/adapter/module-loader.js";
import { readAdapter } from "../../src/adapter/read.js";
import { checkSpec } from "../../src/check/check.js";
import { Session } from "../../src/runtime/session.js";
import { copyDir, exampleAdapter, exampleTemplate, testdir } from "../helpers.js";

/** Code outside the adapter that says so if it ever runs. */
const EVIL = "throw new Error('the code outside the adapter ran');\nexport const x = 1;\n";
const OUTSIDE_RULE = "outside the adapter; an adapter's code may import only its own files, packages in its own node_modules and Node's built-ins";

/** `<dir>/adapter` (its own template root, one tool in tools.ts) beside `<dir>/outside/evil.ts`. */
async function adapterBeside(files: Record<string, string>, exporter?: string) {
  const dir = await testdir({
    "adapter/adapter.yaml": [
      "contract: 1.0.0",
      "name: t",
      "version: 0.1.0",
      "description: d",
      "exports:",
      ...(exporter ? [`  agents: { exporter: '${exporter}' }`] : []),
      "  tools:",
      "    - { name: count, description: c, entrypoint: 'tools.ts:count', input_schema: { type: object } }",
      "structure: { fixed: ['**'] }",
    ].join("\n"),
    "adapter/ADAPTER.md": "# T\n",
    "outside/evil.ts": EVIL,
    "node_modules/outside-package/package.json": '{ "name": "outside-package", "main": "index.js" }',
    "node_modules/outside-package/index.js": "module.exports = 1;\n",
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [`adapter/${path}`, text])),
  });
  return { dir, adapter: join(dir, "adapter") };
}

const check = (adapter: string) => checkSpec(adapter, adapter);

describe("imports that leave the adapter", () => {
  it("reports a tool module importing a file outside, naming the file and the import, without running it", async () => {
    const { dir, adapter } = await adapterBeside({ "tools.ts": "import '../outside/evil.ts';\nexport const count = () => 1;\n" });
    expect((await check(adapter)).issues).toEqual([
      {
        path: "tools.ts",
        check: "load",
        problem: `tool 'count': tools.ts:count: could not import tools.ts: tools.ts imports '../outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`,
      },
    ]);
  });

  it("follows the adapter's own files: an import two files away is named where it is written", async () => {
    const { dir, adapter } = await adapterBeside({
      "tools.ts": "import { helper } from './lib/helper.ts';\nexport const count = () => helper();\n",
      "lib/helper.ts": "export async function helper() { return (await import('../../outside/evil.ts')).x; }\n",
    });
    const [issue] = (await check(adapter)).issues;
    expect(issue!.problem).toContain(`lib/helper.ts imports '../../outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`);
  });

  it("reports a package that resolves from a node_modules outside the adapter, and CommonJS require", async () => {
    const { dir, adapter } = await adapterBeside({
      "tools.ts": "import n from 'outside-package';\nexport const count = () => n;\n",
      "helper.cjs": "module.exports = require('../outside/evil.ts');\n",
    });
    expect((await check(adapter)).issues[0]!.problem).toContain(`tools.ts imports 'outside-package' (${dir}/node_modules/outside-package/index.js)`);
    await expect(importAdapterModule(adapter, join(adapter, "helper.cjs"))).rejects.toMatchObject({
      code: "ADAPTER_INVALID",
      message: `helper.cjs imports '../outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`,
    });
  });

  it("allows the adapter's own files and node_modules, Node's built-ins, and type-only imports from anywhere", async () => {
    const { adapter } = await adapterBeside({
      "tools.ts": [
        "import type { Thing } from '../outside/evil.ts';",
        "import { join } from 'node:path';",
        "import { readFileSync } from 'fs';",
        "import own from 'own-package';",
        "import { two } from './lib/two.ts';",
        "export const count = (thing?: Thing) => [join('a'), typeof readFileSync, own, two, thing].length;",
        "",
      ].join("\n"),
      "lib/two.ts": "export const two = 2;\n",
      "node_modules/own-package/package.json": '{ "name": "own-package", "main": "index.js" }',
      "node_modules/own-package/index.js": "module.exports = require('./more.js');\n",
      "node_modules/own-package/more.js": "module.exports = 1;\n",
    });
    expect(await check(adapter)).toMatchObject({ passed: true, issues: [] });
  });

  it("reports an agent exporter importing outside, in the spec check and when the adapter is read for deploy", async () => {
    const { dir, adapter } = await adapterBeside(
      {
        "tools.ts": "export const count = () => 1;\n",
        "agents.ts": "import { x } from '../outside/evil.ts';\nexport const listAgents = () => [{ name: 'a', description: String(x), body: 'b' }];\n",
      },
      "agents.ts:listAgents",
    );
    const expected = `agents.ts imports '../outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`;
    const issues = (await check(adapter)).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "agents.ts", check: "load" });
    expect(issues[0]!.problem).toContain(expected);
    await expect(readAdapter(adapter)).rejects.toThrow(expected);
  });

  it("is refused by the tool runtime too (serve, Session): the tools do not load", async () => {
    const { dir, adapter } = await adapterBeside({ "tools.ts": "import { x } from '../outside/evil.ts';\nexport const count = () => x;\n" });
    const session = new Session(adapter);
    try {
      await expect(session.call("count", {})).rejects.toMatchObject({ code: "ADAPTER_INVALID" });
      await expect(session.call("count", {})).rejects.toThrow(`tools.ts imports '../outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`);
    } finally {
      await session.close();
    }
  });

  it("reports a template checker importing outside its template root, as a custom issue", async () => {
    const dir = await testdir({ "outside/evil.ts": EVIL });
    const root = await copyDir(exampleTemplate, {
      "check.ts": `import { x } from '${join(dir, "outside", "evil.ts")}';\nexport const check = () => (x ? [] : []);\n`,
    });
    const issues = (await checkSpec(await copyDir(exampleAdapter), root)).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "check.ts", check: "custom" });
    expect(issues[0]!.problem).toContain(`check.ts imports '${dir}/outside/evil.ts' (${dir}/outside/evil.ts): ${OUTSIDE_RULE}`);
  });
});
