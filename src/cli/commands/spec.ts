import type { Command } from "commander";
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { ExitCode, HermitError } from "../../errors.js";
import type { CommandRegistration } from "../output.js";

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
    .option("--timeout <duration>", "limit for the custom check, agent exporter and tool imports, e.g. 90s, 10m (default 2m)")
    .option("--timeout-ms <n>", "the same limit in milliseconds (older spelling of --timeout)")
    .action(async (adapter: string, options: { root: string; json?: boolean; timeout?: string; timeoutMs?: string }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { checkSpec } = await import("../../check/check.js");
        const result = await checkSpec(resolve(adapter), resolve(options.root), { timeoutMs: timeoutFrom(options) });
        const isolation =
          result.isolation === "bwrap"
            ? "tools and custom check ran without network (bwrap)"
            : result.isolation === "none"
              ? "tools and custom check ran WITHOUT network isolation (bwrap not found)"
              : "no tools or custom check to run";
        const lines = result.passed
          ? [`${adapter}: passed (${isolation})`]
          : [
              ...result.issues.map(issueLine),
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

/**
 * `path: problem (check)`. A problem may span lines (a YAML error's excerpt and caret): its
 * further lines follow, indented, so none of them can pass for an issue of its own.
 */
function issueLine(issue: { path: string; problem: string; check: string }): string {
  const [first = "", ...more] = issue.problem.split("\n");
  if ([first, ...more].some((line) => /[\u0000-\u001f\u007f]/.test(line))) {
    return `${printable(issue.path)}: ${JSON.stringify(issue.problem)} (${issue.check})`;
  }
  return [`${printable(issue.path)}: ${first} (${issue.check})`, ...more.map((line) => `    ${line}`)].join("\n");
}

const MAX_TIMEOUT_MS = 2_147_483_647;

/** `--timeout` (one duration syntax) or its older spelling `--timeout-ms`; undefined: the default. */
function timeoutFrom(options: { timeout?: string; timeoutMs?: string }): number | undefined {
  if (options.timeout !== undefined && options.timeoutMs !== undefined) {
    throw new HermitError("USAGE", "--timeout and --timeout-ms set the same limit: give one", { flag: "--timeout" });
  }
  if (options.timeoutMs !== undefined) return positiveInteger("--timeout-ms", options.timeoutMs);
  if (options.timeout === undefined) return undefined;
  const seconds = parseDuration(options.timeout);
  const ms = seconds === undefined ? 0 : Math.round(seconds * 1000);
  if (ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw new HermitError("USAGE", `--timeout: '${options.timeout}' must be ${DURATION_HINT}`, { flag: "--timeout", value: options.timeout });
  }
  return ms;
}

function positiveInteger(flag: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > MAX_TIMEOUT_MS) {
    throw new HermitError("USAGE", `${flag}: '${value}' must be an integer from 1 to 2147483647`, { flag, value });
  }
  return number;
}
