/**
 * "Did the agent use the adapter": the deployed skills a host read (found in its own tool
 * calls) and the adapter tools hermit's server ran (its audit log). Pure but for reading the
 * audit log.
 */
import type { DeploymentReport } from "../deploy/record.js";
import { readAuditLog } from "../runtime/audit-log.js";
import type { AdapterToolCall, AdapterUse, HostToolCall } from "./types.js";

/** Tools through which a host loads a skill by name (Claude `Skill`, Gemini `activate_skill`, OpenCode `skill`). */
const SKILL_TOOLS = new Set(["Skill", "skill", "activate_skill"]);

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) stringsIn(item, out);
  return out;
}

/** Each deployed skill and the folder its files were deployed to (`.claude/skills/<name>`). */
function skillFolders(report: DeploymentReport): Map<string, string> {
  const folders = new Map<string, string>();
  for (const file of report.files) {
    const name = file.owner.item;
    if (file.owner.export !== "skills" || !name || folders.has(name)) continue;
    const at = file.path.indexOf(`/${name}/`);
    if (at >= 0) folders.set(name, file.path.slice(0, at + name.length + 1));
  }
  return folders;
}

/**
 * The deployed skills the host read: loaded through its skill tool by name, or any of its
 * files named in a tool call's arguments (a `Read` of `SKILL.md`, a `cat` in a shell).
 */
export function skillsRead(calls: readonly HostToolCall[], report: DeploymentReport): string[] {
  const folders = skillFolders(report);
  const read = new Set<string>();
  for (const call of calls) {
    const strings = stringsIn(call.arguments);
    for (const name of report.exports.skills) {
      const folder = folders.get(name);
      const byTool = SKILL_TOOLS.has(call.name) && strings.some((text) => text.trim() === name);
      const byPath = folder !== undefined && strings.some((text) => text.includes(`${folder}/`) || text.endsWith(folder));
      if (byTool || byPath) read.add(name);
    }
  }
  return report.exports.skills.filter((name) => read.has(name));
}

/** The adapter tool calls hermit's server recorded in `file` from byte `offset` on (this act's calls). */
export async function adapterToolCalls(file: string, offset = 0): Promise<AdapterToolCall[]> {
  return (await readAuditLog(file, offset)).map((record) => ({
    tool: record.tool,
    arguments: record.arguments ?? {},
    ok: record.error === undefined,
    ...(record.error === undefined ? { result: record.result } : { error: record.error.message }),
    time: record.time,
  }));
}

/** The evidence: skills read, adapter tools called (each once, in first-call order). */
export function adapterUse(skills: readonly string[], calls: readonly AdapterToolCall[]): AdapterUse {
  const toolsCalled = [...new Set(calls.map((call) => call.tool))];
  return { skillsRead: [...skills], toolsCalled, used: skills.length > 0 || toolsCalled.length > 0 };
}
