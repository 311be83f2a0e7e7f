/**
 * `hermit verify`: launch the real host program of a deployed workspace against the stub
 * model, in an isolated home where the report's activation steps are performed, and decide
 * for every exported item whether the host discovered it. The IO shell: everything it
 * starts (stub, host process groups, MCP servers) is stopped, and the temporary home
 * removed, before it returns or throws; the workspace is left as it was found.
 */
import { realpath, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { GENERATED, type DeploymentReport } from "../deploy/record.js";
import type { DeploymentSelector } from "../deploy/deployments.js";
import { locateDeployment } from "../deploy/workspace.js";
import { HermitError } from "../errors.js";
import { AUDIT_LOG_ENV, readAuditLog } from "../runtime/audit-log.js";
import { getHost } from "../hosts/index.js";
import type { CapabilityDeclaration, HostId } from "../hosts/types.js";
import { expectedItems } from "./expected.js";
import { agentFiles, readDeployment, remapWorkspace } from "./deployment.js";
import { createIsolatedHome, type IsolatedHome } from "./home.js";
import { exerciseAgent, exercisePrompt, judgeExercise, type ToolExercise, type ToolUnderTest } from "./exercise.js";
import { judge, unofferedServers, type ExpectedItem, type ListingOutput, type Observations, type VerifiedItem } from "./judge.js";
import { runProcess, type RunResult } from "./process.js";
import { HOST_PROGRAMS, findHostProgram, hostOfVersionOutput, hostVersion, installHint } from "./programs.js";
import { recipes } from "./recipes/index.js";
import type { HostRecipe, Launch, ModelEndpoint } from "./recipes/types.js";
import { startStubModel, type RecordedRequest, type StubModel } from "./stub-model.js";
import { restoreWorkspace, snapshotWorkspace, type WorkspaceChanges, type WorkspaceBackup } from "./workspace-guard.js";

export interface VerifyOptions extends DeploymentSelector {
  /**
   * The deployed workspace (holds `.hermit-deploy.json`, or the records of deploys with
   * `--existing`; when it holds several, `host` and `name` pick one).
   */
  workspace: string;
  /** The host executable; default: found on `PATH` (of `env`). */
  hostBin?: string;
  /** Keep the temporary home (with the recorded requests and host output) and report its path. */
  keep?: boolean;
  /** Time limit of the host run, in milliseconds. Default 90 000. */
  timeoutMs?: number;
  /** Aborting stops the host, the stub and every child, cleans up, and rejects. */
  signal?: AbortSignal;
  /** Where `PATH` (and the locale) come from. Default `process.env`. Nothing else is passed on. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The prompt of the one-turn run. */
  prompt?: string;
  /**
   * Beyond discovery, have the stub model call each adapter tool once, and report whether the
   * call reached hermit's server and its result came back to the model (`exercise`).
   */
  exerciseTools?: boolean;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

/** The result of `hermit verify` (also the `--json` document). */
export interface VerifyReport {
  host: HostId;
  /** The version the host program reported (`--version`), or `unknown`. */
  hostVersion: string;
  /** True when every item the host declaration guarantees was discovered (and, exercising, every such tool passed). */
  passed: boolean;
  items: VerifiedItem[];
  /** The version hermit was verified with (docs/hosts.md), and the npm package. */
  expectedHostVersion: string;
  npmPackage: string;
  /** The executable that ran. */
  program: string;
  workspace: string;
  /**
   * How the host run ended, and how many model requests it sent in all. `rerunWaitingForServers`
   * is there when the host had to be run again, told to wait for its MCP servers.
   */
  run: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    durationMs: number;
    requests: number;
    rerunWaitingForServers?: { exitCode: number | null; signal: string | null; timedOut: boolean; durationMs: number };
  };
  /** The host's own listing commands and how they ended. */
  listings: Array<{ command: string; exitCode: number | null; timedOut: boolean }>;
  /** Activation steps of the report that were performed in the isolated home, and those that were not. */
  activation: { performed: string[]; notPerformed: Array<{ id: string; summary: string }> };
  /** Files the host wrote into the workspace, undone by verify. */
  workspaceChanges: WorkspaceChanges;
  warnings: string[];
  /** The kept temporary home (`--keep` only). */
  home?: string;
  /** With `--exercise-tools`: each adapter tool, called through the host. Counted tools must pass for `passed`. */
  exercise?: ToolExercise[];
}

const HOST_RUN_TIMEOUT_MS = 90_000;
const LISTING_TIMEOUT_MS = 60_000;
const DEFAULT_PROMPT = "Reply with the single word OK.";
const RUN_MARKER = "HERMIT_VERIFY_RUN";

export { readDeployment };

function summarize(run: RunResult): string {
  if (run.spawnError) return `could not start: ${run.spawnError}`;
  if (run.timedOut) return `timed out after ${run.durationMs} ms`;
  if (run.aborted) return "interrupted";
  if (run.exitCode === 0) return "exit code 0";
  const tail = (run.stderr.trim() || run.stdout.trim()).split(/\r?\n/).slice(-1)[0] ?? "";
  const ending = run.signal ? `killed by ${run.signal}` : `exit code ${run.exitCode}`;
  return tail ? `${ending}: ${tail.slice(0, 300)}` : ending;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new HermitError("INTERRUPTED", "verify was interrupted; the host was stopped and its temporary home removed");
  }
}

/**
 * Verify a deployed workspace against its real host program. Throws HermitError for bad
 * input (no report: WORKSPACE_INVALID; host program missing: HOST_NOT_INSTALLED) and when
 * interrupted (INTERRUPTED), never for what the host did: that is the report's `items`.
 */
export async function verifyWorkspace(options: VerifyOptions): Promise<VerifyReport> {
  const env = options.env ?? process.env;
  const workspace = await realpath(resolve(options.workspace)).catch(() => {
    throw new HermitError("INPUT_NOT_FOUND", `${options.workspace}: workspace not found`, { path: options.workspace });
  });
  // A deploy with --existing keeps its report under its own name; several that `host` and `name`
  // do not narrow to one: USAGE, listing them; none that they match: WORKSPACE_INVALID, listing them.
  const selector = { host: options.host, name: options.name };
  const selecting = selector.host !== undefined || selector.name !== undefined;
  const names = (await locateDeployment(workspace, selector).catch((error: HermitError) => {
    if (error.code === "USAGE" || selecting) throw error;
  }))?.names;
  const report = await readDeployment(workspace, names);
  const host = getHost(report.host);
  const bin = findHostProgram(host.id, { hostBin: options.hostBin, path: env.PATH ?? "" });
  const items = await expectedItems(workspace, report);
  const warnings: string[] = [];
  if (report.workspace !== workspace) {
    warnings.push(`the report was written for ${report.workspace}; the activation steps were applied to ${workspace}`);
  }
  const pending = (names ?? GENERATED).pending;
  if (await stat(join(workspace, pending)).then(() => true, () => false)) {
    warnings.push(`a deploy was interrupted here (${pending}): the files may be half updated; run the deploy again, then verify`);
  }

  const toolsCounted = (host.capabilities as CapabilityDeclaration).exports.tools.level === "guaranteed";
  const exercised = options.exerciseTools
    ? items.flatMap((item) => (item.kind === "tool" && item.server !== undefined ? [{ server: item.server, name: item.name, counted: toolsCounted }] : []))
    : undefined;
  const home = await createIsolatedHome({ prefix: "hermit-verify-", marker: RUN_MARKER, from: env });
  let stub: StubModel | undefined;
  let snapshot: WorkspaceBackup | undefined;
  let session: HostRun;
  let changes: WorkspaceChanges = { removed: [], restored: [], unrestorable: [] };
  try {
    snapshot = await snapshotWorkspace(workspace);
    stub = await startStubModel(exercised ? { agent: exerciseAgent(exercised, recipes[host.id]) } : {});
    session = await runHost({ options, report, workspace, home, bin, stub, warnings, items, exercised });
  } finally {
    await stub?.close();
    await home.dispose(options.keep);
    if (snapshot) changes = await restoreWorkspace(snapshot);
  }
  if (changes.removed.length + changes.restored.length > 0) {
    warnings.push(`undid the host's changes to the workspace: ${[...changes.removed, ...changes.restored].join(", ")}`);
  }
  if (changes.unrestorable.length > 0) warnings.push(`the host changed files verify could not restore: ${changes.unrestorable.join(", ")}`);

  const recipe = recipes[host.id];
  const verdict = judge(items, host.capabilities as CapabilityDeclaration, recipe, session.observations);
  const program = HOST_PROGRAMS[host.id];
  return {
    host: host.id,
    hostVersion: session.version ?? "unknown",
    passed: verdict.passed && (session.exercise ?? []).every((tool) => !tool.counted || tool.passed),
    items: verdict.items,
    expectedHostVersion: program.version,
    npmPackage: program.npmPackage,
    program: bin,
    workspace,
    run: session.run,
    listings: session.listings,
    activation: session.activation,
    workspaceChanges: changes,
    warnings,
    ...(options.keep ? { home: home.dir } : {}),
    ...(session.exercise ? { exercise: session.exercise } : {}),
  };
}

interface HostRunInput {
  options: VerifyOptions;
  report: DeploymentReport;
  workspace: string;
  home: IsolatedHome;
  bin: string;
  stub: StubModel;
  warnings: string[];
  items: readonly ExpectedItem[];
  /** The tools to exercise (`--exercise-tools`). */
  exercised?: readonly ToolUnderTest[];
}

interface HostRun {
  version?: string;
  observations: Observations;
  run: VerifyReport["run"];
  listings: VerifyReport["listings"];
  activation: VerifyReport["activation"];
  exercise?: ToolExercise[];
}

/** The host program's version; the wrong host is an error, another version a warning. */
async function checkedHostVersion(input: HostRunInput): Promise<{ version?: string; output: string }> {
  const { options, report, workspace, home, bin, warnings } = input;
  const program = HOST_PROGRAMS[report.host];
  const version = await hostVersion(bin, home.env, workspace, options.signal);
  throwIfAborted(options.signal);
  const actual = hostOfVersionOutput(version.output);
  if (actual !== undefined && actual !== report.host) {
    throw new HermitError(
      "HOST_NOT_INSTALLED",
      `${bin}: this is the ${actual} program (\`--version\`: ${version.output.split("\n")[0]}), but ${workspace} was deployed for ` +
        `${report.host}; pass the ${program.bin} program with --host-bin (${installHint(program)})`,
      { host: report.host, path: bin, found: actual, npmPackage: program.npmPackage, version: program.version },
    );
  }
  if (version.version !== program.version) {
    warnings.push(
      `${program.bin} reports version ${version.version ?? `unknown (${version.output.slice(0, 120)})`}; hermit's ${report.host} ` +
        `declaration was written for ${program.version} (${program.npmPackage})`,
    );
  }

  return version;
}

/** Run the recipe's listing commands (or reuse the run's output for those without one). */
async function runListings(input: HostRunInput, recipe: HostRecipe, env: Readonly<Record<string, string>>, timeoutMs: number, runOutput: string) {
  const { options, workspace, bin } = input;
  const log = options.log ?? (() => undefined);
  const listings: ListingOutput[] = [];
  const listingRuns: VerifyReport["listings"] = [];
  for (const command of recipe.listings) {
    if (!command.args) {
      listings.push({ command, output: runOutput });
      continue;
    }
    log(`verify: ${command.label}`);
    const argv = [bin, ...command.args];
    const result = await runProcess({ argv, cwd: workspace, env, timeoutMs: Math.min(LISTING_TIMEOUT_MS, timeoutMs), signal: options.signal });
    throwIfAborted(options.signal);
    listings.push({ command, output: `${result.stdout}\n${result.stderr}` });
    listingRuns.push({ command: command.label, exitCode: result.exitCode, timedOut: result.timedOut });
  }
  return { listings, listingRuns };
}

/** Prepare the home, run the host once against the stub, then its listing commands. */
async function runHost(input: HostRunInput): Promise<HostRun> {
  const { options, report, workspace, home, bin, stub, warnings } = input;
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? HOST_RUN_TIMEOUT_MS;
  const recipe = recipes[report.host];
  const program = HOST_PROGRAMS[report.host];

  const version = await checkedHostVersion(input);
  const prepared = recipe.prepare({
    workspace,
    home: home.dir,
    endpoint: { baseUrl: `${stub.url}/v1`, protocol: recipe.protocol as ModelEndpoint["protocol"] },
    activation: remapWorkspace(report, workspace),
    agentFiles: await agentFiles(workspace, report),
  });
  // Exercising, the host runs as it would to do work: allowed to call the adapter's tools,
  // waiting for its servers, and passing the audit log on to them.
  const exercised = input.exercised;
  const auditLog = join(home.dir, "hermit-verify-audit.jsonl");
  const servers = [...new Set(input.items.flatMap((item) => (item.kind === "tool" && item.server ? [item.server] : [])))];
  const args = exercised
    ? recipe.headlessArgs({ prompt: exercisePrompt(exercised), purpose: "act", servers, serverEnv: [AUDIT_LOG_ENV] })
    : recipe.discoveryArgs(options.prompt ?? DEFAULT_PROMPT);
  const launch: Launch = { ...prepared, args };
  warnings.push(...(launch.notes ?? []));
  await home.write(launch.homeFiles);
  const env = { ...home.env, ...launch.env, ...(exercised ? { [AUDIT_LOG_ENV]: auditLog } : {}) };
  log(`verify: ${program.bin} ${launch.args.join(" ")} (in ${workspace}, home ${home.dir})`);
  let run = await runProcess({ argv: [bin, ...launch.args], cwd: workspace, env, timeoutMs, signal: options.signal });
  throwIfAborted(options.signal);
  if (run.timedOut) warnings.push(`${program.bin} did not finish within ${timeoutMs} ms and was stopped`);
  let runOutput = `${run.stdout}\n${run.stderr}`;
  const firstRun = run;

  // A host that did not wait for its MCP servers is run once more, told to wait for them.
  const missing = exercised ? [] : unofferedServers(input.items, recipe, [...stub.requests]);
  const patient = missing.length > 0 ? recipe.waitForServers?.(launch, missing) : undefined;
  if (patient) {
    log(`verify: tools of ${missing.join(", ")} missing; ${program.bin} ${patient.args.join(" ")} (waiting for MCP servers)`);
    run = await runProcess({ argv: [bin, ...patient.args], cwd: workspace, env: { ...home.env, ...patient.env }, timeoutMs, signal: options.signal });
    throwIfAborted(options.signal);
    warnings.push(
      `${program.bin}'s first request lacked the tools of ${missing.join(", ")}; it was run again, told to wait for its MCP servers ` +
        `(${summarize(run)})`,
    );
    runOutput += `\n${run.stdout}\n${run.stderr}`;
  }
  const requests: RecordedRequest[] = [...stub.requests];
  const served = exercised ? (await readAuditLog(auditLog)).map((record) => ({ tool: record.tool, ok: !record.error, result: record.result, ...(record.error ? { error: record.error.message } : {}) })) : [];

  const { listings, listingRuns } = await runListings(input, recipe, env, timeoutMs, runOutput);

  const notPerformed = report.activation
    .filter((step) => !launch.performed.includes(step.id))
    .map((step) => ({ id: step.id, summary: step.summary }));
  for (const step of notPerformed) warnings.push(`activation step ${step.id} was not performed: ${step.summary}`);

  if (options.keep) {
    await writeFile(join(home.dir, "hermit-verify-requests.json"), `${JSON.stringify(requests, null, 2)}\n`);
    await writeFile(join(home.dir, "hermit-verify-run.json"), `${JSON.stringify(patient ? [firstRun, run] : [run], null, 2)}\n`);
  }
  return {
    ...(version.version !== undefined ? { version: version.version } : {}),
    observations: { requests, listings, runOutput, runSummary: summarize(firstRun) },
    run: {
      exitCode: firstRun.exitCode,
      signal: firstRun.signal,
      timedOut: firstRun.timedOut,
      durationMs: firstRun.durationMs,
      requests: requests.filter((request) => request.protocol !== "unknown").length,
      ...(patient ? { rerunWaitingForServers: { exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, durationMs: run.durationMs } } : {}),
    },
    listings: listingRuns,
    activation: { performed: launch.performed, notPerformed },
    ...(exercised ? { exercise: judgeExercise(exercised, recipe, requests, served) } : {}),
  };
}
