/** `--config run.yaml`: the same keys as the flags, in YAML. Relative paths are relative to the file. */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseYaml } from "../adapter/yaml.js";
import { HermitError } from "../errors.js";
import { absolutize, SETTING_KEYS, type RawSettings } from "./settings.js";

export async function readRunConfig(file: string): Promise<RawSettings> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new HermitError("INPUT_NOT_FOUND", `${path}: run config not found`, { path });
  }
  const data = parseYaml(text, path);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new HermitError("USAGE", `${path}: a run config must be a YAML mapping of settings (${SETTING_KEYS.join(", ")})`, { path });
  }
  return absolutize(data as RawSettings, dirname(path));
}
