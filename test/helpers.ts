/** Test utilities: temp directories built from file trees, and reading them back. */
import { probeBwrap } from "../src/sandbox/bwrap.js";
import { mkdtemp, mkdir, readFile, readdir, rm, symlink, writeFile, cp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll } from "vitest";

export const repoRoot = join(import.meta.dirname, "..");
export const exampleAdapter = join(repoRoot, "examples", "file_adapter");
export const exampleTemplate = join(repoRoot, "templates", "file_adapter");

/** A file tree: path → text, bytes, or { symlink: target }. */
export type FileTree = Record<string, string | Uint8Array | { symlink: string }>;

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temp directory, removed after the test file. */
export async function tempDir(prefix = "hermit-test-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Write `tree` into `dir` (created if needed). */
export async function writeTree(dir: string, tree: FileTree): Promise<string> {
  for (const [path, content] of Object.entries(tree)) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    if (typeof content === "object" && "symlink" in content) await symlink(content.symlink, file);
    else await writeFile(file, content);
  }
  return dir;
}

/** A temp directory holding `tree`. */
export async function testdir(tree: FileTree): Promise<string> {
  return writeTree(await tempDir(), tree);
}

/** A temp copy of a directory, optionally with files added or replaced. */
export async function copyDir(source: string, overrides: FileTree = {}): Promise<string> {
  const dir = await tempDir();
  await cp(source, dir, { recursive: true });
  return writeTree(dir, overrides);
}

/** Every file under `dir` as path → text (sorted), for whole-tree assertions. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out[relative(dir, full).split("\\").join("/")] = await readFile(full, "utf8");
    }
  };
  await walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** What the spec check reports about isolation on this machine (bwrap is installed by .ci/run). */

/** The one bubblewrap probe hermit itself uses: whether the sandbox works here, and if not, why. */
export const bwrap = await probeBwrap();
export const hasBwrap = bwrap.available;
/** Why the bubblewrap tests cannot run here (undefined: they can). */
export const noBwrap = bwrap.available ? undefined : `bubblewrap: ${bwrap.reason}`;

const printedSkips = new Set<string>();

/**
 * `it.skipIf(skipBecause(reason))`: true when `reason` is given, and then the reason is printed
 * (once per file) where the default reporter shows it, so a skipped test always says why.
 */
export function skipBecause(reason: string | undefined): boolean {
  if (reason === undefined) return false;
  if (!printedSkips.has(reason)) {
    printedSkips.add(reason);
    console.warn(`[skipped] ${reason}`);
  }
  return true;
}

/**
 * Where the host tests find the five host CLIs: `HERMIT_HOST_BIN_DIR` (host programs already
 * installed elsewhere), else `test/hosts/node_modules/.bin` (`npm run setup:hosts`).
 */
export const hostBinDir = process.env.HERMIT_HOST_BIN_DIR ? resolve(process.env.HERMIT_HOST_BIN_DIR) : join(repoRoot, "test", "hosts", "node_modules", ".bin");

/** Why the host program `bin` (claude, codex, pi, opencode, gemini) cannot be run here, or undefined. */
export function noHost(bin: string): string | undefined {
  return existsSync(join(hostBinDir, bin))
    ? undefined
    : `${bin} is not in ${hostBinDir} (run npm run setup:hosts, or set HERMIT_HOST_BIN_DIR to a folder holding the host programs)`;
}
export const expectedIsolation = hasBwrap ? "bwrap" : "none";
export const isolationText = hasBwrap
  ? "ran without network (bwrap)"
  : "ran WITHOUT network isolation (bwrap not found)";
