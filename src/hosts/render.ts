/**
 * Rendering helpers every host uses: virtual file construction, the instruction block,
 * skill folders, markdown with frontmatter, the MCP server entry. Pure.
 */
import { stringify as stringifyToml } from "smol-toml";
import { stringify as stringifyYaml } from "yaml";
import { decodeUtf8 } from "../adapter/files.js";
import type { Adapter, AgentDefinition, SkillDefinition } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { containsMarker, renderBlock, renderTomlBlock } from "./managed-block.js";
import { contentHash, headerStyleFor, withOwnershipHeader, type OwnershipMeta } from "./ownership.js";
import type { ConfigEntry, FileIntent, FileOwner, ProjectOptions, VirtualFile } from "./types.js";

/** A virtual file with its hash; `header` says whether `content` carries an ownership header. */
export function virtualFile(
  path: string,
  content: string | Uint8Array,
  owner: FileOwner,
  intent: FileIntent,
  header: boolean,
): VirtualFile {
  return { path, content, sha256: contentHash(content), owner, intent, header };
}

/** The ownership facts of this deploy. */
export function ownershipMeta(adapter: Adapter, options: ProjectOptions): OwnershipMeta {
  return {
    hermitVersion: options.hermitVersion,
    adapterName: adapter.manifest.name,
    adapterVersion: adapter.manifest.version,
    sourceHash: adapter.sourceHash,
  };
}

/** A text file hermit owns, with an ownership header when its format has comments. */
export function ownedTextFile(path: string, text: string, owner: FileOwner, meta: OwnershipMeta): VirtualFile {
  const style = headerStyleFor(path);
  if (!style) return virtualFile(path, text, owner, "create", false);
  return virtualFile(path, withOwnershipHeader(text, style, meta), owner, "create", true);
}

/** A subagent as a markdown file at `path`: the host's frontmatter keys, then the instructions. */
export function agentMarkdownFile(
  adapter: Adapter,
  options: ProjectOptions,
  agent: AgentDefinition,
  path: string,
  frontmatter: Record<string, unknown>,
): VirtualFile {
  return ownedTextFile(
    path,
    markdownWithFrontmatter(frontmatter, agent.body),
    { export: "agents", item: agent.name, sourcePath: agent.sourcePath },
    ownershipMeta(adapter, options),
  );
}

/**
 * A host config file (`.json` or `.toml`) holding `config`. In a generated workspace it is
 * rewritten whole on every deploy (TOML gets a header; JSON cannot). In the user's own
 * project (`options.existing`) it holds only hermit's entries: the second-level keys
 * (`mcpServers.<adapter>`) and array members (`enabledMcpjsonServers[<adapter>]`) of
 * `config` become `keys` in a JSON file, or a block between `#` markers in a TOML file;
 * top-level scalars (`$schema`) are left to the user's file.
 */
export function configFile(
  path: string,
  config: Record<string, unknown>,
  adapter: Adapter,
  options: ProjectOptions,
  owner: FileOwner = { export: "tools" },
): VirtualFile {
  const toml = path.endsWith(".toml");
  if (options.existing) {
    const entries = configEntries(config);
    if (toml) {
      const file = virtualFile(path, renderTomlBlock(adapter.manifest.name, stringifyToml(config)), owner, "block", false);
      return { ...file, blockName: adapter.manifest.name, entries };
    }
    return { ...virtualFile(path, JSON.stringify(entries), owner, "keys", false), entries };
  }
  const text = toml ? stringifyToml(config) : jsonText(config);
  const style = headerStyleFor(path);
  if (!style) return virtualFile(path, text, owner, "replace", false);
  return virtualFile(path, withOwnershipHeader(text, style, ownershipMeta(adapter, options)), owner, "replace", true);
}

/** The entries hermit owns in `config`: second-level keys of objects, members of arrays. */
export function configEntries(config: Record<string, unknown>): ConfigEntry[] {
  return Object.entries(config).flatMap(([key, value]): ConfigEntry[] => {
    if (Array.isArray(value)) return value.map((member) => ({ key: [key], value: member, member: true }));
    if (value !== null && typeof value === "object") {
      return Object.entries(value).map(([name, inner]) => ({ key: [key, name], value: inner }));
    }
    return [];
  });
}

/** JSON as hosts write it: two-space indent, final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The managed block of the adapter's context for `path` (a shared instruction file). */
export function instructionBlock(adapter: Adapter, path: string, leadLines: readonly string[] = []): VirtualFile {
  const { text, sourcePath } = adapter.context;
  if (containsMarker(text)) {
    throw new HermitError(
      "ADAPTER_INVALID",
      `${adapter.root}/${sourcePath}: contains a hermit managed-block marker ('<!-- hermit:…:start/end -->'); remove it`,
      { path: `${adapter.root}/${sourcePath}` },
    );
  }
  const file = virtualFile(path, renderBlock(adapter.manifest.name, text, leadLines), { export: "context", sourcePath }, "block", false);
  return { ...file, blockName: adapter.manifest.name };
}

/**
 * Every file of every skill under `<base>/<skill name>/`: text files keep their bytes plus an
 * ownership header where the format has comments (after SKILL.md's frontmatter); other
 * files are copied as bytes and recorded in `.hermit-deploy.json` only.
 */
export function skillFiles(adapter: Adapter, options: ProjectOptions, base: string): VirtualFile[] {
  const meta = ownershipMeta(adapter, options);
  return adapter.skills.flatMap((skill) => skill.files.map((file) => skillFile(adapter, skill, file, options, base, meta)));
}

function skillFile(
  adapter: Adapter,
  skill: SkillDefinition,
  relative: string,
  options: ProjectOptions,
  base: string,
  meta: OwnershipMeta,
): VirtualFile {
  const sourcePath = `${skill.dir}/${relative}`;
  const bytes = options.sources.get(sourcePath);
  if (bytes === undefined) {
    throw new HermitError("INPUT_NOT_FOUND", `${adapter.root}/${sourcePath}: skill file was not read`, { path: sourcePath });
  }
  const path = `${base}/${skill.name}/${relative}`;
  const owner: FileOwner = { export: "skills", item: skill.name, sourcePath };
  const text = decodeUtf8(bytes);
  const file =
    text === undefined || text.includes("\0") ? virtualFile(path, bytes, owner, "create", false) : ownedTextFile(path, text, owner, meta);
  return options.executables.has(sourcePath) ? { ...file, executable: true } : file;
}

/** Markdown with YAML frontmatter (keys in the given order) and a body. */
export function markdownWithFrontmatter(data: Record<string, unknown>, body: string): string {
  const yaml = stringifyYaml(data, { lineWidth: 0 });
  const text = body.replace(/\r\n/g, "\n").replace(/^\n+/, "");
  return `---\n${yaml}---\n${text.endsWith("\n") ? text : `${text}\n`}`;
}

/** `{ command, args }` of the adapter's MCP server. */
export function serverCommand(options: ProjectOptions): { command: string; args: string[] } {
  return { command: options.server.command, args: [...options.server.args] };
}

/** Frontmatter keys of an agent that a host's projection leaves out (for the report). */
export function droppedKeys(frontmatter: Record<string, unknown>, kept: ReadonlySet<string>): string[] {
  return Object.keys(frontmatter).filter((key) => !kept.has(key)).sort();
}
