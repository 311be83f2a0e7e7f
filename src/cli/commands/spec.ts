import type { Command } from "commander";
import { ExitCode, HermitError } from "../../errors.js";
import type { CommandRegistration } from "../program.js";

export const register: CommandRegistration = (program: Command, run) => {
  const spec = program
    .command("spec")
    .summary("Check adapters against their template's specification")
    .description("Check adapters against their template's specification.");
  spec
    .command("check")
    .summary("Check an adapter against a template's specification")
    .description(
      "Check that an adapter meets the specification of a template root: fixed and learnable paths, " +
        "formats and limits, fixed manifest sections, and that everything loads (tools imported, custom check run).\n" +
        "Exit 0 passed, 1 issues found, 2 bad input.",
    )
    .argument("<adapter>", "adapter directory to check")
    .requiredOption("--root <template>", "template root directory whose adapter.yaml holds the specification")
    .option("--json", "print exactly { passed, issues } as JSON")
    .option("--timeout-ms <n>", "limit for the tool imports and custom check, in ms", "120000")
    .action(async (adapter: string, options: { root: string; json?: boolean; timeoutMs: string }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { checkSpec } = await import("../../check/check.js");
        const result = await checkSpec(resolve(adapter), resolve(options.root), {
          timeoutMs: positiveInteger("--timeout-ms", options.timeoutMs),
        });
        const isolation =
          result.isolation === "bwrap"
            ? "tools and custom check ran without network (bwrap)"
            : result.isolation === "none"
              ? "tools and custom check ran WITHOUT network isolation (bwrap not found)"
              : "no tools or custom check to run";
        const lines = result.passed
          ? [`${adapter}: passed (${isolation})`]
          : [
              ...result.issues.map((issue) => `${printable(issue.path)}: ${printable(issue.problem)} (${issue.check})`),
              `${result.issues.length} issue${result.issues.length === 1 ? "" : "s"} found (${isolation})`,
            ];
        return {
          exitCode: result.passed ? ExitCode.ok : ExitCode.problems,
          json: { passed: result.passed, issues: result.issues },
          text: lines.join("\n"),
        };
      }),
    );
};

/** One issue per line: a path or problem holding a control character (a newline) is shown JSON-quoted. */
function printable(text: string): string {
  return /[\u0000-\u001f\u007f]/.test(text) ? JSON.stringify(text) : text;
}

function positiveInteger(flag: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > 2_147_483_647) {
    throw new HermitError("USAGE", `${flag}: '${value}' must be an integer from 1 to 2147483647`, { flag, value });
  }
  return number;
}
