/** What a command hands back to the CLI shell: the only place that prints results and exits. */
import type { ExitCode } from "../errors.js";

export interface CommandResult {
  exitCode: ExitCode;
  /** Printed as one JSON document when the user asked for --json. */
  json?: unknown;
  /** Human output for stdout. */
  text?: string;
}

export function emit(result: CommandResult, asJson: boolean): void {
  if (asJson && result.json !== undefined) process.stdout.write(`${JSON.stringify(result.json, null, 2)}\n`);
  else if (result.text) process.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
}

/** Progress and logs go to stderr so stdout stays one document. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}
