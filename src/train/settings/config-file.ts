/**
 * `--config run.yaml`: the settings as YAML, keyed as the table says — top-level keys in
 * kebab-case (`rollout-timeout: 10m`), sections for grouped settings (`learner: { model: … }`),
 * and a plugin's section holding its specifier under `use` and its options beside it:
 *
 *   evolver:
 *     use: select
 *     pool: pool
 *
 * (`evolver: select` alone is the specifier.) Relative paths are relative to the file.
 */
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { parseYaml } from "../../adapter/yaml.js";
import { HermitError } from "../../errors.js";
import { didYouMean } from "../../suggest.js";
import { configKey, type Setting } from "./define.js";
import type { SettingsLayer } from "./resolve.js";
import { SETTING_ALIASES, SETTINGS, type SettingName } from "./table.js";

const table = SETTINGS as Record<SettingName, Setting>;
const byKey = new Map((Object.keys(SETTINGS) as SettingName[]).map((name) => [configKey(name, table[name]), name]));
const aliases = new Map(SETTING_ALIASES.map((alias) => [alias.key, alias]));
/** Sections whose other keys are a plugin's options (`evolver.*`), by section name. */
const pluginSections = new Map([...byKey].filter(([key]) => key.endsWith(".*")).map(([key, name]) => [key.slice(0, -2), name]));
const sections = new Set([...byKey.keys()].filter((key) => key.includes(".")).map((key) => key.split(".")[0]!));

const isMapping = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** Read a run config into a settings layer (nothing is validated but its keys). */
export async function readRunConfig(file: string, cwd: string): Promise<SettingsLayer> {
  const path = resolve(cwd, file);
  const shown = relative(cwd, path).startsWith("..") ? path : relative(cwd, path);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new HermitError("INPUT_NOT_FOUND", `${shown}: run config not found`, { path });
  }
  const data = parseYaml(text, path);
  if (!isMapping(data)) throw new HermitError("USAGE", `${shown}: a run config must be a YAML mapping of settings (${[...byKey.keys()].join(", ")})`, { path });
  return { source: { kind: "file", file: shown }, base: dirname(path), ...configValues(data, shown) };
}

/** Config keys → setting names. Pure. */
export function configValues(data: Record<string, unknown>, shown: string): Pick<SettingsLayer, "values" | "spelled"> {
  const values: Record<string, unknown> = {};
  const spelled: Record<string, string> = {};
  const addOptions = (name: SettingName, options: Record<string, unknown>) => {
    values[name] = { ...(values[name] as Record<string, unknown> | undefined), ...options };
  };
  const unknown = (key: string): never => {
    const known = [...byKey.keys(), ...aliases.keys()].filter((candidate) => !candidate.endsWith("*"));
    throw new HermitError("USAGE", `${shown}: unknown setting '${key}'${didYouMean(key, known)}; known: ${known.join(", ")}`, { path: shown, setting: key });
  };
  for (const [key, value] of Object.entries(data)) {
    const plugin = pluginSections.get(key);
    const alias = aliases.get(key);
    if (plugin && isMapping(value)) {
      const { use, ...options } = value;
      if (use !== undefined) values[byKey.get(key)!] = use;
      addOptions(plugin, options);
    } else if (byKey.has(key)) {
      values[byKey.get(key)!] = value;
    } else if (alias) {
      if (alias.option) {
        addOptions(alias.setting, { [alias.option]: value });
        spelled[`${alias.setting}.${alias.option}`] = key;
      }
      else if (isMapping(value)) addOptions(alias.setting, value);
      else throw new HermitError("USAGE", `${shown}: '${key}' must be a mapping`, { path: shown });
    } else if (sections.has(key) && isMapping(value)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        const name = byKey.get(`${key}.${inner}`);
        if (!name) unknown(`${key}.${inner}`);
        values[name!] = innerValue;
      }
    } else {
      unknown(key);
    }
  }
  return { values: values as SettingsLayer["values"], spelled };
}
