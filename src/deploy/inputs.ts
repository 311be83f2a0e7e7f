/**
 * What besides the adapter's source shapes a projection, hashed into the record
 * (`inputsHash`), so the no-op fast path can tell an unchanged redeploy without projecting.
 */
import { sha256 } from "../adapter/files.js";
import type { ServerCommand } from "../hosts/types.js";

/** Everything besides the adapter's source that shapes a projection. */
export interface ProjectionInputs {
  server: ServerCommand;
  workspaceHasAgentsMd: boolean;
  existing: boolean;
  /** Source paths of the copied files that are executable. */
  executables: readonly string[];
  /** Whether `dist/cli.js` exists (a missing build adds a note). */
  cliBuilt: boolean;
}

/** sha256 of the projection inputs (`DeploymentReport.inputsHash`). */
export function inputsHash(inputs: ProjectionInputs): string {
  return sha256(JSON.stringify({ ...inputs, executables: [...inputs.executables].sort() }));
}
