/**
 * Reading an adapter directory into the model of `types.ts`. `inspectAdapter` collects every
 * problem (the spec check reports them); `readAdapter` refuses an adapter with any.
 */
import { HermitError, isHermitError, errorMessage } from "../errors.js";
import { LIMITS, assertDirectory, decodeUtf8, readAdapterText, unsafePathReason, type Tree } from "./files.js";
import { CONTEXT_FILE, MANIFEST_FILE, contextPath, parseEntrypoint, parseManifest } from "./manifest.js";
import { toolSchemaProblem } from "./json-schema.js";
import { loadExport } from "./module-loader.js";
import { isPythonFile, runPythonExporter } from "./python.js";
import { agentProblems, parseAgent, parseSkill } from "./rules.js";
import { hashTree, readTree } from "./tree.js";
import type { Adapter, AgentDefinition, Manifest, Problem, SkillDefinition, ToolDefinition } from "./types.js";

export interface Inspection {
  adapter: Adapter;
  tree: Tree;
  /** The bytes of every file of the tree, read once. */
  bytes: ReadonlyMap<string, Buffer>;
  /** The files of `bytes` that were executable when read. */
  executables: ReadonlySet<string>;
  /** A file's bytes as UTF-8 text (undefined when unread or not UTF-8), decoded once. */
  text: (path: string) => string | undefined;
  problems: Problem[];
}

export interface InspectOptions {
  /** Call `exports.agents.exporter` (runs adapter code). Default true. */
  runExporters?: boolean;
}

/** Read the manifest; malformed YAML, schema errors and contract mismatches throw HermitError (exit 2). */
export async function readManifest(root: string): Promise<Manifest> {
  await assertDirectory(root, "adapter");
  const file = `${root}/${MANIFEST_FILE}`;
  const text = await readAdapterText(root, MANIFEST_FILE, LIMITS.manifestBytes);
  return parseManifest(text, file);
}

export async function inspectAdapter(root: string, options: InspectOptions = {}): Promise<Inspection> {
  const manifest = await readManifest(root);
  const { bytes, executables, ...tree } = await readTree(root);
  const text = decodedOnce(bytes);
  const problems: Problem[] = [...tree.problems];
  const present = new Set(tree.files.map((file) => file.path));
  const report = (path: string, check: string, problem: string) => problems.push({ path, check, problem });
  const files: Files = { root, bytes, text, present, report };

  const context = readContext(files, manifest);
  const agents = await readAgents(files, manifest, tree, options.runExporters ?? true);
  const skills = readSkills(files, manifest, tree);
  const tools = readTools(manifest, present, report);
  const sourceHash = hashTree(tree.files, bytes);
  return { adapter: { root, manifest, context, agents, skills, tools, sourceHash }, tree, bytes, executables, text, problems };
}

/** Decode each file at most once: the reader and the spec rules read the same texts. */
function decodedOnce(bytes: ReadonlyMap<string, Buffer>): (path: string) => string | undefined {
  const texts = new Map<string, string | undefined>();
  return (path) => {
    if (!texts.has(path)) {
      const data = bytes.get(path);
      texts.set(path, data === undefined ? undefined : decodeUtf8(data));
    }
    return texts.get(path);
  };
}

/** Read an adapter for use (deploy, serve, train); any problem is an error naming the file. */
export async function readAdapter(root: string, options: InspectOptions = {}): Promise<Adapter> {
  const { adapter, problems } = await inspectAdapter(root, options);
  if (problems.length > 0) throw invalidAdapter(root, problems);
  return adapter;
}

/** ADAPTER_INVALID listing every problem as `path: problem (check)`. */
export function invalidAdapter(root: string, problems: Problem[]): HermitError {
  const lines = problems.map((p) => `${p.path}: ${p.problem} (${p.check})`);
  return new HermitError("ADAPTER_INVALID", `${root}: adapter is invalid:\n  ${lines.join("\n  ")}`, {
    path: root,
    issues: problems,
  });
}

export type Report = (path: string, check: string, problem: string) => void;

interface Files {
  root: string;
  bytes: ReadonlyMap<string, Buffer>;
  text: (path: string) => string | undefined;
  present: ReadonlySet<string>;
  report: Report;
}

/** The text of a file of the tree, or undefined (reported) when missing, too large or not UTF-8. */
function readText(files: Files, path: string, check: string): string | undefined {
  const unsafe = unsafePathReason(path);
  if (unsafe) {
    files.report(path, "path", `path ${unsafe}`);
    return undefined;
  }
  if (!files.present.has(path)) {
    files.report(path, "required", "file not found");
    return undefined;
  }
  const data = files.bytes.get(path);
  if (data === undefined) {
    files.report(path, check, `over the limit of ${LIMITS.fileBytes} bytes`);
    return undefined;
  }
  const text = files.text(path);
  if (text === undefined) files.report(path, check, "not valid UTF-8");
  return text;
}

function readContext(files: Files, manifest: Manifest) {
  const path = contextPath(manifest);
  const text = readText(files, path, "load") ?? "";
  if (path !== CONTEXT_FILE) readText(files, CONTEXT_FILE, "load");
  return { sourcePath: path, text };
}

async function readAgents(files: Files, manifest: Manifest, tree: Tree, runExporters: boolean) {
  const spec = manifest.exports?.agents;
  if (spec === undefined) return [];
  if (typeof spec === "object") return runExporters ? await exportAgents(files.root, spec.exporter, files.report) : [];
  const agents: AgentDefinition[] = [];
  const inFolder = tree.files.filter((f) => f.path.startsWith(`${spec}/`) && f.path.endsWith(".md"));
  for (const file of inFolder) {
    if (file.path.slice(spec.length + 1).includes("/")) continue; // one agent per file, directly in the folder
    const text = readText(files, file.path, "load");
    if (text === undefined) continue;
    try {
      const parsed = parseAgent(text, file.path);
      if (Array.isArray(parsed)) parsed.forEach((problem) => files.report(file.path, "format", problem));
      else agents.push({ ...parsed, sourcePath: file.path });
    } catch (error) {
      reportHermit(error, file.path, files.report);
    }
  }
  return withoutDuplicates(agents, "agent", files.report);
}

async function exportAgents(root: string, exporter: string, report: Report): Promise<AgentDefinition[]> {
  const entry = parseEntrypoint(exporter);
  let values: unknown;
  try {
    values = isPythonFile(entry.file) ? await runPythonExporter(root, entry) : await (await loadExport(root, entry))();
  } catch (error) {
    if (error instanceof HermitError && error.code === "PYTHON_UNAVAILABLE") throw error;
    const message = errorMessage(error);
    report(entry.file, "load", message.startsWith(`agent exporter ${exporter} failed: `) ? message : `agent exporter ${exporter} failed: ${message}`);
    return [];
  }
  return agentsFromExporter(values, exporter, entry.file, report);
}

/**
 * The agents an `exports.agents.exporter` returned (`[{ name, description, body }]`; `body`
 * may be called `instructions`), each checked like an agent file; problems are reported on
 * the exporter's file. Pure: the spec check runs the exporter in its child process.
 */
export function agentsFromExporter(values: unknown, exporter: string, file: string, report: Report): AgentDefinition[] {
  if (!Array.isArray(values)) {
    report(file, "load", `agent exporter ${exporter} failed: did not return an array`);
    return [];
  }
  const agents: AgentDefinition[] = [];
  for (const [index, value] of values.entries()) {
    const item = (value !== null && typeof value === "object" ? value : {}) as Record<string, unknown>;
    const body = item.body ?? item.instructions;
    const problems = agentProblems(item.name, item.description, body);
    if (problems.length > 0) {
      report(file, "load", `agent ${index} from ${exporter}: ${problems.join("; ")}`);
      continue;
    }
    const name = item.name as string;
    agents.push({ name, description: (item.description as string).trim(), body: body as string, frontmatter: {}, sourcePath: file });
  }
  return withoutDuplicates(agents, "agent", report);
}

function readSkills(files: Files, manifest: Manifest, tree: Tree) {
  const report = files.report;
  const folder = manifest.exports?.skills;
  if (folder === undefined) return [];
  const byName = new Map<string, string[]>();
  for (const file of tree.files) {
    if (!file.path.startsWith(`${folder}/`)) continue;
    const rest = file.path.slice(folder.length + 1);
    const slash = rest.indexOf("/");
    if (slash === -1) {
      report(file.path, "format", `files directly in '${folder}/' are not skills; put each skill in its own folder`);
      continue;
    }
    const name = rest.slice(0, slash);
    byName.set(name, [...(byName.get(name) ?? []), rest.slice(slash + 1)]);
  }
  const skills: SkillDefinition[] = [];
  for (const [folderName, skillFiles] of byName) {
    const dir = `${folder}/${folderName}`;
    const skillFile = `${dir}/SKILL.md`;
    if (!skillFiles.includes("SKILL.md")) {
      report(skillFile, "required", "skill folder has no SKILL.md");
      continue;
    }
    const text = readText(files, skillFile, "load");
    if (text === undefined) continue;
    try {
      const parsed = parseSkill(text, skillFile, folderName);
      if (Array.isArray(parsed)) parsed.forEach((problem) => report(skillFile, "format", problem));
      else skills.push({ ...parsed, dir, files: skillFiles.sort(), sourcePath: skillFile });
    } catch (error) {
      reportHermit(error, skillFile, report);
    }
  }
  return skills.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function readTools(manifest: Manifest, present: Set<string>, report: Report): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const [index, declaration] of (manifest.exports?.tools ?? []).entries()) {
    const where = `${MANIFEST_FILE}#exports.tools[${index}]`;
    const entry = parseEntrypoint(declaration.entrypoint);
    const unsafe = unsafePathReason(entry.file);
    if (unsafe) {
      report(where, "path", `tool '${declaration.name}': entrypoint file ${unsafe}`);
      continue;
    }
    if (!present.has(entry.file)) {
      report(entry.file, "load", `tool '${declaration.name}': entrypoint file ${entry.file} not found`);
    }
    for (const which of ["input_schema", "output_schema"] as const) {
      const schema = declaration[which];
      const problem = schema === undefined && which === "output_schema" ? undefined : toolSchemaProblem(schema, which);
      if (problem) report(where, "load", `tool '${declaration.name}': ${problem}`);
    }
    tools.push({ ...declaration, entry, sourcePath: MANIFEST_FILE });
  }
  return withoutDuplicates(tools, "tool", report);
}

function withoutDuplicates<T extends { name: string; sourcePath: string }>(items: T[], kind: string, report: Report): T[] {
  const seen = new Map<string, T>();
  for (const item of items) {
    const first = seen.get(item.name);
    if (first) report(item.sourcePath, "format", `duplicate ${kind} name '${item.name}' (also in ${first.sourcePath})`);
    else seen.set(item.name, item);
  }
  return [...seen.values()];
}

function reportHermit(error: unknown, path: string, report: Report): void {
  if (!isHermitError(error)) throw error;
  report(path, "format", error.message.replace(/^.*?: /, ""));
}
