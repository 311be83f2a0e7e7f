/**
 * How a tool process starts: node running `dist/runtime/tool-host.js`, or Python running
 * `python/hermit_host.py`; under a memory limit (the C library's data limit, which covers
 * the heap, Buffers and Python objects alike); and, with a sandbox, inside bubblewrap with
 * only what that runtime needs visible (`src/sandbox/tool-layout.ts`).
 */
import { access, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, relative } from "node:path";
import { describeInterpreter, pythonHostScript, type PythonInterpreter } from "../adapter/python.js";
import { HermitError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { bwrapArguments, locateBwrap } from "../sandbox/bwrap.js";
import { toolSandboxLayout, type SandboxGrants } from "../sandbox/tool-layout.js";

/** How to start a tool process (`tool-process-start.ts`). */
export interface ToolLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** e.g. `node v20.20.2` or `python 3.11.7 (/usr/bin/python3.11, from PATH)`: for logs and the audit log. */
  runtime: string;
}

/** The Node tool host; child processes always run the built file. */
export const nodeToolHost = join(packageRoot, "dist", "runtime", "tool-host.js");

/** Default memory limit of a tool process (bytes of data: heap, Buffers, Python objects). */
export const TOOL_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

export interface LaunchOptions {
  /** Absolute adapter directory. */
  adapter: string;
  /** Python tools: the interpreter; TypeScript/JavaScript tools: undefined. */
  python?: PythonInterpreter;
  memoryBytes: number;
  /** Run inside bubblewrap with these grants. */
  sandbox?: { grants: SandboxGrants; evidence?: string };
}

/** The launch, and what to remove once the process is done with it. */
export interface PreparedLaunch {
  launch: ToolLaunch;
  cleanup(): Promise<void>;
}

export async function prepareLaunch(options: LaunchOptions): Promise<PreparedLaunch> {
  const { python } = options;
  const program = python
    ? { command: python.executable, args: ["-B", pythonHostScript, "serve"], runtime: describeInterpreter(python) }
    : { command: process.execPath, args: [nodeToolHost], runtime: `node ${process.version}` };
  if (!python) {
    await access(nodeToolHost).catch(() => {
      throw new HermitError("USAGE", `the tool runtime runs ${nodeToolHost}, which does not exist; build hermit first (npm run build)`);
    });
  }
  const limited = withMemoryLimit([program.command, ...program.args], options.memoryBytes);
  if (!options.sandbox) {
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1" };
    return { launch: { command: limited[0]!, args: limited.slice(1), env, cwd: process.cwd(), runtime: program.runtime }, cleanup: async () => {} };
  }
  const bwrap = await locateBwrap();
  const scratch = await mkdtemp(join(tmpdir(), "hermit-sandbox-"));
  try {
    const layout = await toolSandboxLayout({
      adapter: options.adapter,
      evidence: options.sandbox.evidence,
      runtime: python ? await pythonFolders(python, options.adapter) : [dirname(await realpath(process.execPath))],
      hermit: python ? [dirname(pythonHostScript)] : await nodeHermitFiles(),
      files: await identityFiles(scratch),
      grants: options.sandbox.grants,
    });
    layout.env.PYTHONDONTWRITEBYTECODE = "1";
    const launch: ToolLaunch = {
      command: bwrap,
      args: [...bwrapArguments(layout), ...limited],
      env: {},
      cwd: "/",
      runtime: `${program.runtime}, in bubblewrap`,
    };
    return { launch, cleanup: () => rm(scratch, { recursive: true, force: true }) };
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** `sh` sets the data limit, then becomes the program (dash and bash take KiB). */
function withMemoryLimit(argv: string[], bytes: number): string[] {
  const kib = Math.max(1, Math.floor(bytes / 1024));
  return ["/bin/sh", "-c", 'ulimit -d "$1" && shift && exec "$@"', "hermit-tool", String(kib), ...argv];
}

/** What the Node host loads: hermit's build, its package.json (how it finds itself) and its dependencies. */
async function nodeHermitFiles(): Promise<string[]> {
  const files = [join(packageRoot, "dist"), join(packageRoot, "package.json")];
  const jitiEntry = createRequire(join(packageRoot, "package.json")).resolve("jiti");
  const modules = jitiEntry.slice(0, jitiEntry.lastIndexOf("/node_modules/") + "/node_modules".length);
  files.push(modules);
  return files;
}

/** The interpreter's prefixes (a venv inside the adapter is visible with the adapter already). */
async function pythonFolders(python: PythonInterpreter, adapter: string): Promise<string[]> {
  const folders = new Set<string>();
  for (const path of [dirname(python.realExecutable), python.prefix, python.basePrefix]) {
    const real = await realpath(path).catch(() => undefined);
    if (real && relative(adapter, real).startsWith("..")) folders.add(real);
  }
  return [...folders];
}

/** A made-up /etc/passwd and /etc/group naming only the user the tools run as. */
async function identityFiles(scratch: string): Promise<Array<{ source: string; path: string }>> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const name = uid === 0 ? "root" : (safeUserName() ?? "hermit");
  await writeFile(join(scratch, "passwd"), `${name}:x:${uid}:${gid}:${name}:/:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n`);
  await writeFile(join(scratch, "group"), `${name}:x:${gid}:\nnogroup:x:65534:\n`);
  return [
    { source: join(scratch, "passwd"), path: "/etc/passwd" },
    { source: join(scratch, "group"), path: "/etc/group" },
  ];
}

function safeUserName(): string | undefined {
  try {
    const name = userInfo().username;
    return /^[a-z_][a-z0-9_-]*$/i.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}
