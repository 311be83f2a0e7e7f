/**
 * `hermit deploy`, `status`, `undeploy`, `convert`: flags in, library call, formatted result
 * out. The work is in `src/deploy/`.
 */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import type { DeployResult } from "../../deploy/deploy.js";
import type { WorkspaceStatus } from "../../deploy/status.js";
import { HOST_IDS } from "../../hosts/ids.js";
import type { CommandRegistration, RunAction } from "../output.js";

const HOST_LIST = HOST_IDS.join(", ");

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width);
}

function actionLines(result: DeployResult): string[] {
  return result.actions.map((action) => {
    const part = action.intent === "block" ? ["managed block"] : action.intent === "keys" ? ["hermit's entries"] : [];
    const notes = [...part, ...(action.note ? [action.note] : [])];
    return `  ${pad(action.action, 11)}${action.path}${notes.length > 0 ? `  (${notes.join("; ")})` : ""}`;
  });
}

function counts(result: DeployResult): string {
  const tally = new Map<string, number>();
  for (const action of result.actions) tally.set(action.action, (tally.get(action.action) ?? 0) + 1);
  return [...tally].map(([action, count]) => `${count} ${action}`).join(", ");
}

/** The human report of a deploy: what happened per file, capabilities, notes, activation steps. */
export function formatDeploy(result: DeployResult): string {
  const report = result.report;
  const lines: string[] = [];
  const what = report ? `${report.adapter.name} ${report.adapter.version} → ${result.host}` : result.host;
  if (result.dryRun) lines.push(`Plan for ${what} in ${result.workspace} (dry run: nothing written)`);
  else if (!result.changed) lines.push(`${what} in ${result.workspace} is up to date: nothing written`);
  else lines.push(`Deployed ${what} in ${result.workspace}`);
  lines.push(...actionLines(result), `  ${counts(result)}`);
  if (result.forced.length > 0) {
    lines.push("", "Overwritten with --force:");
    lines.push(...result.forced.map((issue) => `  ${issue.path}${issue.line ? `:${issue.line}` : ""}: ${issue.problem}`));
  }
  if (!report) return lines.join("\n");
  lines.push("", `Capabilities (${report.host}, declaration v${report.capabilities.version}, ${report.capabilities.hostVersion}):`);
  for (const [kind, capability] of Object.entries(report.capabilities.exports)) {
    const items = kind === "context" ? [report.exports.context] : report.exports[kind as "skills" | "agents" | "tools"];
    if (items.length === 0) continue;
    lines.push(`  ${pad(kind, 9)}${pad(capability.level, 13)}${pad(`(${capability.evidence})`, 12)}${capability.location}: ${items.join(", ")}`);
    if (capability.level !== "guaranteed" && capability.reason) lines.push(`           why: ${capability.reason}`);
  }
  if (report.notes.length > 0) {
    lines.push("", "Notes:", ...report.notes.map((note) => `  - ${note.item}: ${note.note}`));
  }
  if (report.activation.length > 0) {
    lines.push("", "Activation steps (hermit never edits your global configuration; do these yourself):");
    report.activation.forEach((step, index) => {
      lines.push(`  ${index + 1}. ${step.summary}`);
      lines.push(step.file ? `     ${step.file}:` : "     run:");
      lines.push(...step.snippet.trimEnd().split("\n").map((line) => `       ${line}`));
    });
  }
  return lines.join("\n");
}

/** The human report of `hermit status`. */
export function formatStatus(status: WorkspaceStatus): string {
  const kind = status.existing ? `deployment (--existing, ${status.record})` : "workspace";
  const lines = [`${status.workspace}: ${status.host} ${kind} of ${status.adapter.name} ${status.adapter.version} (hermit ${status.hermitVersion})`];
  for (const file of status.files) {
    const problems = file.problems.map((p) => `${p.line ? `line ${p.line}: ` : ""}${p.problem}`).join("; ");
    const header = file.header === "edited" ? " [ownership header: content no longer matches its hash]" : "";
    lines.push(`  ${pad(file.condition, 10)}${file.path}${problems ? `: ${problems}` : ""}${header}`);
  }
  const source =
    status.adapterChanged === null
      ? `adapter ${status.adapter.path}: not readable`
      : status.adapterChanged
        ? `adapter ${status.adapter.path}: changed since the deploy (redeploy to update)`
        : `adapter ${status.adapter.path}: unchanged since the deploy`;
  lines.push(source);
  if (status.interrupted) {
    const pending = status.record.replace(/\.json$/, ".pending.json");
    lines.push(`a deploy was interrupted (${pending}): run 'hermit deploy' again to finish it, or 'hermit undeploy' to remove its files`);
  }
  if (status.lock) {
    const who = status.lock.holder ? `process ${status.lock.holder.pid} on ${status.lock.holder.host} since ${status.lock.holder.since}` : "an unreadable lock file";
    lines.push(
      status.lock.stale
        ? `stale lock (.hermit-deploy.lock of ${who}, which is gone): a hermit run was killed here; the next deploy or undeploy takes it over`
        : `a hermit deploy is running here now (${who})`,
    );
  }
  if (status.drift.length > 0) {
    lines.push(`drift in ${new Set(status.drift.map((issue) => issue.path)).size} file(s): deploy refuses until repaired (or --force for hand edits)`);
  } else if (status.clean) lines.push("clean: no drift");
  return lines.join("\n");
}

/** Help of `--host` and `--name`, which pick one deployment of a workspace that holds several. */
export const SELECT_HELP = {
  host: "the deployment's host, when the workspace holds several (deploys with --existing)",
  name: "the deployment's adapter name, when the workspace holds several (deploys with --existing)",
};

function registerDeploy(program: Command, run: RunAction): void {
  program
    .command("deploy")
    .summary("Project an adapter into a host's native files in a workspace")
    .description(
      "Project an adapter into a host's native files in a workspace (instructions block, skills, subagents, MCP entry).\n" +
        "The workspace must be empty or generated for the same host, unless --existing: then it is your own project, and\n" +
        "hermit adds only its own files, its managed block and its entries in your config files, never changing or removing\n" +
        "yours. A second deploy of the same source writes nothing.\n" +
        "Exit 0 deployed, 2 bad input or refused export, 3 drift or a conflict with your files refused (nothing written).",
    )
    .requiredOption("--adapter <dir>", "adapter directory")
    .requiredOption("--workspace <dir>", "workspace directory (created if missing)")
    .requiredOption("--host <host>", `host: ${HOST_LIST}`)
    .option("--existing", "deploy into your own project (a non-empty folder, your repository) without touching your files")
    .option("--dry-run", "print the plan and write nothing")
    .option("--force", "overwrite generated files that were edited by hand (never damaged markers, never your files)")
    .option("--json", "print the result as one JSON document")
    .action(async (options: { adapter: string; workspace: string; host: string; existing?: boolean; dryRun?: boolean; force?: boolean; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { deploy } = await import("../../deploy/deploy.js");
        const result = await deploy({
          adapter: resolve(options.adapter),
          workspace: resolve(options.workspace),
          host: options.host,
          dryRun: options.dryRun,
          force: options.force,
          existing: options.existing,
        });
        return { exitCode: ExitCode.ok, json: result, text: formatDeploy(result) };
      }),
    );
}

function registerStatus(program: Command, run: RunAction): void {
  program
    .command("status")
    .summary("Report drift in a deployment (writes nothing)")
    .description(
      "Report drift in a deployment: files, blocks and config entries edited by hand, deleted, unreadable or with damaged\n" +
        "markers, what the record claims but hermit cannot prove is its own, a deploy that was interrupted, a stale lock.\n" +
        "Writes nothing. Exit 0 clean, 1 drift found, a deploy interrupted or a lock left, 2 not a hermit workspace,\n" +
        "3 the deployment record itself is damaged.",
    )
    .requiredOption("--workspace <dir>", "workspace directory")
    .option("--host <host>", SELECT_HELP.host)
    .option("--name <adapter>", SELECT_HELP.name)
    .option("--json", "print the status as one JSON document")
    .action(async (options: { workspace: string; host?: string; name?: string; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { status } = await import("../../deploy/deploy.js");
        const result = await status({ workspace: resolve(options.workspace), host: options.host, name: options.name });
        return { exitCode: result.clean ? ExitCode.ok : ExitCode.problems, json: result, text: formatStatus(result) };
      }),
    );
}

function registerUndeploy(program: Command, run: RunAction): void {
  program
    .command("undeploy")
    .summary("Remove hermit's projections from a workspace, keep the rest")
    .description(
      "Remove hermit's projections from a workspace: its files, its managed block and its config entries (every other\n" +
        "byte is kept), its record. Everything else stays. Exit 0 done, 2 not a hermit workspace, 3 drift refused (nothing removed).",
    )
    .requiredOption("--workspace <dir>", "workspace directory")
    .option("--host <host>", SELECT_HELP.host)
    .option("--name <adapter>", SELECT_HELP.name)
    .option("--dry-run", "print what would be removed and remove nothing")
    .option("--force", "also remove generated files that were edited by hand")
    .option("--json", "print the result as one JSON document")
    .action(async (options: { workspace: string; host?: string; name?: string; dryRun?: boolean; force?: boolean; json?: boolean }) =>
      run(Boolean(options.json), async () => {
        const { resolve } = await import("node:path");
        const { undeploy } = await import("../../deploy/deploy.js");
        const result = await undeploy({ workspace: resolve(options.workspace), host: options.host, name: options.name, dryRun: options.dryRun, force: options.force });
        const head = result.dryRun
          ? `Plan to undeploy ${result.workspace} (dry run: nothing removed)`
          : result.host === ""
            ? `Removed what a killed hermit run left in ${result.workspace} (no deployment was there)`
            : `Undeployed ${result.host} projections from ${result.workspace}`;
        return { exitCode: ExitCode.ok, json: result, text: [head, ...actionLines(result), `  ${counts(result)}`].join("\n") };
      }),
    );
}

function registerConvert(program: Command, run: RunAction): void {
  program
    .command("convert")
    .summary("Print the context and tool specs in the OpenAI or Anthropic format")
    .description(
      "Print an adapter's acting context and tool specs as JSON in an API's tool format (openai: Chat Completions\n" +
        "function tools; anthropic: Messages tools), for custom pipelines. Exit 0, or 2 on bad input.",
    )
    .requiredOption("--adapter <dir>", "adapter directory")
    .requiredOption("--format <format>", "openai or anthropic")
    .option("--json", "accepted for symmetry: the output is always JSON")
    .action(async (options: { adapter: string; format: string; json?: boolean }) =>
      run(true, async () => {
        const { resolve } = await import("node:path");
        const { readAdapterIsolated } = await import("../../check/exporter.js");
        const { convertAdapter, parseConvertFormat } = await import("../../deploy/convert.js");
        const format = parseConvertFormat(options.format);
        // An agent exporter is adapter code: it runs in the isolated check child, never here.
        const result = convertAdapter(await readAdapterIsolated(resolve(options.adapter)), format);
        return { exitCode: ExitCode.ok, json: result };
      }),
    );
}

export const register: CommandRegistration = (program: Command, run) => {
  registerDeploy(program, run);
  registerStatus(program, run);
  registerUndeploy(program, run);
  registerConvert(program, run);
};
