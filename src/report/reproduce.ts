/**
 * How to reproduce, resume or continue a run (pure): its recorded settings as flags — derived
 * from the Trainer's settings table, so every setting is shown the way `hermit train` takes it —
 * and the commands a person would type.
 */
import { join } from "node:path";
import type { RunRecord } from "../train/records.js";
import { configKey, flagName, type Setting } from "../train/settings/define.js";
import { SETTINGS } from "../train/settings/table.js";

type Settings = RunRecord["settings"];

/** Settings recorded by runs from before the settings table (`pool` was a setting of its own then). */
const OLDER_SETTINGS: Record<string, string> = { pool: "pool" };

/** What a new run from this run's final version keeps: the store, the template and the plugins with their options. */
const PLUGIN_SETTINGS: ReadonlySet<string> = new Set(["store", "template", "task", "taskOptions", "evolver", "evolverOptions"]);

const entries = () => Object.entries(SETTINGS) as Array<[string, Setting]>;

/** Settings as config key → shown value, for display. */
export function commandLine(settings: Settings): Record<string, string> {
  const out: Record<string, string> = {};
  const recorded = settings as unknown as Record<string, unknown>;
  for (const [name, setting] of entries()) {
    const value = recorded[name];
    if (value === undefined) continue;
    const shown = setting.kind.show(value as never);
    if (shown !== "") out[configKey(name, setting)] = shown;
  }
  for (const [name, flag] of Object.entries(OLDER_SETTINGS)) if (typeof recorded[name] === "string") out[flag] = recorded[name] as string;
  return out;
}

/** A word for a POSIX shell: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const command = (words: string[]) => words.map(shellWord).join(" ");

/** Where the run is now: its runs folder and its version store (a run directory may have moved). */
export interface Where {
  runsDir: string;
  store: string;
}

/**
 * Flags for the recorded settings named by `wanted` (all but the run id by default), as
 * `hermit train` takes them, with the runs folder and store where the run is now.
 */
function trainFlags(settings: Settings, where: Where, wanted?: ReadonlySet<string>): string[] {
  const words: string[] = [];
  const recorded: Record<string, unknown> = { ...(settings as unknown as Record<string, unknown>), runsDir: where.runsDir, store: where.store };
  for (const [name, setting] of entries()) {
    const value = recorded[name];
    if (value === undefined || name === "runId" || (name === "adapter" && recorded.from !== undefined)) continue;
    if (wanted && !wanted.has(name)) continue;
    const flag = `--${flagName(name, setting)}`;
    if (Array.isArray(value)) {
      // A list setting (deploy targets): the flag once per item.
      for (const item of value) words.push(flag, setting.kind.show([item] as never));
    } else if (setting.kind.repeatable && value !== null && typeof value === "object") {
      // A plugin's options: KEY=VALUE, once per option.
      for (const [key, option] of Object.entries(value)) words.push(flag, `${key}=${typeof option === "string" ? option : JSON.stringify(option)}`);
    } else {
      words.push(flag, setting.kind.show(value as never));
    }
  }
  for (const [name, flag] of Object.entries(OLDER_SETTINGS)) if (typeof recorded[name] === "string") words.push(`--${flag}`, recorded[name] as string);
  return words;
}

/** The commands shown under "Reproduce and resume". */
export function reproduceCommands(run: RunRecord, lastCommitted: number, location: Where): Array<{ label: string; command: string }> {
  const settings = run.settings;
  const out: Array<{ label: string; command: string }> = [];
  const where = ["--runs-dir", location.runsDir, ...(location.store !== join(location.runsDir, "versions.git") ? ["--store", location.store] : [])];
  if (run.final) {
    out.push({ label: "Extend this run with 10 more steps", command: command(["hermit", "train", "--resume", run.run, ...where, "--steps", String(Math.max(settings.steps, lastCommitted) + 10)]) });
    out.push({
      label: "Start a new run from its final version",
      command: command(["hermit", "train", "--from", run.final.tag, ...trainFlags(settings, location, PLUGIN_SETTINGS)]),
    });
  } else {
    out.push({ label: "Resume it from its last committed step (finished rollouts are reused)", command: command(["hermit", "train", "--resume", run.run, ...where]) });
  }
  const objects = [settings.task, settings.evolver].filter((name) => name.startsWith("object:"));
  if (objects.length > 0) {
    out.push({ label: `Reproduce it: not from the command line (${objects.join(", ")} was given to train() as an object)`, command: "" });
  } else {
    out.push({ label: "Reproduce it under a new run id, with the same seed and settings", command: command(["hermit", "train", ...trainFlags(settings, location), "--run-id", `${run.run}-again`]) });
  }
  out.push({ label: "Inspect it", command: command(["hermit", "runs", "show", run.run, ...where]) });
  return out;
}
