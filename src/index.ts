/**
 * hermit's library API. Every export is named here on purpose; `test/api.test.ts` pins the list.
 */

// Errors
export { HermitError, ErrorCodes, ExitCode, isHermitError } from "./errors.js";
export { CONTRACT_VERSION, hermitVersion } from "./package-root.js";

// Adapter model
export { readAdapter, inspectAdapter, readManifest } from "./adapter/read.js";
export { parseManifest, negotiateContract, FIXED_SECTIONS } from "./adapter/manifest.js";
export type {
  Adapter,
  AdapterContext,
  AgentDefinition,
  Entrypoint,
  LearnableRule,
  Manifest,
  Problem,
  SkillDefinition,
  ToolDeclaration,
  ToolDefinition,
} from "./adapter/types.js";

// Specification check and repair
export { checkSpec } from "./spec/check.js";
export { repairCandidate, planRepair, applyRepair } from "./spec/repair.js";
export type { CheckOptions, Issue, Isolation, SpecResult } from "./spec/types.js";
export type { RepairAction, RepairRecord } from "./spec/repair.js";

// Tools at run time: MCP server, Session, sandbox
export { Session } from "./runtime/session.js";
export type { SessionOptions } from "./runtime/session.js";
export { serveAdapter } from "./runtime/serve.js";
export type { RunningServer, ServeOptions } from "./runtime/serve.js";
export { createToolServer } from "./runtime/mcp-server.js";
export { Toolbox, DEFAULT_TIMEOUT_MS } from "./runtime/toolbox.js";
export { AuditLog } from "./runtime/audit-log.js";
export { bindResources, readResourcesFile } from "./runtime/resources.js";
export type { ResourceOptions } from "./runtime/resources.js";
export { toolSpecs } from "./runtime/tool-formats.js";
export type {
  AnthropicToolResult,
  AnthropicToolSpec,
  AnthropicToolUse,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIToolSpec,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ToolCall,
  ToolFormat,
  ToolMessage,
} from "./runtime/tool-formats.js";
export type { AuditRecord, PublishedTool, ToolBackend, ToolOutcome, ToolResources } from "./runtime/types.js";
