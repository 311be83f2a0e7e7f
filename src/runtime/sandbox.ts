/**
 * Sandboxed tools: a `hermit serve` child inside bubblewrap, reached over MCP on stdio.
 * Inside: no network (fresh network namespace), no other processes, the system folders,
 * node, hermit and the adapter read-only, nothing else of the host visible, and nothing
 * writable but the evidence directory. Without a working `bwrap` it refuses with
 * SANDBOX_UNAVAILABLE; it never falls back to running unsandboxed.
 */
import { access, lstat, mkdtemp, readlink, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { describeValidationErrors, validatorFor } from "../adapter/json-schema.js";
import { ErrorCodes, HermitError, errorMessage, type ErrorCode } from "../errors.js";
import { hermitCli, hermitVersion, packageRoot } from "../package-root.js";
import { bwrapArguments, locateBwrap, type SandboxLayout } from "../sandbox/bwrap.js";
import { META_ERROR_CODE, META_VALUE } from "./mcp-server.js";
import { renderValue } from "./published.js";
import { argumentsShapeProblem, unknownToolMessage } from "./toolbox.js";
import type { ToolBackend, ToolErrorCode, ToolOutcome, ToolResources } from "./types.js";

/** System folders made visible read-only (those that exist; symlinks are recreated as symlinks). */
const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"];

export interface SandboxedToolsOptions {
  /** Absolute adapter directory. */
  adapter: string;
  resources: ToolResources;
  timeoutMs: number;
}

/** Start `hermit serve` for `adapter` inside bubblewrap and connect to it. */
export async function openSandboxedTools(options: SandboxedToolsOptions): Promise<ToolBackend> {
  const bwrap = await locateBwrap();
  await access(hermitCli).catch(() => {
    throw new HermitError("SANDBOX_UNAVAILABLE", `the sandbox runs ${hermitCli}, which does not exist; build hermit first (npm run build)`);
  });
  const adapter = await realpath(options.adapter);
  const scratch = await mkdtemp(join(tmpdir(), "hermit-sandbox-"));
  try {
    const resourcesFile = join(scratch, "resources.json");
    await writeFile(resourcesFile, JSON.stringify(options.resources));
    const evidence = typeof options.resources.evidence === "string" ? [await realpath(options.resources.evidence)] : [];
    const layout = await hostLayout([adapter, packageRoot, dirname(await realpath(process.execPath)), scratch], evidence);
    layout.cwd = adapter;
    const command = [
      process.execPath,
      hermitCli,
      "serve",
      "--adapter",
      adapter,
      "--resources",
      resourcesFile,
      "--timeout-ms",
      String(options.timeoutMs),
      "--quiet",
    ];
    const transport = new StdioClientTransport({ command: bwrap, args: [...bwrapArguments(layout), ...command], stderr: "pipe" });
    const { client, tools } = await connect(transport);
    return new SandboxedTools(client, new Set(tools), scratch, options.timeoutMs);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** The read-only and writable folders, plus the system folders of this machine. */
async function hostLayout(readOnly: string[], writable: string[]): Promise<SandboxLayout> {
  const layout: SandboxLayout = {
    readOnly: [],
    writable,
    symlinks: [],
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/", LANG: "C.UTF-8" },
    cwd: "/",
  };
  for (const path of SYSTEM_PATHS) {
    const info = await lstat(path).catch(() => undefined);
    if (!info) continue;
    if (info.isSymbolicLink()) layout.symlinks.push({ path, target: await readlink(path) });
    else layout.readOnly.push(path);
  }
  for (const path of readOnly) {
    const real = await realpath(path);
    const covered = layout.readOnly.some((parent) => real === parent || real.startsWith(`${parent}/`));
    if (!covered) layout.readOnly.push(real);
  }
  return layout;
}

/** Connect, or turn the child's start-up failure (printed on its stderr) into the same HermitError. */
async function connect(transport: StdioClientTransport): Promise<{ client: Client; tools: string[] }> {
  const stderr: Buffer[] = [];
  const collect = (chunk: Buffer) => stderr.push(chunk);
  transport.stderr?.on("data", collect);
  const client = new Client({ name: "hermit-session", version: hermitVersion }, { jsonSchemaValidator: ajv2020 });
  let tools: string[];
  try {
    // A child that exits during start-up closes the transport, which rejects the handshake.
    await client.connect(transport);
    tools = (await client.listTools()).tools.map((tool) => tool.name);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw childFailure(Buffer.concat(stderr).toString("utf8"), error);
  }
  transport.stderr?.off("data", collect);
  // From here on, what the tools print on stderr is passed through, as the in-process thread does.
  transport.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return { client, tools };
}

function childFailure(stderr: string, error: unknown): HermitError {
  const reported = /hermit: error ([A-Z_]+): ([\s\S]*)$/.exec(stderr.trim());
  if (reported && reported[1]! in ErrorCodes) return new HermitError(reported[1] as ErrorCode, reported[2]!.trim());
  const detail = stderr.trim() || errorMessage(error);
  return new HermitError("SANDBOX_UNAVAILABLE", `the sandboxed server did not start: ${detail}`);
}

/** The SDK client checks structured results against the listed output schema; do it with JSON Schema 2020-12. */
const ajv2020: jsonSchemaValidator = {
  getValidator(schema) {
    const validate = validatorFor(schema as object);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as never, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: describeValidationErrors(validate.errors, "result") };
  },
};

class SandboxedTools implements ToolBackend {
  constructor(
    private readonly client: Client,
    /** The tools the server listed. */
    private readonly tools: ReadonlySet<string>,
    private readonly scratch: string,
    private readonly timeoutMs: number,
  ) {}

  async call(name: string, args: unknown): Promise<ToolOutcome> {
    // Refused here as the in-process toolbox refuses them (MCP would answer -32602 instead).
    const input = args ?? {};
    const shape = argumentsShapeProblem(input);
    if (shape) {
      return this.tools.has(name)
        ? { ok: false, code: "TOOL_ARGUMENTS_INVALID", message: `invalid arguments for tool '${name}': ${shape}` }
        : { ok: false, code: "TOOL_UNKNOWN", message: unknownToolMessage(name, [...this.tools]) };
    }
    try {
      const result = await this.client.callTool(
        { name, arguments: input as Record<string, unknown> },
        undefined,
        // The server enforces the tool's limit; this only guards against a lost server.
        { timeout: this.timeoutMs + 10_000 },
      );
      const text = (result.content as Array<{ type: string; text?: string }>)
        .filter((part) => part.type === "text")
        .map((part) => part.text ?? "")
        .join("\n");
      const meta = result._meta ?? {};
      if (result.isError) {
        const code = (meta[META_ERROR_CODE] as ToolErrorCode | undefined) ?? "TOOL_FAILED";
        return { ok: false, code, message: text };
      }
      const value = result.structuredContent ?? meta[META_VALUE] ?? null;
      return { ok: true, value, text: text || renderValue(value) };
    } catch (error) {
      return { ok: false, code: "TOOL_FAILED", message: `tool '${name}' failed in the sandbox: ${errorMessage(error)}` };
    }
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await rm(this.scratch, { recursive: true, force: true });
  }
}
