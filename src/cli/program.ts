/**
 * The command tree. Each command module is imported only when its command runs, so
 * `hermit --help` stays fast. Commands return a CommandResult; `main` alone exits.
 */
import { Command, CommanderError, type Option } from "commander";
import { HermitError, isHermitError, errorMessage } from "../errors.js";
import { hermitVersion } from "../package-root.js";
import { closest } from "../suggest.js";
import { emit, type CommandResult } from "./output.js";

/** Internal bug (not the user's input): EX_SOFTWARE. */
const INTERNAL_ERROR_EXIT = 70;

export type CommandRegistration = (program: Command, run: RunAction) => void;
export type RunAction = (json: boolean, action: () => Promise<CommandResult>) => Promise<void>;

/** Command modules, in the order `--help` lists them. Each adds its own subcommand(s). */
const registrations: Array<() => Promise<{ register: CommandRegistration }>> = [
  () => import("./commands/train.js"),
  () => import("./commands/report.js"),
  () => import("./commands/deploy.js"),
  () => import("./commands/serve.js"),
  () => import("./commands/verify.js"),
  () => import("./commands/spec.js"),
];

/**
 * commander's Command, with one change: a required option reported missing while the user typed
 * an unknown option that resembles it (`--adaptor` for `--adapter`) is reported as that typo.
 */
class HermitCommand extends Command {
  override createCommand(name?: string): Command {
    return new HermitCommand(name);
  }

  /** commander's (undocumented) hook for a required option left out; `this.args` still holds the unknown options. */
  missingMandatoryOptionValue(option: Option): void {
    const typed = this.args.filter((arg) => arg.startsWith("--")).map((arg) => arg.split("=")[0]!);
    const typo = option.long ? typed.find((arg) => closest(arg.slice(2), [option.long!.slice(2)]) !== undefined) : undefined;
    if (typo) this.error(`error: unknown option '${typo}'\n(Did you mean ${option.long}?)`, { code: "commander.unknownOption" });
    (Command.prototype as unknown as { missingMandatoryOptionValue(option: Option): void }).missingMandatoryOptionValue.call(this, option);
  }
}

export async function buildProgram(): Promise<Command> {
  const program = new HermitCommand("hermit")
    .description("Train and ship adapters for AI coding-agent hosts (Codex, Claude Code, Pi, OpenCode, Gemini CLI).")
    .version(hermitVersion, "-V, --version")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  const run: RunAction = async (json, action) => {
    let result: CommandResult;
    try {
      result = await action();
    } catch (error) {
      // With --json a refusal is still one JSON document on stdout (and a line on stderr).
      if (!json || !isHermitError(error)) throw error;
      reportError(error);
      result = { exitCode: error.exitCode, json: errorDocument(error.code, error.message, error.data) };
    }
    emit(result, json);
    process.exitCode = result.exitCode;
  };
  for (const load of registrations) (await load()).register(program, run);
  return program;
}

function errorDocument(code: string, message: string, data: Record<string, unknown> = {}) {
  return { error: { code, message, ...data } };
}

function reportError(error: HermitError): void {
  process.stderr.write(`hermit: error ${error.code}: ${error.message}\n`);
}

/** Parse argv, run the command, set the exit code. Never throws. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`hermit … | head`) is not an error of ours.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    const program = await buildProgram();
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; usage errors were already printed by commander.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      if (error.exitCode !== 0 && argv.includes("--json")) {
        const message = error.message.replace(/^error: /, "");
        emit({ exitCode: 2, json: errorDocument("USAGE", message) }, true);
      }
    } else if (isHermitError(error)) {
      reportError(error);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`hermit: internal error: ${errorMessage(error)}\n${(error as Error)?.stack ?? ""}\n`);
      process.exitCode = INTERNAL_ERROR_EXIT;
    }
  }
}
