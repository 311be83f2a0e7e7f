/** The in-memory model of an adapter directory. Every item remembers where it came from. */

/** `adapter.yaml`, as validated against `schemas/adapter.schema.json`. */
export interface Manifest {
  contract: string;
  name: string;
  version: string;
  description: string;
  template?: { name: string; version: number | string };
  exports?: ManifestExports;
  structure?: { fixed?: string[]; learnable?: LearnableRule[] };
  /** `file:function`, loaded from the template root. */
  check?: string;
  evolver_tools?: ToolDeclaration[];
  /** Written by the Trainer: run, step, parent commit, template commit. */
  origin?: Record<string, unknown>;
}

export interface ManifestExports {
  context?: string;
  agents?: string | { exporter: string };
  skills?: string;
  tools?: ToolDeclaration[];
}

export type LearnableFormat = "markdown" | "agent" | "skill" | "text" | "any";

export interface LearnableRule {
  /** A relative path or glob. */
  path: string;
  format?: LearnableFormat;
  max_bytes?: number;
  max_files?: number;
}

/** A tool as declared in `adapter.yaml`. */
export interface ToolDeclaration {
  name: string;
  description: string;
  /** `file:function` relative to the adapter. */
  entrypoint: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
}

/** A parsed `file:function` reference. */
export interface Entrypoint {
  /** Relative POSIX path inside the directory that declared it. */
  file: string;
  function: string;
}

export interface SourceRef {
  /** Relative POSIX path inside the adapter that this item was read from. */
  sourcePath: string;
}

export interface AdapterContext extends SourceRef {
  text: string;
}

export interface AgentDefinition extends SourceRef {
  name: string;
  description: string;
  /** The instructions (the markdown body). */
  body: string;
  /** Every frontmatter key, as written. Hosts pick the keys they know. */
  frontmatter: Record<string, unknown>;
}

export interface SkillDefinition extends SourceRef {
  name: string;
  description: string;
  /** Relative path of the skill folder (`skills/<name>`). */
  dir: string;
  body: string;
  frontmatter: Record<string, unknown>;
  /** Every file of the skill folder, relative to the folder, sorted, SKILL.md included. */
  files: string[];
}

export interface ToolDefinition extends ToolDeclaration, SourceRef {
  entry: Entrypoint;
}

export interface Adapter {
  /** Absolute path of the adapter directory. */
  root: string;
  manifest: Manifest;
  context: AdapterContext;
  agents: AgentDefinition[];
  skills: SkillDefinition[];
  tools: ToolDefinition[];
  /** sha256 over every file of the adapter (path and bytes), stable across machines. */
  sourceHash: string;
}

/** A problem found while reading an adapter; the spec check turns these into issues. */
export interface Problem {
  /** Relative POSIX path the problem is about. */
  path: string;
  check: string;
  problem: string;
}
