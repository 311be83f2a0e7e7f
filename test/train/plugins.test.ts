/** Loading Task and Evolver plugins: built-in names, module paths (TypeScript, no build), packages, shape checks. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinPlugins } from "../../src/builtins.js";
import { PLUGIN_API_VERSION } from "../../src/plugin.js";
import { loadEvolver, loadTask, shapeProblems } from "../../src/train/plugins.js";
import { tempDir } from "../helpers.js";

const fixtures = join(import.meta.dirname, "fixtures", "plugins");

describe("plugins", () => {
  it("loads built-ins by name from the catalog it is given, and knows none of its own", async () => {
    expect((await loadEvolver("select", { catalog: builtinPlugins })).name).toBe("select");
    expect((await loadEvolver("noop", { catalog: builtinPlugins })).name).toBe("noop");
    expect((await loadTask("wordcount", { catalog: builtinPlugins })).name).toBe("wordcount");
    await expect(loadEvolver("select", { base: await tempDir() })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/evolver 'select' is not a built-in \(none\)/),
    });
  });

  it("loads a module's default export, or its named `evolver` / `task` export", async () => {
    const evolver = await loadEvolver(join(fixtures, "default-evolver.ts"));
    expect(evolver.name).toBe("from-default");
    expect(await evolver.step({} as never)).toEqual({ status: "skipped", summary: "nothing" });
    const task = await loadTask("./named-task.mjs", { base: fixtures });
    expect(task.name).toBe("named");
    expect(await task.instances("val", { options: {}, seed: 0 })).toEqual([{ id: "val-1" }]);
  });

  it("loads an installed package by name, resolved from the working directory", async () => {
    const root = await tempDir();
    const pkg = join(root, "node_modules", "hermit-evolver-demo");
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "hermit-evolver-demo", type: "module", exports: { ".": "./index.js" } }));
    await writeFile(join(pkg, "index.js"), `export const evolver = { apiVersion: "1.0", name: "from-package", step: () => ({ status: "stop", summary: "done" }) };\n`);
    expect((await loadEvolver("hermit-evolver-demo", { base: root })).name).toBe("from-package");
  });

  it("says what is wrong with a plugin that does not fit, and where", async () => {
    await expect(loadEvolver(join(fixtures, "bad-evolver.ts"))).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/bad-evolver\.ts: the evolver \(default export, or export 'evolver'\) has no 'step' \(function\); expected \{ name, step\(ctx\) \}/),
    });
    await expect(loadTask(join(fixtures, "default-evolver.ts"))).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/has no 'instances' \(function\); has no 'rollout' \(function\)/),
    });
    const broken = join(await tempDir(), "broken.ts");
    await writeFile(broken, "export default {;\n");
    await expect(loadTask(broken)).rejects.toMatchObject({ code: "PLUGIN_INVALID", message: expect.stringMatching(/broken\.ts: could not load the task module/) });
    await expect(loadTask(join(fixtures, "missing.ts"))).rejects.toMatchObject({ code: "PLUGIN_INVALID", message: expect.stringMatching(/missing\.ts: task module not found/) });
    await expect(loadEvolver("no-such-evolver", { base: await tempDir(), catalog: builtinPlugins })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/evolver 'no-such-evolver' is not a built-in \(select, noop[^)]*\), a module path, or a package installed under/),
    });
  });

  it("refuses a plugin built for another major plugin API, naming both versions, and one that declares none", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "future.mjs"), `export default { apiVersion: "2.0", name: "future", step: () => ({ status: "skipped", summary: "" }) };\n`);
    await expect(loadEvolver(join(dir, "future.mjs"))).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringContaining(`was built for hermit plugin API 2.0, but this hermit implements plugin API ${PLUGIN_API_VERSION}`),
    });
    await writeFile(join(dir, "plain.mjs"), `export default { name: "plain", step: () => ({ status: "skipped", summary: "" }) };\n`);
    await expect(loadEvolver(join(dir, "plain.mjs"))).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/has no 'apiVersion': declare it with defineEvolver \/ defineTask from "hermit\/plugin"/),
    });
    // A later minor version of the same major is the same contract.
    await writeFile(join(dir, "minor.mjs"), `export default { apiVersion: "1.9", name: "minor", step: () => ({ status: "skipped", summary: "" }) };\n`);
    expect((await loadEvolver(join(dir, "minor.mjs"))).name).toBe("minor");
  });

  it("refuses an options declaration that is not an object JSON Schema", () => {
    const base = { apiVersion: PLUGIN_API_VERSION, name: "x", step() {} };
    expect(shapeProblems({ ...base, options: { type: "object", properties: { pool: { type: "string", format: "path" } } } }, "evolver")).toEqual([]);
    expect(shapeProblems({ ...base, options: { type: "string" } }, "evolver")).toEqual(["'options' must be a JSON Schema with type: object"]);
    expect(shapeProblems({ ...base, options: { type: "object", required: "pool" } }, "evolver")[0]).toMatch(/'options' is not a valid JSON Schema/);
  });

  it("shape-checks plain values", () => {
    expect(shapeProblems({ apiVersion: PLUGIN_API_VERSION, name: "ok", step() {} }, "evolver")).toEqual([]);
    expect(shapeProblems(null, "task")).toEqual(["is null, not an object"]);
    expect(shapeProblems({ name: "", step: 1, close: "x" }, "evolver")).toEqual([
      "'name' must be a non-empty string",
      "'step' must be a function, not number",
      "'close' must be a function when present",
    ]);
  });
});
