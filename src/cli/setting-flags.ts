/**
 * `hermit train`'s setting flags, generated from the settings table: one option per setting
 * (help and "(default …)" from the table, grouped as in the docs), the aliases, and the way
 * back from commander's parsed values to setting names.
 */
import { Option, type Command } from "commander";
import { defaultText, flagName, SETTING_GROUPS, type Setting } from "../train/settings/define.js";
import { SETTING_ALIASES, SETTINGS, type SettingName } from "../train/settings/table.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function optionFor(name: SettingName, setting: Setting): Option {
  const fallback = defaultText(setting);
  const help = `${setting.help}${fallback !== undefined ? ` (default ${fallback})` : ""}`;
  const option = new Option(`--${flagName(name, setting)} <${setting.placeholder ?? setting.kind.placeholder}>`, help).helpGroup(`${SETTING_GROUPS[setting.group]}:`);
  return setting.kind.repeatable ? option.argParser(collect) : option;
}

/** Add every setting's flag (and each alias) to `command`; returns commander's attribute name → setting name. */
export function addSettingFlags(command: Command): Map<string, string> {
  const attributes = new Map<string, string>();
  const table = SETTINGS as Record<SettingName, Setting>;
  for (const name of Object.keys(table) as SettingName[]) {
    const option = optionFor(name, table[name]);
    command.addOption(option);
    attributes.set(option.attributeName(), name);
  }
  for (const alias of SETTING_ALIASES) {
    if (!alias.flag) continue;
    const group = SETTING_GROUPS[table[alias.setting].group];
    const option = new Option(`--${alias.flag} <${alias.placeholder ?? "value"}>`, alias.help).helpGroup(`${group}:`);
    command.addOption(option);
    // An alias reaches train() under its own name, so errors can name the flag the user typed.
    attributes.set(option.attributeName(), option.attributeName());
  }
  return attributes;
}

/** commander's parsed values → settings by name (only the ones given). */
export function settingsFromFlags(flags: Record<string, unknown>, attributes: Map<string, string>): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [attribute, name] of attributes) if (flags[attribute] !== undefined) settings[name] = flags[attribute];
  return settings;
}
