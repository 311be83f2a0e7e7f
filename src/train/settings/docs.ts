/**
 * The settings table of docs/trainer.md, rendered from the settings table (pure). A test keeps
 * the docs equal to it; `npm run docs:settings` rewrites the section.
 */
import { configKey, defaultText, flagName, SETTING_GROUPS, type Setting, type SettingGroup } from "./define.js";
import { SETTING_ALIASES, SETTINGS, type SettingName } from "./table.js";

export const DOCS_START = "<!-- settings:start — generated from src/train/settings/table.ts by `npm run docs:settings` -->";
export const DOCS_END = "<!-- settings:end -->";

const cell = (text: string) => text.replace(/\|/g, "\\|");

function row(name: SettingName, setting: Setting): string {
  const key = configKey(name, setting).replace(/\.\*$/, ".<option>");
  const flag = `--${flagName(name, setting)} <${setting.placeholder ?? setting.kind.placeholder}>`;
  const fallback = defaultText(setting);
  const shownDefault = fallback === undefined ? (setting.required ? "required" : "—") : `\`${fallback}\``;
  const unit = setting.unit ? ` (recorded in ${setting.unit})` : "";
  return `| \`${key}\` | \`${cell(flag)}\` | ${cell(shownDefault)} | ${setting.resumable ? "yes" : ""} | ${cell(setting.help)}${unit} |`;
}

/** The generated section, markers included. */
export function renderSettingsDocs(): string {
  const table = SETTINGS as Record<SettingName, Setting>;
  const lines = [DOCS_START, ""];
  for (const [group, title] of Object.entries(SETTING_GROUPS) as Array<[SettingGroup, string]>) {
    const members = (Object.keys(table) as SettingName[]).filter((name) => table[name].group === group);
    if (members.length === 0) continue;
    lines.push(`**${title}**`, "", "| run.yaml | flag | default | may change on resume | meaning |", "|---|---|---|---|---|");
    lines.push(...members.map((name) => row(name, table[name])), "");
  }
  lines.push("Other spellings, kept working:", "");
  for (const alias of SETTING_ALIASES) {
    const spelling = alias.flag ? `\`--${alias.flag} <${alias.placeholder ?? "value"}>\` or \`${alias.key}:\`` : `\`${alias.key}:\` (config file)`;
    lines.push(`- ${spelling}: ${alias.help}`);
  }
  lines.push("", DOCS_END);
  return lines.join("\n");
}

/** `document` with its generated section replaced by the current one. */
export function replaceSettingsDocs(document: string): string {
  const start = document.indexOf(DOCS_START);
  const end = document.indexOf(DOCS_END);
  if (start === -1 || end === -1) throw new Error("the settings markers are missing from the document");
  return `${document.slice(0, start)}${renderSettingsDocs()}${document.slice(end + DOCS_END.length)}`;
}
