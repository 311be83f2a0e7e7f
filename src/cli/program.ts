/**
 * The command tree. Each command module is imported only when its command runs, so
 * `hermit --help` stays fast. Commands return a CommandResult; `main` alone exits.
 */
import { Command, CommanderError } from "commander";
import { HermitError, errorMessage } from "../errors.js";
import { hermitVersion } from "../package-root.js";
import { emit, type CommandResult } from "./output.js";

/** Internal bug (not the user's input): EX_SOFTWARE. */
const INTERNAL_ERROR_EXIT = 70;

export type CommandRegistration = (program: Command, run: RunAction) => void;
export type RunAction = (json: boolean, action: () => Promise<CommandResult>) => Promise<void>;

/** Command modules, in the order `--help` lists them. Each adds its own subcommand(s). */
const registrations: Array<() => Promise<{ register: CommandRegistration }>> = [
  () => import("./commands/spec.js"),
  () => import("./commands/serve.js"),
  () => import("./commands/deploy.js"),
  () => import("./commands/verify.js"),
  () => import("./commands/train.js"),
];

export async function buildProgram(): Promise<Command> {
  const program = new Command("hermit")
    .description("Train and ship adapters for AI coding-agent hosts (Codex, Claude Code, Pi, OpenCode, Gemini CLI).")
    .version(hermitVersion, "-V, --version")
    .showHelpAfterError()
    .exitOverride();
  const run: RunAction = async (json, action) => {
    const result = await action();
    emit(result, json);
    process.exitCode = result.exitCode;
  };
  for (const load of registrations) (await load()).register(program, run);
  return program;
}

/** Parse argv, run the command, set the exit code. Never throws. */
export async function main(argv: string[]): Promise<void> {
  try {
    const program = await buildProgram();
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; usage errors were already printed by commander.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof HermitError) {
      process.stderr.write(`hermit: error ${error.code}: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`hermit: internal error: ${errorMessage(error)}\n${(error as Error)?.stack ?? ""}\n`);
      process.exitCode = INTERNAL_ERROR_EXIT;
    }
  }
}
