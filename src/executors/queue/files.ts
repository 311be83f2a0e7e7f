/**
 * Files across the queue. The Trainer packs a version's tree into the job; a worker unpacks it
 * into its own Git store and refuses it unless it hashes to the job's tree id (so a rollout can
 * only ever run on the version its key names). The worker packs the evidence directory into the
 * result; the Trainer, the only writer of the run, unpacks it (paths checked, nothing through a
 * symlink, bounded in bytes).
 */
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { walkTree } from "../../adapter/tree.js";
import { HermitError } from "../../errors.js";
import type { VersionStore } from "../../train/store.js";
import { packedFilesProblem, type PackedFile } from "./protocol.js";

/** Evidence beyond this many bytes is left on the worker and listed as dropped. */
export const EVIDENCE_LIMIT_BYTES = 32 * 1024 * 1024;

/** Every file of the adapter directory `dir` (as the store records one: `walkTree`), as a job carries them: gzipped JSON, base64. */
export async function packAdapter(dir: string): Promise<string> {
  const { files } = await walkTree(dir);
  const packed = await Promise.all(
    files.map(async (file) => {
      const absolute = join(dir, file.path);
      const [bytes, info] = await Promise.all([readFile(absolute), lstat(absolute)]);
      return { path: file.path, mode: info.mode & 0o111 ? ("100755" as const) : ("100644" as const), data: bytes.toString("base64") };
    }),
  );
  return gzipSync(JSON.stringify(packed)).toString("base64");
}

/** The files of a packed adapter; RUN_INVALID when it is not one (or a path is unsafe). */
function unpackFiles(packed: string): PackedFile[] {
  let files: unknown;
  try {
    files = JSON.parse(gunzipSync(Buffer.from(packed, "base64")).toString("utf8"));
  } catch {
    throw new HermitError("RUN_INVALID", "the job's adapter snapshot is not gzipped JSON: refused");
  }
  const problem = packedFilesProblem(files, "the adapter snapshot");
  if (problem) throw new HermitError("RUN_INVALID", `${problem}: refused`);
  return files as PackedFile[];
}

/**
 * Write `files` into `store` and export them to `dir`, when they make exactly `tree`; else
 * RUN_INVALID (a snapshot that is not the version its job names is never run).
 */
export async function unpackAdapter(store: VersionStore, tree: string, packed: string, dir: string): Promise<void> {
  const files = unpackFiles(packed);
  const map = new Map<string, { oid: string; mode: string }>();
  for (const file of files) map.set(file.path, { oid: await store.writeBlob(Buffer.from(file.data, "base64")), mode: file.mode });
  const written = await store.writeFileMap(map);
  if (written !== tree) throw new HermitError("RUN_INVALID", `the job's adapter snapshot is tree ${written}, not the version ${tree} it names: refused`, { tree, written });
  await store.exportTree(tree, dir);
}

/** The regular files under `dir` (symlinks and special files are not followed), relative paths sorted. */
async function regularFiles(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await regularFiles(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** The evidence directory and its audit log, up to `limit` bytes; files past it are listed in `dropped`. */
export async function packEvidence(dir: string, auditLog: string, limit = EVIDENCE_LIMIT_BYTES): Promise<{ files: PackedFile[]; auditLog?: string; dropped: string[] }> {
  const files: PackedFile[] = [];
  const dropped: string[] = [];
  let used = 0;
  const log = await readFile(auditLog).catch(() => undefined);
  if (log) used += log.length;
  for (const path of await regularFiles(dir)) {
    const bytes = await readFile(join(dir, path));
    if (used + bytes.length > limit) {
      dropped.push(path);
      continue;
    }
    used += bytes.length;
    files.push({ path, mode: "100644", data: bytes.toString("base64") });
  }
  return { files, ...(log ? { auditLog: log.toString("base64") } : {}), dropped };
}

/**
 * Make `dir` hold exactly the packed evidence (paths already checked by `resultProblem`), and
 * `auditLog` the packed audit log. A file is created exclusively in a folder hermit just made,
 * so nothing is written through a symlink.
 */
export async function unpackEvidence(evidence: { files: PackedFile[]; auditLog?: string; dropped: string[] }, dir: string, auditLog: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await rm(auditLog, { force: true });
  await mkdir(dir, { recursive: true });
  for (const file of evidence.files) {
    const target = join(dir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, Buffer.from(file.data, "base64"), { flag: "wx" });
  }
  if (evidence.dropped.length > 0) {
    const note = `Left on the worker (over ${EVIDENCE_LIMIT_BYTES} bytes of evidence):\n${evidence.dropped.join("\n")}\n`;
    await writeFile(join(dir, "DROPPED-EVIDENCE.txt"), note, { flag: "wx" }).catch(() => undefined);
  }
  if (evidence.auditLog !== undefined) await writeFile(auditLog, Buffer.from(evidence.auditLog, "base64"), { flag: "wx" });
}
