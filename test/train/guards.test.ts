/**
 * What a new user runs into: plugins written as the docs show (importing from "hermit", from
 * any folder), bad input refused before anything is written, and an Evolver or Task that
 * writes where it should only read, or deletes its own folders, without corrupting the run.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOST_IDS, HermitError, isHermitError } from "../../src/index.js";
import { RolloutCache } from "../../src/train/rollouts/cache.js";
import { train } from "../../src/builtins.js";
import { loadEvolver, loadTask } from "../../src/train/plugins.js";
import { createProgress } from "../../src/train/progress.js";
import { showRun } from "../../src/train/runs.js";
import { inputLayers, resolveSettings } from "../../src/train/settings/resolve.js";
import { PLUGIN_API_VERSION } from "../../src/plugin.js";
import { repoRoot, tempDir } from "../helpers.js";
import { addCheck, addNoise, appendTo, countChecks, fsck, git, markerTask, scriptedEvolver, setup } from "./helpers.js";

describe("plugins written as the docs show", () => {
  it("resolve `hermit/plugin` to the running hermit, from a folder without hermit installed", async () => {
    const dir = await tempDir("hermit-plugin-");
    await writeFile(
      join(dir, "evolver.ts"),
      'import { defineEvolver, PLUGIN_API_VERSION } from "hermit/plugin";\nexport default defineEvolver({ name: "append-check", built: PLUGIN_API_VERSION, step: () => ({ status: "done" as const, summary: "x" }) });\n',
    );
    await writeFile(
      join(dir, "task.mjs"),
      'import { defineTask } from "hermit/plugin";\nexport default defineTask({ name: "t", instances: () => [{ id: "a" }], rollout: () => ({ score: 1 }) });\n',
    );
    const evolver = (await loadEvolver(join(dir, "evolver.ts"))) as unknown as { name: string; built: string };
    expect(evolver).toMatchObject({ name: "append-check", built: PLUGIN_API_VERSION });
    expect((await loadTask("./task.mjs", { base: dir })).name).toBe("t");
  });

  it("recognise a HermitError from another loaded copy of hermit by its brand, not by its class", async () => {
    const { createJiti } = await import("jiti");
    const copy = (await createJiti(import.meta.url, { moduleCache: false, fsCache: false }).import(join(repoRoot, "src", "errors.ts"))) as typeof import("../../src/errors.js");
    const error = new copy.HermitError("USAGE", "from a plugin's own hermit");
    expect(copy.HermitError).not.toBe(HermitError);
    expect(error).not.toBeInstanceOf(HermitError);
    expect(isHermitError(error)).toBe(true);
    expect(isHermitError(Object.assign(new Error("look-alike"), { code: "USAGE" }))).toBe(false);
  });
});

describe("bad input is refused at the start, before anything is written", () => {
  it("names a missing template, pool or store, an unknown deploy host, and select without a pool", async () => {
    const { adapter, runsDir, template } = await setup();
    const base = { adapter, template, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver, runsDir };
    await expect(train({ ...base, template: join(runsDir, "no-template"), runId: "a" })).rejects.toMatchObject({
      code: "INPUT_NOT_FOUND",
      message: expect.stringMatching(/no-template: template directory not found/),
    });
    await expect(train({ ...base, evolver: "select", pool: join(runsDir, "no-pool"), runId: "b" })).rejects.toMatchObject({
      code: "INPUT_NOT_FOUND",
      message: expect.stringMatching(/no-pool: pool directory not found/),
    });
    await expect(train({ ...base, evolver: "select", runId: "c" })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/evolver 'select' needs the option 'pool': give --evolver-option pool=…/),
    });
    await expect(train({ ...base, deploy: "claude:/tmp/ws", runId: "d" })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/names unknown host 'claude'; did you mean 'claude-code'\?; valid hosts: codex, claude-code/),
    });
    const store = join(runsDir, "elsewhere.git");
    await expect(train({ ...base, adapter: undefined, from: "hermit/x/final", store, runId: "e" })).rejects.toMatchObject({
      code: "INPUT_NOT_FOUND",
      message: expect.stringMatching(/no version store here to start --from 'hermit\/x\/final'/),
    });
    expect(existsSync(runsDir)).toBe(false);
    expect(existsSync(store)).toBe(false);
  });

  it("refuses a run id the shared store already holds, but reuses the refs of a preparation that crashed", async () => {
    const { adapter, runsDir, template } = await setup();
    const base = { adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck]).evolver, runsDir };
    const first = await train({ ...base, steps: 2, runId: "taken" });
    const store = join(runsDir, "versions.git");
    const refsBefore = git(["--git-dir", store, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hermit/taken", "refs/tags/hermit/taken"]);
    await rm(first.runDir, { recursive: true });
    await expect(train({ ...base, steps: 1, runId: "taken" })).rejects.toMatchObject({
      code: "RUN_INVALID",
      message: expect.stringMatching(/already holds run 'taken' \(2 steps, tag hermit\/taken\/final\); choose another --run-id/),
    });
    expect(git(["--git-dir", store, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hermit/taken", "refs/tags/hermit/taken"])).toBe(refsBefore);
    // A run whose preparation was killed left only its base and branch refs: starting it again is fine.
    git(["--git-dir", store, "update-ref", "refs/hermit/crashed/base", first.finalCommit]);
    git(["--git-dir", store, "update-ref", "refs/heads/hermit/crashed", first.finalCommit]);
    const again = await train({ ...base, steps: 1, runId: "crashed" });
    expect(again.steps.map((step) => step.status)).toEqual(["accepted"]);
  });

  it("refuses a run id that is a path, for --resume and runs show", async () => {
    const { runsDir } = await setup();
    await expect(train({ resume: "../elsewhere", runsDir, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/--resume '\.\.\/elsewhere': a run id must be/),
    });
    await expect(showRun(runsDir, "a/../b")).rejects.toMatchObject({ code: "USAGE" });
  });

  it("validates deploy hosts in the settings themselves", () => {
    const raw = { adapter: "a", template: "t", task: "x", evolver: "noop" };
    const file = (values: Record<string, unknown>) => [{ source: { kind: "file" as const, file: "run.yaml" }, base: "/base", values }];
    const known = { hosts: HOST_IDS };
    expect(resolveSettings(file({ ...raw, deploy: ["codex:ws", "gemini:ws2"] }), { cwd: "/cwd", known }).deploy).toEqual([
      { host: "codex", workspace: "/base/ws" },
      { host: "gemini", workspace: "/base/ws2" },
    ]);
    expect(() => resolveSettings(file({ ...raw, deploy: "cursor:ws" }), { cwd: "/cwd", known })).toThrow(/run\.yaml: 'deploy' value 'cursor:ws' names unknown host 'cursor'/);
    expect(() => resolveSettings(inputLayers({ ...raw, deploy: "cursor:ws" }, "flags", "/cwd"), { cwd: "/cwd", known })).toThrow(/^--deploy: value 'cursor:ws' names unknown host/);
  });
});

describe("what an Evolver may only read stays as recorded", () => {
  it("puts back the accepted version and the template root after the Evolver wrote into them", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task, calls } = markerTask();
    const { evolver } = scriptedEvolver([
      async (context) => {
        // Make the accepted version look perfect, and remove the template root's manifest.
        await appendTo({ ...context, workspace: { ...context.workspace, adapter: context.rolloutAdapter } }, "ADAPTER.md", "\nCheck the result.\nCheck the result.\n");
        await rm(join(context.root, "adapter.yaml"));
        await appendTo(context, "ADAPTER.md", "\nCheck the result.\n");
        return { status: "done", summary: "added a check, and tampered" };
      },
    ]);
    const result = await train({ adapter, template, task, evolver, steps: 1, runsDir, runId: "tamper" });
    // The candidate was checked against the real template and beat the real accepted version.
    expect(result.steps[0]).toMatchObject({ status: "accepted", score: 0.5 });
    const record = JSON.parse(await readFile(join(result.runDir, "steps", "1", "step.json"), "utf8"));
    expect(record.decision).toMatchObject({ acceptedScore: 0, candidateScore: 0.5 });
    // The sealed test measured the real base (0), not the tampered directory.
    expect(result.test.base.score).toBe(0);
    expect(existsSync(join(result.runDir, "root", "adapter.yaml"))).toBe(true);
    expect(countChecks(await readFile(join(result.runDir, "rollout_adapter", "ADAPTER.md"), "utf8"))).toBe(1);
    expect(calls.filter((call) => call.split === "val")).toHaveLength(4);
  });

  it("records a step whose Evolver deleted its candidate folder as failed, and survives a deleted state folder", async () => {
    const { adapter, runsDir, template } = await setup();
    const { evolver } = scriptedEvolver([
      async (context) => {
        await rm(context.workspace.adapter, { recursive: true, force: true });
        return { status: "done", summary: "cleaned up" };
      },
      async (context) => {
        await rm(context.workspace.state, { recursive: true, force: true });
        return addCheck(context);
      },
    ]);
    const result = await train({ adapter, template, task: markerTask().task, evolver, steps: 2, runsDir, runId: "deleted" });
    expect(result.steps.map((step) => step.status)).toEqual(["failed", "accepted"]);
    const record = JSON.parse(await readFile(join(result.runDir, "steps", "1", "step.json"), "utf8"));
    expect(record.summary).toMatch(/the Evolver removed its candidate directory workspace\/adapter \(cleaned up\)/);
    expect(fsck(join(runsDir, "versions.git")).status).toBe(0);
  });

  it("never rolls out a candidate with a symlink out of the adapter (the repair removes it)", async () => {
    const { adapter, runsDir, template } = await setup();
    const outside = join(await tempDir(), "secret.md");
    await writeFile(outside, "Check the result.\n");
    const seen: boolean[] = [];
    const { task } = markerTask({
      score: async (text, _instance, context) => {
        if (context.split === "val") seen.push(existsSync(join(context.adapter, "skills", "leak.md")));
        return Math.min(1, countChecks(text) / 2);
      },
    });
    const { evolver } = scriptedEvolver([
      async (context) => {
        await mkdir(join(context.workspace.adapter, "skills"), { recursive: true });
        const { symlink } = await import("node:fs/promises");
        await symlink(outside, join(context.workspace.adapter, "skills", "leak.md"));
        return addCheck(context);
      },
    ]);
    const result = await train({ adapter, template, task, evolver, steps: 1, runsDir, runId: "symlink" });
    expect(result.steps).toHaveLength(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((present) => !present)).toBe(true);
  });
});

describe("usage and reporting", () => {
  it("counts the usage of every rollout in the cache file, including one a crashed process ran", async () => {
    const file = join(await tempDir(), "rollouts.jsonl");
    const record = (instance: string, usage?: object) =>
      JSON.stringify({ tree: "t", split: "train", instance, trial: 0, status: "ok", score: 1, durationMs: 1, evidenceDir: "/e", ranAt: 1, ...(usage ? { usage } : {}) });
    await writeFile(file, `${record("a", { inputTokens: 5 })}\n${record("b")}\n${record("c", { inputTokens: 7, outputTokens: 2 })}\n{"tree":"t","spl`);
    const cache = await RolloutCache.open(file);
    expect(cache.usage).toMatchObject({ known: { inputTokens: 12, outputTokens: 2 }, reported: { inputTokens: 2, outputTokens: 1 }, sources: 3 });
    await cache.put(JSON.parse(record("d", { inputTokens: 1 })));
    expect(cache.usage.known.inputTokens).toBe(13);
    expect(cache.usage.sources).toBe(4);
  });

  it("names a non-finite score in the error, and shows evolver-options on the card", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask({ score: (_text, instance) => (instance.id === "t1" ? Number.NaN : 0) });
    const result = await train({ adapter, template, task, evolver: scriptedEvolver([addNoise]).evolver, steps: 1, runsDir, runId: "nan", evolverOptions: { temperature: 0.2 } });
    const lines = (await readFile(join(result.runDir, "rollouts.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.find((line) => line.instance === "t1").error).toMatch(/rollout returned score NaN; a score is a finite number/);
    expect(await readFile(join(result.runDir, "CARD.md"), "utf8")).toContain("evolver.temperature=0.2");
  });

  it("draws the progress bar with its label on a terminal that reports no width", () => {
    const written: string[] = [];
    const progress = createProgress({ write: (text: string) => written.push(text), isTTY: true, columns: 0 });
    progress.stepStarted(1, 3);
    progress.batchStarted("acting", 4);
    progress.rolloutSettled(false);
    expect(written.join("")).toContain("acting 1/4");
  });
});
