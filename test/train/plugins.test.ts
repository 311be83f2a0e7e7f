/** Loading Task and Evolver plugins: built-in names, module paths (TypeScript, no build), packages, shape checks. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEvolver, loadTask, shapeProblems } from "../../src/train/plugins.js";
import { tempDir } from "../helpers.js";

const fixtures = join(import.meta.dirname, "fixtures", "plugins");

describe("plugins", () => {
  it("loads built-ins by name", async () => {
    expect((await loadEvolver("select")).name).toBe("select");
    expect((await loadEvolver("noop")).name).toBe("noop");
    expect((await loadTask("wordcount")).name).toBe("wordcount");
  });

  it("loads a module's default export, or its named `evolver` / `task` export", async () => {
    const evolver = await loadEvolver(join(fixtures, "default-evolver.ts"));
    expect(evolver.name).toBe("from-default");
    expect(await evolver.step({} as never)).toEqual({ status: "skipped", summary: "nothing" });
    const task = await loadTask("./named-task.mjs", fixtures);
    expect(task.name).toBe("named");
    expect(await task.instances("val")).toEqual([{ id: "val-1" }]);
  });

  it("loads an installed package by name, resolved from the working directory", async () => {
    const root = await tempDir();
    const pkg = join(root, "node_modules", "hermit-evolver-demo");
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "hermit-evolver-demo", type: "module", exports: { ".": "./index.js" } }));
    await writeFile(join(pkg, "index.js"), `export const evolver = { name: "from-package", step: () => ({ status: "stop", summary: "done" }) };\n`);
    expect((await loadEvolver("hermit-evolver-demo", root)).name).toBe("from-package");
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
    await expect(loadEvolver("no-such-evolver", await tempDir())).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/evolver 'no-such-evolver' is not a built-in \(select, noop\), a module path, or a package installed under/),
    });
  });

  it("shape-checks plain values", () => {
    expect(shapeProblems({ name: "ok", step() {} }, "evolver")).toEqual([]);
    expect(shapeProblems(null, "task")).toEqual(["is null, not an object"]);
    expect(shapeProblems({ name: "", step: 1, close: "x" }, "evolver")).toEqual([
      "'name' must not be empty",
      "'step' must be a function, not number",
      "'close' must be a function when present",
    ]);
  });
});
