/**
 * Deciding, for every exported item, whether the host discovered it, from what the stub
 * recorded and what the host's listing commands printed. Pure.
 */
import type { CapabilityDeclaration, CapabilityLevel, ExportKind } from "../hosts/types.js";
import {
  contextLines,
  findContext,
  findNamed,
  findTool,
  modelFields,
  stripAnsi,
  wholeName,
  withoutContext,
  type Evidence,
  type RequestEvidence,
} from "./evidence.js";
import type { HostRecipe, ListedKind, ListingCommand } from "./recipes/types.js";
import type { RecordedRequest } from "./stub-model.js";

/** The kind of one exported item, as `hermit verify --json` names it. */
export type ItemKind = "context" | "skill" | "agent" | "tool";

const EXPORT_KIND: Record<ItemKind, ExportKind> = { context: "context", skill: "skills", agent: "agents", tool: "tools" };

/** One exported item, as read from the deployment report and the deployed files. */
export interface ExpectedItem {
  kind: ItemKind;
  /** The item's name; for the context, the instruction file (e.g. `CLAUDE.md`). */
  name: string;
  /** The deployed file the host reads it from (relative to the workspace). */
  file?: string;
  /** Skills and agents: the description the host should show next to the name. */
  description?: string;
  /** Context: the text of the managed block, markers included. */
  block?: string;
  /** Tools: the MCP server that serves it. */
  server?: string;
  /** Why the item may be missing before the host even ran (e.g. its deployed file is gone). */
  problem?: string;
}

/** The verdict on one item. */
export interface VerifiedItem {
  kind: ItemKind;
  name: string;
  discovered: boolean;
  /** The host declaration's level for this kind of export. */
  level: CapabilityLevel;
  /** True when the item counts toward `passed` (only `guaranteed` items do). */
  counted: boolean;
  /** Where the host showed it: request fields first, then listing lines. Empty when not discovered. */
  evidence: Evidence[];
  /** Why it was not discovered, or why it is not counted. */
  reason?: string;
}

/** The output of one listing command (or of the run itself, for listings read from it). */
export interface ListingOutput {
  command: ListingCommand;
  output: string;
}

export interface Observations {
  requests: readonly RecordedRequest[];
  listings: readonly ListingOutput[];
  /** stdout and stderr of the host run, for diagnostics that name an item. */
  runOutput: string;
  /** A one-line summary of how the run ended, used when nothing was sent. */
  runSummary: string;
}

/** Lines of host output that look like a diagnostic about `needle`. */
const DIAGNOSTIC = /warn|error|fail|ignor|invalid|malformed|skip|unknown|could not|cannot|not found|no such/i;
const MAX_DIAGNOSTICS = 2;

function diagnostics(output: string, needles: readonly string[]): string[] {
  const lines = stripAnsi(output)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && DIAGNOSTIC.test(line));
  const out: string[] = [];
  for (const line of lines) {
    if (needles.some((needle) => (needle.includes("/") ? line.includes(needle) : wholeName(needle).test(line)))) {
      if (!out.includes(line)) out.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    }
    if (out.length >= MAX_DIAGNOSTICS) break;
  }
  return out;
}

function listingEvidence(item: ExpectedItem, listings: readonly ListingOutput[], toolName?: string) {
  const found: Evidence[] = [];
  const negative: string[] = [];
  if (item.kind === "context") return { found, negative };
  const kind = item.kind as ListedKind;
  const name = kind === "tool" ? (item.server ?? item.name) : item.name;
  for (const { command, output } of listings) {
    if (!command.kinds.includes(kind)) continue;
    const line = command.find(output, kind, name, toolName);
    if (!line) continue;
    if (line.ok) found.push({ command: command.label, line: line.line });
    else negative.push(`${command.label}: ${line.line}`);
  }
  return { found, negative };
}

function describe(evidence: RequestEvidence): string {
  return `request ${evidence.request} ${evidence.field}`;
}

/** Judge one item against the observations. */
export function judgeItem(
  item: ExpectedItem,
  declaration: CapabilityDeclaration,
  recipe: HostRecipe,
  observations: Observations,
  /** The managed block's lines (`contextLines`): its own text never counts as evidence for other items. */
  context: readonly string[] = [],
): VerifiedItem {
  const capability = declaration.exports[EXPORT_KIND[item.kind]];
  const level = capability.level;
  const counted = level === "guaranteed";
  const modelRequests = observations.requests.filter((request) => request.protocol !== "unknown");
  const allFields = modelFields(modelRequests);
  const fields = item.kind === "context" ? allFields : withoutContext(allFields, context);
  const toolName = item.kind === "tool" ? item.name : undefined;
  const listed = listingEvidence(item, observations.listings, toolName);

  let found: RequestEvidence | undefined;
  const why: string[] = [];
  if (modelRequests.length === 0) {
    why.push(`the host sent no model request (${observations.runSummary})`);
  } else if (item.kind === "context") {
    const lines = contextLines(item.block ?? "");
    if (lines.length === 0) {
      why.push(item.problem ?? "the managed block is empty");
    } else {
      const match = findContext(fields, lines);
      if (match.evidence) found = match.evidence;
      else if (match.found > 0 && match.partial) {
        why.push(
          `only ${match.found} of ${match.total} lines of the managed block reached the model (${describe(match.partial)}); ` +
            `first missing: "${match.missing ?? ""}"`,
        );
      } else why.push("no request contains the managed block's text");
    }
  } else if (item.kind === "tool") {
    const names = recipe.toolNames(item.server ?? "", item.name);
    found = findTool(modelRequests, fields, names);
    if (!found) why.push(`no request offers the tool as ${names.map((name) => `'${name}'`).join(" or ")}`);
  } else {
    const match = item.description !== undefined ? findNamed(fields, item.name, item.description) : {};
    if (match.evidence) found = match.evidence;
    else if (item.description === undefined) {
      why.push(`its description is unknown (${item.problem ?? "no deployed file"}), so it cannot be recognized`);
    } else {
      why.push(`no request lists ${item.kind} '${item.name}' with its description`);
      if (match.nameOnly) why.push(`the name alone appears in ${describe(match.nameOnly)}: "${match.nameOnly.excerpt}"`);
    }
  }

  const discovered = found !== undefined;
  const evidence: Evidence[] = discovered ? [found!, ...listed.found] : [];
  if (!discovered) {
    if (item.problem && !why.some((line) => line.includes(item.problem!))) why.push(item.problem);
    if (listed.found.length > 0) {
      why.push(`listed by ${listed.found.map((entry) => ("command" in entry ? entry.command : "")).join(", ")} but not shown to the model`);
    }
    why.push(...listed.negative);
    const needles = [item.file, item.kind === "tool" ? item.server : item.name].filter((value): value is string => !!value);
    why.push(...diagnostics(observations.runOutput, needles).map((line) => `host said: ${line}`));
  }
  if (level !== "guaranteed") {
    why.unshift(`${level}${capability.reason ? `: ${capability.reason}` : ""}; not counted`);
  }
  return {
    kind: item.kind,
    name: item.name,
    discovered,
    level,
    counted,
    evidence,
    ...(why.length > 0 && (!discovered || !counted) ? { reason: why.join("; ") } : {}),
  };
}

/** Judge every item; `passed` when every counted item was discovered. */
export function judge(
  items: readonly ExpectedItem[],
  declaration: CapabilityDeclaration,
  recipe: HostRecipe,
  observations: Observations,
): { passed: boolean; items: VerifiedItem[] } {
  const context = contextLines(items.find((item) => item.kind === "context")?.block ?? "");
  const verdicts = items.map((item) => judgeItem(item, declaration, recipe, observations, context));
  return { passed: verdicts.every((item) => !item.counted || item.discovered), items: verdicts };
}

/** MCP servers some of whose tools no request offered (the host may not have waited for them). */
export function unofferedServers(items: readonly ExpectedItem[], recipe: HostRecipe, requests: readonly RecordedRequest[]): string[] {
  const models = requests.filter((request) => request.protocol !== "unknown");
  if (models.length === 0) return [];
  const context = contextLines(items.find((item) => item.kind === "context")?.block ?? "");
  const fields = withoutContext(modelFields(models), context);
  const missing = items.filter(
    (item) => item.kind === "tool" && item.server !== undefined && !findTool(models, fields, recipe.toolNames(item.server, item.name)),
  );
  return [...new Set(missing.map((item) => item.server!))];
}
