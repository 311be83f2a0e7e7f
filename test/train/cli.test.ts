/** `hermit train`, `hermit runs list` and `hermit runs show` as a user runs them. */
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers.js";
import { ensureBuilt, lightAdapter } from "./helpers.js";

const cli = join(repoRoot, "dist", "cli.js");
const fixtures = join(import.meta.dirname, "fixtures");
const hermit = (args: string[], cwd = repoRoot) => spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", env: { ...process.env, HERMIT_TEST_BLOCK: "" } });

beforeAll(ensureBuilt, 180_000);

describe("hermit train (CLI)", () => {
  it("prints one JSON document with --json, progress lines on stderr, and lists and shows the run", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, "run.yaml"),
      [`adapter: ${lightAdapter}`, `template: ${lightAdapter}`, `task: ${join(fixtures, "crash-task.ts")}`, `evolver: ${join(fixtures, "crash-evolver.ts")}`, "steps: 3", "runs-dir: runs", ""].join("\n"),
    );
    const trained = hermit(["train", "--config", "run.yaml", "--run-id", "cli-run", "--json"], dir);
    expect(trained.status, trained.stderr).toBe(0);
    const json = JSON.parse(trained.stdout);
    expect(json).toMatchObject({
      run: "cli-run",
      status: "completed",
      runDir: join(dir, "runs", "cli-run"),
      finalTag: "hermit/cli-run/final",
      steps: [
        { step: 1, status: "accepted", score: 0.3, commit: expect.stringMatching(/^[0-9a-f]{40}$/) },
        { step: 2, status: "accepted", score: 0.4, commit: expect.any(String) },
        { step: 3, status: "rejected", score: 0.3, commit: expect.any(String) },
      ],
    });
    expect(json.acceptedCommit).toBe(json.steps[1].commit);
    // Not a TTY: plain progress lines.
    expect(trained.stderr).toContain("step 2/3: acting 2/2 rollouts");
    expect(trained.stderr).toContain("step 3/3: rejected, candidate 0.300, best 0.400 — added rule 3");
    expect(trained.stderr).not.toContain("\r");

    const list = hermit(["runs", "list", "--runs-dir", join(dir, "runs"), "--json"]);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ run: "cli-run", status: "completed", lastStep: 3, steps: 3, acceptedScore: 0.4, test: { base: 0.15, final: 0.35 } })]);
    const text = hermit(["runs", "list", "--runs-dir", join(dir, "runs")]);
    expect(text.stdout).toMatch(/cli-run\s+completed\s+3\/3\s+0\.400\s+0\.150 → 0\.350/);

    const show = hermit(["runs", "show", "cli-run", "--runs-dir", join(dir, "runs")]);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain("run cli-run: completed");
    expect(show.stdout).toMatch(/final: tag hermit\/cli-run\/final \(commit [0-9a-f]{12}\); test base 0\.150 → final 0\.350/);
    expect(show.stdout).toMatch(/\s+3\s+rejected\s+0\.300\s+0\.400\s+[0-9a-f]{10}\s+added rule 3/);
    const missing = hermit(["runs", "show", "nope", "--runs-dir", join(dir, "runs")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/INPUT_NOT_FOUND: .*no run 'nope'/);
  });

  it("runs a plugin that imports hermit's own errors, and reports the HermitError it throws as hermit's", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, "task.ts"),
      [
        'import { HermitError } from "hermit";',
        'import { defineTask } from "hermit/plugin";',
        "export default defineTask<{ id: string }, { data: string }>({",
        '  name: "picky",',
        '  options: { type: "object", properties: { data: { type: "string", format: "path" } }, required: ["data"] },',
        '  validate(options) { throw new HermitError("INPUT_NOT_FOUND", `${options.data}: no data here`, { path: options.data }); },',
        '  instances: () => [{ id: "a" }],',
        "  rollout: () => ({ score: 1 }),",
        "});",
        "",
      ].join("\n"),
    );
    const refused = hermit(["train", "--adapter", lightAdapter, "--template", lightAdapter, "--task", "./task.ts", "--task-option", "data=nowhere", "--evolver", "noop", "--json"], dir);
    expect(refused.status).toBe(2);
    expect(JSON.parse(refused.stdout)).toEqual({ error: { code: "INPUT_NOT_FOUND", message: `${join(dir, "nowhere")}: no data here`, path: join(dir, "nowhere") } });
  });

  it("exits 1 and says so when no step succeeded", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "evolver.ts"), 'import { defineEvolver } from "hermit/plugin";\nexport default defineEvolver({ name: "hopeless", step() { throw new Error("no model"); } });\n');
    const result = hermit(["train", "--adapter", lightAdapter, "--template", lightAdapter, "--task", join(fixtures, "crash-task.ts"), "--evolver", "./evolver.ts", "--steps", "2", "--run-id", "hopeless"], dir);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^run hopeless: failed \(no step succeeded: every one of the 2 steps failed \(step 1: the Evolver threw: no model\)\)/);
    expect(result.stdout).toMatch(/steps: 2: 0 accepted, 0 rejected, 2 failed/);
  });

  it("exits 2 naming the problem for bad input", async () => {
    const noTemplate = hermit(["train", "--adapter", lightAdapter, "--task", "wordcount", "--evolver", "select"]);
    expect(noTemplate.status).toBe(2);
    expect(noTemplate.stderr).toMatch(/USAGE: 'template' is required: give --template/);
    // A bad flag is blamed on the flag, a bad config value on the file and its key.
    const dir = await tempDir();
    await writeFile(join(dir, "train.yaml"), `adapter: ${lightAdapter}\ntemplate: ${lightAdapter}\ntask: wordcount\nevolver: noop\nmargin: lots\n`);
    const badFlag = hermit(["train", "--config", "train.yaml", "--margin", "0", "--steps", "three"], dir);
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toMatch(/USAGE: --steps: must be a whole number ≥ 0, not "three"/);
    const badKey = hermit(["train", "--config", "train.yaml"], dir);
    expect(badKey.stderr).toMatch(/USAGE: train\.yaml: 'margin' must be a number ≥ 0, not "lots"/);
    const badEvolver = hermit(["train", "--adapter", lightAdapter, "--template", lightAdapter, "--task", "wordcount", "--evolver", "sparkle"]);
    expect(badEvolver.status).toBe(2);
    expect(badEvolver.stderr).toMatch(/PLUGIN_INVALID: evolver 'sparkle' is not a built-in \(select, noop[^)]*\)/);
    const help = hermit(["train", "--help"]);
    expect(help.stdout).toMatch(/--accept <rule>/);
    expect(help.stdout).toMatch(/--deploy <host:dir>\s+deploy the final version/);
  });
});
