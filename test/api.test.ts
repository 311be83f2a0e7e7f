/** The public API is the explicit list in src/index.ts; this pins the runtime exports. */
import { expect, it } from "vitest";
import * as hermit from "../src/index.js";

it("exports exactly the documented runtime values", () => {
  expect(Object.keys(hermit).sort()).toEqual(
    [
      // errors and versions
      "CONTRACT_VERSION",
      "ErrorCodes",
      "ExitCode",
      "HermitError",
      "hermitVersion",
      "isHermitError",
      // adapter model
      "FIXED_SECTIONS",
      "inspectAdapter",
      "negotiateContract",
      "parseManifest",
      "readAdapter",
      "readManifest",
      // spec check and repair
      "applyRepair",
      "checkSpec",
      "planRepair",
      "repairCandidate",
      // hosts and deploy
      "HOST_IDS",
      "RECORD_FILE",
      "assertSupported",
      "checkOwnershipHeader",
      "claudeCode",
      "codex",
      "convertAdapter",
      "deploy",
      "gemini",
      "getHost",
      "hosts",
      "opencode",
      "parseOwnershipHeader",
      "parseRecord",
      "pi",
      "planDeploy",
      "planUndeploy",
      "scanBlocks",
      "serverCommandFor",
      "status",
      "undeploy",
      // runtime
      "AuditLog",
      "TOOL_TIMEOUT_MS",
      "Session",
      "Toolbox",
      "bindResources",
      "createToolServer",
      "readResourcesFile",
      "serveAdapter",
      "toolSpecs",
      // verify
      "HOST_PROGRAMS",
      "formatVerifyReport",
      "startStubModel",
      "verifyWorkspace",
      // train
      "createProgress",
      "decide",
      "defineEvolver",
      "defineTask",
      "listRuns",
      "showRun",
      "silentProgress",
      "train",
    ].sort(),
  );
});

it("defineEvolver and defineTask return their definitions for typed plugins", () => {
  const evolver = { name: "e", step: async () => ({ status: "skipped" as const, summary: "" }) };
  expect(hermit.defineEvolver(evolver)).toBe(evolver);
  const task = { name: "t", instances: () => [], rollout: async () => ({ score: null }) };
  expect(hermit.defineTask(task)).toBe(task);
});
