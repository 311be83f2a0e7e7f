/**
 * "Did the agent use the adapter": the deployed skills a host read (found in its own tool
 * calls) and the adapter tools hermit's server ran (its audit log). Pure but for reading the
 * audit log.
 */
import { open } from "node:fs/promises";
import type { DeploymentReport } from "../deploy/record.js";
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

/** The size of `file` now (0 when it does not exist): where this run's audit lines will start. */
export async function auditOffset(file: string): Promise<number> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return 0;
  try {
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/** The audit lines appended to `file` from byte `offset` on, as adapter tool calls. A torn last line is skipped. */
export async function readAuditLog(file: string, offset = 0): Promise<AdapterToolCall[]> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return [];
  let text: string;
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    text = buffer.toString("utf8");
  } finally {
    await handle.close();
  }
  const calls: AdapterToolCall[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof record.tool !== "string") continue;
    const error = record.error as { message?: unknown } | undefined;
    calls.push({
      tool: record.tool,
      arguments: record.arguments ?? {},
      ok: error === undefined,
      ...(error === undefined ? { result: record.result } : { error: String(error.message ?? "error") }),
      ...(typeof record.time === "string" ? { time: record.time } : {}),
    });
  }
  return calls;
}

/** The evidence: skills read, adapter tools called (each once, in first-call order). */
export function adapterUse(skills: readonly string[], calls: readonly AdapterToolCall[]): AdapterUse {
  const toolsCalled = [...new Set(calls.map((call) => call.tool))];
  return { skillsRead: [...skills], toolsCalled, used: skills.length > 0 || toolsCalled.length > 0 };
}
