/**
 * The read side of deploy for the adapter: the adapter itself and the bytes and executable
 * bits of every file the projection copies, under the adapter reader's limits (one file at
 * most `LIMITS.fileBytes`, all together at most `LIMITS.totalBytes`; a larger one is
 * INPUT_TOO_LARGE naming it, exit 2, before anything is written). Files are read once: the
 * reader's bytes are the ones deployed.
 */
import { readFile, stat } from "node:fs/promises";
import { LIMITS, assertDirectory, resolveInside } from "../adapter/files.js";
import { inspectAdapter, invalidAdapter } from "../adapter/read.js";
import type { Adapter } from "../adapter/types.js";
import { exportAgentsIsolated } from "../check/exporter.js";
import { HermitError } from "../errors.js";
import type { ProjectOptions } from "../hosts/types.js";
import { FILE_CONCURRENCY, forEachLimit } from "./concurrency.js";
import { resolveRealPath } from "./workspace.js";

/** An adapter with the bytes and modes of the files a projection copies. */
export interface LoadedAdapter extends Pick<ProjectOptions, "sources" | "executables"> {
  adapter: Adapter;
}

/** The source paths of every skill file (the projection copies whole skill folders). */
export function skillSourcePaths(adapter: Adapter): string[] {
  return adapter.skills.flatMap((skill) => skill.files.map((file) => `${skill.dir}/${file}`));
}

function tooLarge(path: string, size: number, limit: number, what: string): HermitError {
  return new HermitError("INPUT_TOO_LARGE", `${path}: ${size} bytes, over the limit of ${limit}${what}`, { path, size, limit });
}

/** Which of `paths` (relative to `root`) are executable. */
async function executableFiles(root: string, paths: readonly string[]): Promise<Set<string>> {
  const executables = new Set<string>();
  await forEachLimit(paths, FILE_CONCURRENCY, async (path) => {
    if (((await stat(resolveInside(root, path))).mode & 0o111) !== 0) executables.add(path);
  });
  return executables;
}

/**
 * Read the adapter at `root` once: the model and the bytes of what a projection copies. An
 * agent exporter (adapter code) runs in the isolated check child, never in this process.
 */
async function readFromDisk(root: string): Promise<LoadedAdapter> {
  await assertDirectory(root, "adapter");
  const real = await resolveRealPath(root);
  const inspection = await inspectAdapter(real, { runExporters: false });
  const exported = await exportAgentsIsolated(inspection.adapter);
  const problems = [...inspection.problems, ...exported.problems];
  if (problems.length > 0) throw invalidAdapter(real, problems);
  const adapter = exported.isolation === "not-run" ? inspection.adapter : { ...inspection.adapter, agents: exported.agents };
  const { bytes } = inspection;
  const sources = new Map<string, Uint8Array>();
  const paths = skillSourcePaths(adapter);
  for (const path of paths) {
    const data = bytes.get(path);
    if (data === undefined) {
      const size = (await stat(resolveInside(real, path)).catch(() => undefined))?.size ?? 0;
      throw tooLarge(`${real}/${path}`, size, LIMITS.fileBytes, " bytes for one file of an adapter");
    }
    sources.set(path, data);
  }
  // The modes the files had when their bytes were read (no second look at each file).
  return { adapter, sources, executables: new Set(paths.filter((path) => inspection.executables.has(path))) };
}

/** Read the copied files of an adapter already read, with the same limits. */
async function readForAdapter(given: Adapter): Promise<LoadedAdapter> {
  const adapter = { ...given, root: await resolveRealPath(given.root) };
  const paths = skillSourcePaths(adapter);
  let total = 0;
  const sizes = new Map<string, number>();
  for (const path of paths) {
    const size = (await stat(resolveInside(adapter.root, path))).size;
    if (size > LIMITS.fileBytes) throw tooLarge(`${adapter.root}/${path}`, size, LIMITS.fileBytes, " bytes for one file of an adapter");
    total += size;
    sizes.set(path, size);
  }
  if (total > LIMITS.totalBytes) throw tooLarge(adapter.root, total, LIMITS.totalBytes, " bytes for the files a deploy copies");
  const sources = new Map<string, Uint8Array>();
  await forEachLimit(paths, FILE_CONCURRENCY, async (path) => {
    sources.set(path, await readFile(resolveInside(adapter.root, path)));
  });
  return { adapter, sources, executables: await executableFiles(adapter.root, paths) };
}

/** The adapter (a path, or an adapter already read) with the bytes its projection copies. */
export function loadAdapter(source: string | Adapter): Promise<LoadedAdapter> {
  return typeof source === "string" ? readFromDisk(source) : readForAdapter(source);
}
