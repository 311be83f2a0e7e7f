/**
 * `hermit`: the programmatic API — check, deploy, serve and verify an adapter, train one, and
 * the errors they throw. Plugin authors import from `hermit/plugin` (src/plugin.ts). Every
 * export is named here on purpose; `test/api.test.ts` pins the list. Internals stay internal.
 */

// Errors and versions
export { HermitError, isHermitError, ErrorCodes, ExitCode } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { CONTRACT_VERSION, hermitVersion } from "./package-root.js";

// Reading and checking an adapter
export { readAdapter } from "./adapter/read.js";
export type { Adapter, Manifest } from "./adapter/types.js";
export { checkSpec } from "./check/check.js";
export type { CheckOptions, Issue, SpecResult } from "./check/types.js";

// Deploy
export { deploy, undeploy, status } from "./deploy/deploy.js";
export type { ActionSummary, DeployOptions, DeployResult, StatusOptions, UndeployOptions } from "./deploy/deploy.js";
export type { FileCondition, FileStatus, WorkspaceStatus } from "./deploy/status.js";
export { HOST_IDS } from "./hosts/index.js";
export type { HostId } from "./hosts/types.js";

// Tools at run time
export { Session } from "./runtime/session.js";
export type { SessionOptions } from "./runtime/session.js";
export type { Sandbox } from "./runtime/sandbox.js";
export { serveAdapter as serve } from "./runtime/serve.js";
export type { RunningServer, ServeOptions } from "./runtime/serve.js";
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

// Verify: the real host against a stub model
export { verifyWorkspace as verify } from "./verify/verify.js";
export type { VerifyOptions, VerifyReport } from "./verify/verify.js";
export { formatVerifyReport } from "./verify/format.js";
export { startStubModel } from "./verify/stub-model.js";
export type { RecordedRequest, StubModel, StubModelOptions, StubProtocol } from "./verify/stub-model.js";
export type { Conversation, ConversationItem, OfferedTool, StubAgent, StubToolCall, StubTurn, StubUsage } from "./verify/stub-model.js";

// Train
export { train } from "./builtins.js";
export { listRuns, showRun } from "./train/runs.js";
export type { RunDetails, RunSummary } from "./train/runs.js";
export type { TrainOptions, TrainResult, TrainStepSummary } from "./train/loop/trainer.js";
export type { ObservedRun, RunEnding, TrainObservers } from "./train/observers.js";
export type { TrainSettings } from "./train/settings/table.js";
export type { DeploymentRecord, Evaluation, RunRecord, StepRecord } from "./train/records.js";
export type { RunStatus, StepStatus } from "./train/types.js";

// Report: one self-contained HTML page of a run (docs/report.md)
export { writeReport, reportData } from "./report/write.js";
export type { ReportOptions, WrittenReport } from "./report/write.js";
export type { ReportData, StepView, Heatmap, HeatCell, LineageNode, FileDiff, UsageView, BudgetView } from "./report/types.js";
