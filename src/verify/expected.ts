/**
 * What a deployment exported, item by item, with what the host should show for each: read
 * from `.hermit-deploy.json` and the deployed files themselves (the bytes the host reads).
 * When a deployed file is gone or unreadable, the adapter source named in the report
 * supplies the description, and the item carries the problem.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parseFrontmatter } from "../adapter/frontmatter.js";
import { readAdapter } from "../adapter/read.js";
import type { Adapter } from "../adapter/types.js";
import type { DeploymentReport, RecordedFile } from "../deploy/record.js";
import { errorMessage } from "../errors.js";
import { scanBlocks } from "../hosts/managed-block.js";
import type { ExpectedItem } from "./judge.js";

/** The description a deployed skill or agent file declares, or why it has none. */
export function deployedDescription(path: string, text: string): { description: string } | { problem: string } {
  try {
    const data = path.endsWith(".toml") ? parseToml(text) : parseFrontmatter(text, path).data;
    const description = (data as { description?: unknown }).description;
    if (typeof description === "string" && description.trim() !== "") return { description };
    return { problem: `${path} has no description` };
  } catch (error) {
    return { problem: `${path} cannot be parsed: ${errorMessage(error)}` };
  }
}

/** The managed block of `name` in an instruction file's text, or why it cannot be used. */
export function managedBlock(path: string, text: string, name: string): { block: string } | { problem: string } {
  const scan = scanBlocks(text, [name]);
  if (scan.problems.length > 0) {
    const first = scan.problems[0]!;
    return { problem: `${path}:${first.line}: ${first.problem}` };
  }
  const block = scan.blocks.find((candidate) => candidate.name === name);
  return block ? { block: block.text } : { problem: `${path} has no managed block for '${name}'` };
}

async function readText(workspace: string, path: string): Promise<string | undefined> {
  try {
    return await readFile(join(workspace, path), "utf8");
  } catch {
    return undefined;
  }
}

function fileOf(report: DeploymentReport, kind: "skills" | "agents", name: string): RecordedFile | undefined {
  const owned = report.files.filter((file) => file.owner.export === kind && file.owner.item === name);
  return kind === "skills" ? owned.find((file) => file.path.endsWith("/SKILL.md")) : owned[0];
}

/** Every exported item of the deployment, in report order: context, skills, agents, tools. */
export async function expectedItems(workspace: string, report: DeploymentReport): Promise<ExpectedItem[]> {
  let adapter: Adapter | undefined | null;
  const source = async (): Promise<Adapter | undefined> => {
    if (adapter === undefined) adapter = await readAdapter(report.adapter.path).catch(() => null);
    return adapter ?? undefined;
  };
  const items: ExpectedItem[] = [];

  const contextFile = report.files.find((file) => file.owner.export === "context" && file.operation === "block");
  if (contextFile) {
    const text = await readText(workspace, contextFile.path);
    const located =
      text === undefined
        ? { problem: `${contextFile.path} is missing from the workspace` }
        : managedBlock(contextFile.path, text, contextFile.block?.name ?? report.adapter.name);
    items.push({ kind: "context", name: contextFile.path, file: contextFile.path, ...located });
  }

  for (const kind of ["skills", "agents"] as const) {
    for (const name of report.exports[kind]) {
      const file = fileOf(report, kind, name);
      const item: ExpectedItem = { kind: kind === "skills" ? "skill" : "agent", name, ...(file ? { file: file.path } : {}) };
      const text = file ? await readText(workspace, file.path) : undefined;
      const read = file && text !== undefined ? deployedDescription(file.path, text) : undefined;
      if (read && "description" in read) item.description = read.description;
      else {
        item.problem = read?.problem ?? (file ? `${file.path} is missing from the workspace` : `the report names no file for ${kind} '${name}'`);
        const fromSource = await source();
        const definition = kind === "skills" ? fromSource?.skills.find((skill) => skill.name === name) : fromSource?.agents.find((agent) => agent.name === name);
        if (definition) item.description = definition.description;
      }
      items.push(item);
    }
  }

  const configFile = report.files.find((file) => file.owner.export === "tools");
  for (const name of report.exports.tools) {
    items.push({ kind: "tool", name, server: report.adapter.name, ...(configFile ? { file: configFile.path } : {}) });
  }
  return items;
}
