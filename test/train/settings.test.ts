/**
 * Settings, declared once in src/train/settings/table.ts: layers resolved with each value's own
 * base, errors naming where a value came from, resume rules, plugin options checked against the
 * plugin's schema, the generated flags and the generated docs table.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addSettingFlags, settingsFromFlags } from "../../src/cli/setting-flags.js";
import { configValues } from "../../src/train/settings/config-file.js";
import { renderSettingsDocs } from "../../src/train/settings/docs.js";
import { inputLayers, resolveSettings, resumeSettings, type PluginSchemas, type SettingsLayer } from "../../src/train/settings/resolve.js";
import { SETTINGS } from "../../src/train/settings/table.js";
import { repoRoot } from "../helpers.js";

const file = (values: Record<string, unknown>, base = "/cfg", name = "train.yaml"): SettingsLayer => ({ source: { kind: "file", file: name }, base, ...configValues(values, name) });
const flags = (values: Record<string, unknown>) => inputLayers(values, "flags", "/cwd");
const options = (values: Record<string, unknown>) => inputLayers(values, "options", "/cwd");
const required = { adapter: "a", template: "t", task: "./task.ts", evolver: "noop" };
const selectLike: PluginSchemas = {
  evolver: {
    kind: "evolver",
    name: "select",
    options: { type: "object", properties: { pool: { type: "string", format: "path" }, width: { type: "integer", default: 3 } }, required: ["pool"], additionalProperties: false },
  },
};

describe("resolving settings", () => {
  it("resolves each layer's paths against its own base, applies defaults in table order and parses durations", () => {
    const settings = resolveSettings([file(required), ...flags({ rolloutTimeout: "1.5m", maxTime: "90", steps: "3", deploy: ["codex:ws"] })], { cwd: "/cwd" });
    expect(settings).toMatchObject({
      adapter: "/cfg/a",
      template: "/cfg/t",
      task: "/cfg/task.ts",
      evolver: "noop",
      rolloutTimeout: 90,
      maxTime: 90,
      steps: 3,
      seed: 0,
      accept: "improve",
      runsDir: "/cwd/runs",
      store: "/cwd/runs/versions.git",
      deploy: [{ host: "codex", workspace: "/cwd/ws" }],
    });
    expect(resolveSettings([file({ ...required, "runs-dir": "out" })], { cwd: "/cwd" })).toMatchObject({ runsDir: "/cfg/out", store: "/cfg/out/versions.git" });
  });

  it("names where a bad value came from: the flag, the config file's key, or the library option", () => {
    expect(() => resolveSettings([file(required), ...flags({ steps: "three" })], { cwd: "/cwd" })).toThrow(/^--steps: must be a whole number ≥ 0, not "three"$/);
    expect(() => resolveSettings([file({ ...required, steps: "three" })], { cwd: "/cwd" })).toThrow(/^train\.yaml: 'steps' must be a whole number ≥ 0, not "three"$/);
    expect(() => resolveSettings([...options({ ...required, steps: -1 })], { cwd: "/cwd" })).toThrow(/^train options: 'steps' must be a whole number ≥ 0, not -1$/);
    expect(() => resolveSettings([file({ ...required, "rollout-timeout": "soon" })], { cwd: "/cwd" })).toThrow(/train\.yaml: 'rollout-timeout' must be a positive duration/);
    expect(() => resolveSettings([file(required), ...flags({ accept: "sometimes" })], { cwd: "/cwd" })).toThrow(/^--accept: must be 'improve' or 'always', not "sometimes"/);
    expect(() => resolveSettings([file(required), ...flags({ runId: "../x" })], { cwd: "/cwd" })).toThrow(/^--run-id: '\.\.\/x' must be 1-64 characters/);
    expect(() => resolveSettings([file({ template: "t", task: "x", evolver: "y" })], { cwd: "/cwd" })).toThrow(/'adapter' is required \(or 'from'/);
    expect(() => resolveSettings([file({ adapter: "a", task: "x", evolver: "y" })], { cwd: "/cwd" })).toThrow(/'template' is required: give --template/);
    expect(() => options({ ...required, stepz: 3 })).toThrow(/train options: unknown setting 'stepz'; did you mean 'steps'\?/);
    expect(() => file({ ...required, step: 3 })).toThrow(/^train\.yaml: unknown setting 'step'; did you mean 'steps'\?/);
    expect(() => file({ ...required, learner: { modle: "x" } })).toThrow(/train\.yaml: unknown setting 'learner\.modle'; did you mean 'learner\.model'\?/);
    expect(() => file({ ...required, lerner: { model: "x" } })).toThrow(/train\.yaml: unknown setting 'lerner'/);
  });

  it("reads a plugin's section: its specifier under `use`, its options beside it; `evolver: NAME` alone still works", () => {
    const values = configValues({ ...required, evolver: { use: "select", pool: "pool", width: "5" }, task: { use: "./t.ts", level: 2 } }, "train.yaml").values;
    expect(values).toMatchObject({ evolver: "select", evolverOptions: { pool: "pool", width: "5" }, task: "./t.ts", taskOptions: { level: 2 } });
    expect(configValues({ ...required, pool: "p" }, "train.yaml").values).toMatchObject({ evolver: "noop", evolverOptions: { pool: "p" } });
    expect(configValues({ ...required, "evolver-options": { pool: "p" } }, "train.yaml").values).toMatchObject({ evolverOptions: { pool: "p" } });
  });

  it("checks plugin options against the plugin's schema: paths against their own base, flags converted, defaults filled, unknown keys named", () => {
    const layers = [file({ ...required, evolver: { use: "select", pool: "pool" } }), ...flags({ evolverOptions: ["width=5"] })];
    expect(resolveSettings(layers, { cwd: "/cwd", plugins: selectLike }).evolverOptions).toEqual({ pool: "/cfg/pool", width: 5 });
    // A flag overrides the file key by key; `--pool` is an alias, and an explicit --evolver-option wins over it.
    expect(resolveSettings([file(required), ...flags({ pool: "mine" })], { cwd: "/cwd", plugins: selectLike }).evolverOptions).toEqual({ pool: "/cwd/mine", width: 3 });
    expect(resolveSettings([file(required), ...flags({ pool: "a", evolverOptions: ["pool=b"] })], { cwd: "/cwd", plugins: selectLike }).evolverOptions.pool).toBe("/cwd/b");
    expect(() => resolveSettings([file(required)], { cwd: "/cwd", plugins: selectLike })).toThrow(/evolver 'select' needs the option 'pool': give --evolver-option pool=…/);
    expect(() => resolveSettings([file(required), ...flags({ evolverOptions: ["pool=p", "pol=x"] })], { cwd: "/cwd", plugins: selectLike })).toThrow(
      /^--evolver-option pol: is not an option of evolver 'select'; did you mean 'pool'\?; its options: pool, width$/,
    );
    expect(() => resolveSettings([file({ ...required, evolver: { use: "select", pool: "p", width: "wide" } })], { cwd: "/cwd", plugins: selectLike })).toThrow(
      /^train\.yaml: 'evolver\.width' must be integer$/,
    );
    expect(() => resolveSettings([file(required), ...flags({ evolverOptions: ["nokey"] })], { cwd: "/cwd" })).toThrow(/^--evolver-option: must be KEY=VALUE, not "nokey"$/);
    // A plugin without a schema gets its options as given.
    expect(resolveSettings([file({ ...required, evolver: { use: "mine", temperature: 0.2 } })], { cwd: "/cwd" }).evolverOptions).toEqual({ temperature: 0.2 });
  });

  it("on resume lets only the resumable settings change, and a given setting with its recorded value pass", () => {
    const recorded = resolveSettings([file(required)], { cwd: "/cwd" });
    expect(resumeSettings(recorded, flags({ steps: "20", rolloutTimeout: "10m", seed: "0" }), { cwd: "/cwd" })).toMatchObject({ steps: 20, rolloutTimeout: 600, seed: 0 });
    expect(() => resumeSettings(recorded, flags({ margin: "0.2" }), { cwd: "/cwd" })).toThrow(/^--margin: cannot change when resuming \(recorded: 0\); only .*steps, concurrency, executor, queue-patience, rollout-timeout/);
    expect(() => resumeSettings(recorded, [file({ seed: 4 })], { cwd: "/cwd" })).toThrow(/^train\.yaml: 'seed' cannot change when resuming/);
    // A setting added to the table after the run was recorded takes its default.
    const { seed: _dropped, ...older } = recorded;
    expect(resumeSettings(older as typeof recorded, [], { cwd: "/cwd" }).seed).toBe(0);
  });
});

describe("derived from the one table", () => {
  it("generates a flag per setting with its default in the help, and maps parsed flags back to settings", async () => {
    const command = new Command("train").exitOverride();
    const attributes = addSettingFlags(command);
    for (const name of Object.keys(SETTINGS)) expect([...attributes.values()]).toContain(name);
    const help = command.helpInformation();
    expect(help).toMatch(/--steps <n>\s+number of steps .*\(default\s+10\)/s);
    expect(help).toMatch(/--rollout-timeout <duration>[\s\S]*?\(default 300s\)/);
    expect(help).toMatch(/--store <dir>[\s\S]*\(default <runs-dir>\/versions\.git\)/);
    expect(help).toMatch(/The run:\n/);
    command.parse(["--steps", "3", "--deploy", "codex:a", "--deploy", "pi:b", "--evolver-option", "x=1", "--pool", "p"], { from: "user" });
    expect(settingsFromFlags(command.opts(), attributes)).toEqual({ steps: "3", deploy: ["codex:a", "pi:b"], evolverOptions: ["x=1"], pool: "p" });
  });

  it("keeps the settings table in docs/trainer.md equal to the generated one", async () => {
    const docs = await readFile(join(repoRoot, "docs", "trainer.md"), "utf8");
    // On failure run `npm run docs:settings` and commit docs/trainer.md.
    expect(docs).toContain(renderSettingsDocs());
    for (const name of Object.keys(SETTINGS)) expect(renderSettingsDocs()).toMatch(new RegExp(`--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`).replace("-options", "-option")} `));
  });
});
