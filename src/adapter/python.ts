/**
 * Python entrypoints (`tools.py:count_words`, `check.py:check`, `agents.py:list_agents`):
 * which interpreter runs them, and where hermit's Python host module is. The host module
 * (`python/hermit_host.py`, standard library only) is what every Python child runs.
 *
 * The interpreter is, in order: `HERMIT_PYTHON`; the adapter's own `.venv/bin/python` (so
 * the adapter's dependencies import); `python3` on PATH. Asked once per path for its real
 * executable, version and prefixes: a shim (pyenv) is resolved to the binary it starts,
 * and the sandbox binds the prefixes the interpreter needs.
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { HermitError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { findOnPath } from "../sandbox/bwrap.js";
import type { Entrypoint } from "./types.js";

/** hermit's Python host module, run by every Python child. */
export const pythonHostScript: string = join(packageRoot, "python", "hermit_host.py");

/** Oldest Python the host module supports. */
const MINIMUM_VERSION: [number, number] = [3, 8];

/** A usable interpreter, as it described itself. */
export interface PythonInterpreter {
  /** What to run: `HERMIT_PYTHON`, the venv's python (kept as a link, so the venv applies), or the real `python3`. */
  executable: string;
  /** The binary behind it (`sys.executable` after any shim, links resolved). */
  realExecutable: string;
  /** e.g. `3.11.7`. */
  version: string;
  /** `sys.prefix` and `sys.base_prefix` (equal outside a venv). */
  prefix: string;
  basePrefix: string;
  /** Why this one: `HERMIT_PYTHON`, `.venv` or `PATH`. */
  source: "HERMIT_PYTHON" | ".venv" | "PATH";
}

/** True for a `.py` entrypoint file. */
export function isPythonFile(file: string): boolean {
  return file.endsWith(".py");
}

const described = new Map<string, Promise<PythonInterpreter>>();

/**
 * The interpreter for the adapter at `adapterRoot`; `needFor` names what needs it (e.g.
 * "tool 'count_words' (entrypoint tools.py:count_words)") in the error when there is none.
 * Throws PYTHON_UNAVAILABLE.
 */
export async function resolvePython(adapterRoot: string, needFor: string): Promise<PythonInterpreter> {
  const configured = process.env.HERMIT_PYTHON;
  if (configured) return describePython(configured, "HERMIT_PYTHON", needFor);
  const venv = join(adapterRoot, ".venv", "bin", "python");
  if (await executable(venv)) return describePython(venv, ".venv", needFor);
  const onPath = await findOnPath("python3");
  if (!onPath) {
    throw new HermitError(
      "PYTHON_UNAVAILABLE",
      `${needFor} needs Python ${MINIMUM_VERSION.join(".")} or later, and no python3 is on PATH; install it, or set HERMIT_PYTHON to an interpreter`,
      { needFor },
    );
  }
  return describePython(onPath, "PATH", needFor);
}

/** One line for logs and reports: `python 3.11.7 (/usr/bin/python3.11, from PATH)`. */
export function describeInterpreter(python: PythonInterpreter): string {
  return `python ${python.version} (${python.executable}, from ${python.source})`;
}

function describePython(path: string, source: PythonInterpreter["source"], needFor: string): Promise<PythonInterpreter> {
  const key = `${source}\0${path}`;
  let found = described.get(key);
  if (!found) {
    found = askInterpreter(path, source, needFor);
    described.set(key, found);
    found.catch(() => described.delete(key)); // a fixed installation is found on the next try
  }
  return found;
}

const PROBE = "import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), list(sys.version_info[:3]), sys.prefix, sys.base_prefix]))";

async function askInterpreter(path: string, source: PythonInterpreter["source"], needFor: string): Promise<PythonInterpreter> {
  const unusable = (why: string) =>
    new HermitError("PYTHON_UNAVAILABLE", `${needFor} needs Python, and ${path} (from ${source}) ${why}`, { path, source });
  const output = await new Promise<string>((resolve, reject) => {
    execFile(path, ["-I", "-c", PROBE], { timeout: 20_000, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(unusable(`cannot run: ${(stderr.trim() || error.message).split("\n").slice(-1)[0]}`));
      else resolve(stdout);
    });
  });
  let answer: [string, number[], string, string];
  try {
    answer = JSON.parse(output.trim().split("\n").slice(-1)[0]!) as typeof answer;
  } catch {
    throw unusable("did not describe itself (is it Python?)");
  }
  const [real, versionInfo, prefix, basePrefix] = answer;
  const [major = 0, minor = 0] = versionInfo;
  if (major !== MINIMUM_VERSION[0] || minor < MINIMUM_VERSION[1]) {
    throw unusable(`is Python ${versionInfo.join(".")}; hermit needs ${MINIMUM_VERSION.join(".")} or later`);
  }
  // A venv's python must run as the venv's link (that is how it finds its site-packages);
  // anything else runs as the real binary, past shims that need a shell and a home folder.
  const executableToRun = source === ".venv" || source === "HERMIT_PYTHON" ? path : real;
  return { executable: executableToRun, realExecutable: real, version: versionInfo.join("."), prefix, basePrefix, source };
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}


/** How long an agent exporter may run in process-free reads (as the spec check's child). */
const EXPORTER_TIMEOUT_MS = 120_000;
/** Longest answer read from it (as the spec check's child): more is a failure, and the child is killed. */
const EXPORTER_MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * Call a Python agent exporter (`agents.py:list_agents`) of the adapter at `root` in a
 * Python child (the host module's `check` mode, without bubblewrap: for readers that run a
 * TypeScript exporter in process, such as `Session`) and return what it returned, as JSON.
 * Throws an Error saying what went wrong (PYTHON_UNAVAILABLE when there is no Python).
 */
export async function runPythonExporter(root: string, entry: Entrypoint): Promise<unknown> {
  const spec = `${entry.file}:${entry.function}`;
  const python = await resolvePython(root, `agent exporter ${spec}`);
  const nonce = randomBytes(16).toString("hex");
  const request = { nonce, adapter: root, root, tools: [], exporter: entry };
  const child = spawn(python.executable, ["-B", pythonHostScript, "check"], { stdio: ["pipe", "pipe", "pipe"], timeout: EXPORTER_TIMEOUT_MS });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (stdout.length > EXPORTER_MAX_OUTPUT) {
      stdout = "";
      child.kill("SIGKILL");
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4096)));
  child.stdin.on("error", () => undefined);
  child.stdin.end(JSON.stringify(request));
  const how = await new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(`could not start ${python.executable}: ${error.message}`));
    child.once("close", (code, signal) => resolve(signal ?? `exit ${code}`));
  });
  const done = stdout.split("\n").find((line) => line.startsWith(`${nonce} done `));
  if (!done) {
    const said = stderr.trim().split("\n").slice(-1)[0];
    throw new Error(`agent exporter ${spec} failed: the Python child ended (${how}) without answering${said ? `: ${said}` : ""}`);
  }
  const agents = (JSON.parse(done.slice(nonce.length + 6)) as { agents?: { values: unknown } | { error: string } }).agents;
  if (!agents || "error" in agents) throw new Error(agents?.error ?? `agent exporter ${spec} gave no answer`);
  return agents.values;
}
