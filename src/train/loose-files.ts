/**
 * Loose objects and refs, written straight to a bare repository's files: the version store's
 * writes a step makes a dozen of (blobs, trees, commits, tags, refs). Through isomorphic-git
 * each call re-wrapped the file system (probing it with a failing `readFile`), looked for the
 * git directory and went through the thread pool once per stat, mkdir, write and rename; here
 * it is a few synchronous calls. Every file is written to a temp file in `tempDir` and renamed
 * into place, so a `kill -9` never leaves a torn object or ref. Reading stays with
 * isomorphic-git (packs, packed refs, symbolic refs), but for a loose ref's plain id.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HermitError } from "../errors.js";
import { writeFileAtomicSync } from "../fs/atomic.js";
import { deflateObject, type EncodedObject } from "./git-objects.js";

const OBJECT_ID = /^[0-9a-f]{40}$/;

/** Write `object` as a loose object unless a loose object of its id is there (as isomorphic-git does). */
export function writeLooseObject(gitdir: string, object: EncodedObject, tempDir: string): void {
  const file = join(gitdir, "objects", object.oid.slice(0, 2), object.oid.slice(2));
  if (!existsSync(file)) writeFileAtomicSync(file, deflateObject(object), { mkdir: true, tempDir });
}

/** Point the loose ref `ref` (a full name, `refs/...`) at `oid`. */
export function writeLooseRef(gitdir: string, ref: string, oid: string, tempDir: string): void {
  if (!validRefName(ref)) throw new HermitError("RUN_INVALID", `${gitdir}: '${ref}' is not a valid Git ref name`, { path: gitdir, ref });
  if (!OBJECT_ID.test(oid)) throw new HermitError("RUN_INVALID", `${gitdir}: '${oid}' is not an object id (ref ${ref})`, { path: gitdir, ref });
  writeFileAtomicSync(join(gitdir, ref), `${oid}\n`, { mkdir: true, tempDir });
}

/**
 * What the files say of `ref` (a full name): the id its loose ref file holds, `null` when it has
 * no loose file and the repository no packed refs (no such ref), undefined when they cannot say
 * (packed refs, a symbolic ref, a folder of refs): then the caller asks isomorphic-git.
 */
export function readLooseRef(gitdir: string, ref: string): string | null | undefined {
  if (!validRefName(ref)) return undefined;
  let text: string;
  try {
    text = readFileSync(join(gitdir, ref), "utf8").trim();
  } catch (error) {
    const absent = (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(join(gitdir, "packed-refs"));
    return absent ? null : undefined;
  }
  return OBJECT_ID.test(text) ? text : undefined;
}

/**
 * Git's rules for a ref name (`git check-ref-format`): `/`-separated parts, none empty, none
 * starting with `.` or ending with `.lock`; no `..`, `@{`, space, control character or any of
 * `~^:?*[\`; not ending with `.`.
 */
export function validRefName(ref: string): boolean {
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\.$/.test(ref)) return false;
  return ref.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}
