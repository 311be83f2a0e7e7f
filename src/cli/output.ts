/** What a command hands back to the CLI shell: the only place that prints results and exits. */
import type { Command } from "commander";
import type { ExitCode } from "../errors.js";

export interface CommandResult {
  exitCode: ExitCode;
  /** Printed as one JSON document when the user asked for --json. */
  json?: unknown;
  /** Human output for stdout. */
  text?: string;
}

/** A command module's entry: adds its commands to the program; `run` wraps each action. */
export type CommandRegistration = (program: Command, run: RunAction) => void;
/** Runs one command's action: prints its result (as JSON when `json`), maps failures to exit codes. */
export type RunAction = (json: boolean, action: () => Promise<CommandResult>) => Promise<void>;

export function emit(result: CommandResult, asJson: boolean): void {
  if (asJson && result.json !== undefined) process.stdout.write(`${JSON.stringify(result.json, null, 2)}\n`);
  else if (result.text) process.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
}

/** Progress and logs go to stderr so stdout stays one document. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}
