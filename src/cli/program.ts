/**
 * The command tree. Each command module is imported only when its command runs, so
 * `hermit --help` stays fast. Commands return a CommandResult; `main` alone exits.
 */
import { Command, CommanderError, type Option } from "commander";
import { HermitError, isHermitError, errorMessage } from "../errors.js";
import { hermitVersion } from "../package-root.js";
import { closest } from "../suggest.js";
import { emit, type CommandRegistration, type CommandResult, type RunAction } from "./output.js";

/** Internal bug (not the user's input): EX_SOFTWARE. */
const INTERNAL_ERROR_EXIT = 70;

/**
 * Command modules, in the order `--help` lists them, each with the top-level commands it adds
 * (test/cli/program.test.ts keeps the lists true). Only the module of the command being run is
 * loaded; help, a mistyped command or one missing from the lists loads them all.
 */
export const registrations: Array<{ commands: string[]; load: () => Promise<{ register: CommandRegistration }> }> = [
  { commands: ["train", "runs"], load: () => import("./commands/train.js") },
  { commands: ["worker"], load: () => import("./commands/worker.js") },
  { commands: ["report"], load: () => import("./commands/report.js") },
  { commands: ["deploy", "status", "undeploy", "convert"], load: () => import("./commands/deploy.js") },
  { commands: ["serve"], load: () => import("./commands/serve.js") },
  { commands: ["verify"], load: () => import("./commands/verify.js") },
  { commands: ["spec"], load: () => import("./commands/spec.js") },
];

/** The registrations `argv` (node, script, …args) needs. */
function needed(argv: string[]): typeof registrations {
  const name = argv.slice(2).find((arg) => !arg.startsWith("-"));
  const owner = registrations.find((registration) => name !== undefined && registration.commands.includes(name));
  return owner ? [owner] : registrations;
}

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

/** The command tree for `argv` (all commands when it is omitted). */
export async function buildProgram(argv?: string[]): Promise<Command> {
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
  for (const { load } of argv ? needed(argv) : registrations) (await load()).register(program, run);
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
    const program = await buildProgram(argv);
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
