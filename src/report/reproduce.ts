/**
 * How to reproduce, resume or continue a run (pure): its recorded settings as flags, and the
 * commands a person would type.
 */
import { join } from "node:path";
import type { RunRecord } from "../train/records.js";

type Settings = RunRecord["settings"];

/** Settings as flag name → shown value (kebab-case, as in a config file). */
export function commandLine(settings: Settings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    const flag = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    if (flag === "deploy") {
      const targets = value as Array<{ host: string; workspace: string }>;
      if (targets.length > 0) out.deploy = targets.map((target) => `${target.host}:${target.workspace}`).join(", ");
    } else if (flag === "evolver-options") {
      if (Object.keys(value as object).length > 0) out[flag] = JSON.stringify(value);
    } else if (flag === "rollout-timeout" || flag === "max-time") {
      out[flag] = `${value}s`;
    } else {
      out[flag] = typeof value === "string" ? value : JSON.stringify(value);
    }
  }
  return out;
}

/** A word for a POSIX shell: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const command = (words: string[]) => words.map(shellWord).join(" ");

/** Flags that would start the same run again (under a new run id), in the runs folder where it is now. */
function trainFlags(settings: Settings, where: Where): string[] {
  const words: string[] = [];
  const add = (flag: string, value: unknown) => {
    if (value !== undefined) words.push(`--${flag}`, String(value));
  };
  if (settings.from) add("from", settings.from);
  else add("adapter", settings.adapter);
  add("template", settings.template);
  add("task", settings.task);
  add("evolver", settings.evolver);
  add("pool", settings.pool);
  add("steps", settings.steps);
  add("seed", settings.seed);
  add("store", where.store);
  add("runs-dir", where.runsDir);
  add("concurrency", settings.concurrency);
  add("checkpoint-every", settings.checkpointEvery);
  add("accept", settings.accept);
  add("margin", settings.margin);
  add("trials", settings.trials);
  add("margin-se", settings.marginSe);
  add("batch-size", settings.batchSize);
  add("rollout-timeout", `${settings.rolloutTimeout}s`);
  add("max-rollouts", settings.maxRollouts);
  if (settings.maxTime !== undefined) add("max-time", `${settings.maxTime}s`);
  add("max-tokens", settings.maxTokens);
  for (const target of settings.deploy ?? []) add("deploy", `${target.host}:${target.workspace}`);
  return words;
}

/** Where the run is now: its runs folder and its version store (a run directory may have moved). */
export interface Where {
  runsDir: string;
  store: string;
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
      command: command(["hermit", "train", "--from", run.final.tag, "--store", location.store, "--template", settings.template, "--task", settings.task, "--evolver", settings.evolver, ...(settings.pool ? ["--pool", settings.pool] : [])]),
    });
  } else {
    out.push({ label: "Resume it from its last committed step (finished rollouts are reused)", command: command(["hermit", "train", "--resume", run.run, ...where]) });
  }
  const plugins = [settings.task, settings.evolver].filter((name) => name.startsWith("object:"));
  if (plugins.length > 0) {
    out.push({ label: `Reproduce it: not from the command line (${plugins.join(", ")} was given to train() as an object)`, command: "" });
  } else {
    const options = Object.keys(settings.evolverOptions ?? {}).length > 0 ? ` (and evolver-options ${JSON.stringify(settings.evolverOptions)} in a --config file)` : "";
    out.push({ label: `Reproduce it under a new run id, same seed and settings${options}`, command: command(["hermit", "train", ...trainFlags(settings, location), "--run-id", `${run.run}-again`]) });
  }
  out.push({ label: "Inspect it", command: command(["hermit", "runs", "show", run.run, ...where]) });
  return out;
}
