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
export { checkSpec } from "./check/check.js";
export { repairCandidate, planRepair, applyRepair } from "./check/repair.js";
export type { CheckOptions, Issue, Isolation, SpecResult } from "./check/types.js";
export type { RepairAction, RepairRecord } from "./check/repair.js";

// Hosts and deploy
export { hosts, HOST_IDS, getHost, assertSupported, codex, claudeCode, pi, opencode, gemini } from "./hosts/index.js";
export type {
  ActivationStep,
  Capability,
  CapabilityDeclaration,
  CapabilityLevel,
  ExportKind,
  FileIntent,
  FileOwner,
  Host,
  HostId,
  ProjectOptions,
  ProjectionNote,
  VirtualFile,
} from "./hosts/types.js";
export { checkOwnershipHeader, parseOwnershipHeader } from "./hosts/ownership.js";
export { scanBlocks } from "./hosts/managed-block.js";
export { deploy, undeploy, status, serverCommandFor } from "./deploy/deploy.js";
export type { ActionSummary, DeployOptions, DeployResult, StatusOptions, UndeployOptions } from "./deploy/deploy.js";
export { planDeploy, planUndeploy } from "./deploy/plan.js";
export type { ActionKind, DriftIssue, Plan, PlannedAction, WorkspaceSnapshot } from "./deploy/plan.js";
export { RECORD_FILE, parseRecord } from "./deploy/record.js";
export type { DeploymentReport, RecordedFile } from "./deploy/record.js";
export type { FileCondition, FileStatus, WorkspaceStatus } from "./deploy/status.js";
export { convertAdapter } from "./deploy/convert.js";
export type { Conversion } from "./deploy/convert.js";

// Tools at run time: MCP server, Session, sandbox
export { Session } from "./runtime/session.js";
export type { SessionOptions } from "./runtime/session.js";
export { serveAdapter } from "./runtime/serve.js";
export type { RunningServer, ServeOptions } from "./runtime/serve.js";
export { createToolServer } from "./runtime/mcp-server.js";
export { Toolbox, TOOL_TIMEOUT_MS } from "./runtime/toolbox.js";
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

// Verify: the real host against a stub model
export { verifyWorkspace } from "./verify/verify.js";
export type { VerifyOptions, VerifyReport } from "./verify/verify.js";
export { formatVerifyReport } from "./verify/format.js";
export type { ItemKind, VerifiedItem } from "./verify/judge.js";
export type { CommandEvidence, Evidence, RequestEvidence } from "./verify/evidence.js";
export { startStubModel } from "./verify/stub-model.js";
export type { RecordedRequest, StubModel, StubModelOptions, StubProtocol } from "./verify/stub-model.js";
export { HOST_PROGRAMS } from "./verify/programs.js";
export type { HostProgram } from "./verify/programs.js";

// Train: the Git-versioned loop, Task and Evolver plugins
export { train, defineEvolver, defineTask, decide, listRuns, showRun, createProgress, silentProgress } from "./train/index.js";
export type {
  AcceptanceRule,
  AcceptPolicy,
  Decision,
  DeployTarget,
  DeploymentRecord,
  Evaluation,
  Evolver,
  EvolverContext,
  EvolverOutcome,
  HistoryEntry,
  LearningMaterial,
  Progress,
  RepairFeedback,
  RolloutContext,
  RolloutRecord,
  RolloutResult,
  RolloutStatus,
  RunDetails,
  RunRecord,
  RunStatus,
  RunSummary,
  ScoredItem,
  Split,
  StepRecord,
  StepResult,
  StepStatus,
  Task,
  TaskInstance,
  TrainOptions,
  TrainResult,
  TrainSettings,
  TrainStepSummary,
  Usage,
} from "./train/index.js";
