/**
 * One error base for every failure a user can act on. `code` is stable (tools and tests
 * branch on it), `message` is for people, `data` names the file or item involved.
 * Only the CLI entry turns these into exit codes.
 */

/** Exit codes (docs/cli.md). */
export const ExitCode = {
  ok: 0,
  problems: 1,
  input: 2,
  drift: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Stable error codes. The exit code each maps to is fixed here, in one place. */
export const ErrorCodes = {
  USAGE: ExitCode.input,
  INPUT_NOT_FOUND: ExitCode.input,
  INPUT_UNREADABLE: ExitCode.input,
  INPUT_TOO_LARGE: ExitCode.input,
  INPUT_NOT_UTF8: ExitCode.input,
  YAML_SYNTAX: ExitCode.input,
  YAML_UNSAFE: ExitCode.input,
  MANIFEST_INVALID: ExitCode.input,
  CONTRACT_VERSION: ExitCode.input,
  CONTRACT_MAJOR: ExitCode.input,
  PATH_UNSAFE: ExitCode.input,
  ADAPTER_INVALID: ExitCode.input,
  PLUGIN_INVALID: ExitCode.input,
  HOST_UNKNOWN: ExitCode.input,
  HOST_UNSUPPORTED: ExitCode.input,
  HOST_NOT_INSTALLED: ExitCode.input,
  WORKSPACE_INVALID: ExitCode.input,
  WORKSPACE_LOCKED: ExitCode.input,
  /** The file system refused a write (permissions, read-only, full disk); what was written is restored. */
  WORKSPACE_UNWRITABLE: ExitCode.input,
  RUN_INVALID: ExitCode.input,
  RUN_LOCKED: ExitCode.input,
  DRIFT: ExitCode.drift,
  /** Something swapped a workspace folder for a symlink while a deploy wrote there; it stopped and restored what it had written. */
  WORKSPACE_CHANGED: ExitCode.drift,
  TOOL_UNKNOWN: ExitCode.input,
  TOOL_ARGUMENTS_INVALID: ExitCode.input,
  TOOL_RESULT_INVALID: ExitCode.problems,
  TOOL_FAILED: ExitCode.problems,
  TOOL_TIMEOUT: ExitCode.problems,
  TOOL_CANCELLED: ExitCode.problems,
  SANDBOX_UNAVAILABLE: ExitCode.input,
  /** A Python entrypoint is used and no usable Python interpreter was found. */
  PYTHON_UNAVAILABLE: ExitCode.input,
  /** A long-running command (verify) was interrupted; it cleaned up before exiting. */
  INTERRUPTED: ExitCode.problems,
  /** A model call failed after its retries (HTTP error, timeout, network). */
  MODEL_CALL_FAILED: ExitCode.problems,
  /** A model call or rollout was not started because it would pass a budget. */
  BUDGET_EXCEEDED: ExitCode.problems,
  /** The rollout queue (Redis, for `--executor redis://…` and `hermit worker`) could not be reached or used. */
  QUEUE_UNAVAILABLE: ExitCode.problems,
} as const;
export type ErrorCode = keyof typeof ErrorCodes;

/**
 * The brand every HermitError carries. A plugin with its own copy of hermit throws errors of
 * another class object; the brand (a registered symbol, the same in every copy) still says
 * "hermit error", where `instanceof` would not.
 */
const HERMIT_ERROR = Symbol.for("hermit.error");

export class HermitError extends Error {
  override readonly name = "HermitError";
  readonly [HERMIT_ERROR] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get exitCode(): ExitCode {
    return ErrorCodes[this.code];
  }
}

/** Is `error` a HermitError, from this copy of hermit or any other (checked by brand, never by class)? */
export function isHermitError(error: unknown): error is HermitError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[HERMIT_ERROR] === true &&
    typeof (error as HermitError).code === "string" &&
    (error as HermitError).code in ErrorCodes
  );
}

/** The message of anything thrown, for reports that must not crash on odd values. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
}
