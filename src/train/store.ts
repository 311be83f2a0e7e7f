/**
 * The version store: a bare Git repository (default `runs/versions.git`) shared by runs,
 * read with isomorphic-git; objects and refs are written straight to its files (`loose-files.ts`).
 * Every write is crash-safe: objects and refs are written to a temp file and renamed into
 * place, so a `kill -9` never leaves a torn object or ref and `git fsck --strict` stays clean.
 */
import * as nodeFs from "node:fs";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import git from "isomorphic-git";
import { HermitError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic.js";
import { blobObject, commitObject, tagObject, treeObject, type EncodedObject } from "./git-objects.js";
import { readLooseRef, writeLooseObject, writeLooseRef } from "./loose-files.js";
import { RecentCache } from "./recent-cache.js";
import { formatMessage, parseMessage, type CommitMessage } from "./trailers.js";
import { exportTreeTo, recordDirectory, type FileMap, type TreeEntryInfo } from "./tree-files.js";

export type { FileMap, TreeEntryInfo } from "./tree-files.js";

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: CommitMessage;
  /** Seconds since the epoch. */
  time: number;
}

const IDENTITY = { name: "hermit", email: "hermit@localhost" };
const TEMP_DIR = "hermit-tmp";
const BLOB_CACHE_BYTES = 32 * 1024 * 1024;
/** Trees whose file maps are kept: the working set of a step (accepted, candidate, raw, template, base) and more. */
const TREES_KEPT = 16;

/**
 * isomorphic-git with atomic `writeFile`: temp files live in `<gitdir>/hermit-tmp/` (never
 * under `refs/` or `objects/`, where git would read a stray one as a ref or an object).
 * isomorphic-git probes the file system at every call by calling `readFile()` without a path
 * (an error built and thrown each time): that probe is answered without one.
 */
function atomicFs(gitdir: string) {
  const promises = nodeFs.promises;
  const tempDir = join(gitdir, TEMP_DIR);
  const fs = {
    readFile: (file?: string, options?: Parameters<typeof promises.readFile>[1]) => (file === undefined ? Promise.resolve(undefined) : promises.readFile(file, options)),
    writeFile: async (file: string, data: string | Uint8Array, options?: unknown) => {
      if (typeof data === "string") data = Buffer.from(data, ((options as { encoding?: BufferEncoding })?.encoding ?? "utf8"));
      if (!file.startsWith(gitdir)) return writeFile(file, data);
      await writeFileAtomic(file, data, { mkdir: true, tempDir });
    },
    unlink: promises.unlink.bind(promises),
    readdir: promises.readdir.bind(promises),
    mkdir: promises.mkdir.bind(promises),
    rmdir: promises.rmdir.bind(promises),
    stat: promises.stat.bind(promises),
    lstat: promises.lstat.bind(promises),
    readlink: promises.readlink.bind(promises),
    symlink: promises.symlink.bind(promises),
    chmod: promises.chmod.bind(promises),
  };
  return { promises: fs };
}

export class VersionStore {
  private readonly fs: ReturnType<typeof atomicFs>;
  private readonly tempDir: string;
  /** Files in the widest tree read or written: the caches below hold a few such trees. */
  private widest = 0;
  /** Object ids known to be in the store, so unchanged files are not compressed again. */
  private readonly known = new RecentCache<string, true>({ count: () => Math.max(128, 4 * this.widest) });
  /** Trees and blobs are immutable: keep the recently used ones (blobs up to a byte budget). */
  private readonly fileMaps = new RecentCache<string, FileMap>({ count: () => TREES_KEPT });
  private readonly blobs = new RecentCache<string, Uint8Array>({ count: () => Math.max(64, 3 * this.widest), bytes: BLOB_CACHE_BYTES, size: (blob) => blob.length });

  private constructor(readonly gitdir: string) {
    this.fs = atomicFs(gitdir);
    this.tempDir = join(gitdir, TEMP_DIR);
  }

  /** Open the store at `gitdir`, creating a bare repository when there is none. */
  static async open(gitdir: string): Promise<VersionStore> {
    const store = new VersionStore(gitdir);
    const head = await stat(join(gitdir, "HEAD")).catch(() => undefined);
    if (!head) {
      const entries = await readdir(gitdir).catch(() => [] as string[]);
      if (entries.length > 0) {
        throw new HermitError("RUN_INVALID", `${gitdir}: not a Git repository, and not empty; cannot use it as the version store`, {
          path: gitdir,
        });
      }
      await mkdir(gitdir, { recursive: true });
      await git.init({ fs: store.fs, gitdir, bare: true, defaultBranch: "main" });
    }
    // Leftovers of a crash between writing a temp file and renaming it.
    await rm(join(gitdir, TEMP_DIR), { recursive: true, force: true });
    return store;
  }

  /**
   * Open an existing store for reading only (the report): nothing is created or cleaned, so a
   * reader never disturbs a Trainer writing the same store. Undefined when `gitdir` holds none.
   */
  static async openExisting(gitdir: string): Promise<VersionStore | undefined> {
    const head = await stat(join(gitdir, "HEAD")).catch(() => undefined);
    return head?.isFile() ? new VersionStore(gitdir) : undefined;
  }

  /** Record every file of `dir` (as `walkTree` sees it: no `.git`, no `node_modules`, no escaping symlink). */
  writeDirectory(dir: string): Promise<{ tree: string; files: FileMap }> {
    return recordDirectory(this, dir);
  }

  /** Store a blob; its bytes are kept, so exporting a tree just written reads nothing back. */
  async writeBlob(bytes: Uint8Array): Promise<string> {
    const oid = this.writeObject(blobObject(bytes));
    this.blobs.set(oid, bytes);
    return oid;
  }

  /** Store an encoded object (a loose object, unless it is known to be there or is on disk already). */
  private writeObject(object: EncodedObject): string {
    if (!this.known.has(object.oid)) {
      writeLooseObject(this.gitdir, object, this.tempDir);
      this.known.set(object.oid, true);
    }
    return object.oid;
  }

  /** Write the nested trees of a flat file map; returns the root tree id. The map is kept, as `readFileMap` would read it back. */
  async writeFileMap(files: FileMap): Promise<string> {
    interface Dir {
      files: Map<string, TreeEntryInfo>;
      dirs: Map<string, Dir>;
    }
    this.widest = Math.max(this.widest, files.size);
    const root: Dir = { files: new Map(), dirs: new Map() };
    for (const [path, entry] of files) {
      const parts = path.split("/");
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        if (!dir.dirs.has(part)) dir.dirs.set(part, { files: new Map(), dirs: new Map() });
        dir = dir.dirs.get(part)!;
      }
      dir.files.set(parts[parts.length - 1], entry);
    }
    const write = (dir: Dir): string => {
      const tree = [
        ...[...dir.files].map(([path, entry]) => ({ path, mode: entry.mode, oid: entry.oid })),
        ...[...dir.dirs].map(([path, sub]) => ({ path, mode: "040000", oid: write(sub) })),
      ];
      return this.writeObject(treeObject(tree));
    };
    const tree = write(root);
    this.fileMaps.set(tree, new Map([...files].map(([path, entry]) => [path, { oid: entry.oid, mode: entry.mode === "100755" ? "100755" : "100644" }])));
    return tree;
  }

  /** The flat file map of a tree (a fresh copy the caller may change). */
  async readFileMap(tree: string): Promise<FileMap> {
    const cached = this.fileMaps.get(tree);
    if (cached) return new Map(cached);
    const map: FileMap = new Map();
    const walk = async (oid: string, prefix: string) => {
      const { tree: entries } = await git.readTree({ fs: this.fs, gitdir: this.gitdir, oid });
      for (const entry of entries) {
        const path = prefix + entry.path;
        if (entry.type === "tree") await walk(entry.oid, `${path}/`);
        else if (entry.type === "blob") map.set(path, { oid: entry.oid, mode: entry.mode === "100755" ? "100755" : "100644" });
      }
    };
    await walk(tree, "");
    this.widest = Math.max(this.widest, map.size);
    this.fileMaps.set(tree, map);
    return new Map(map);
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    const cached = this.blobs.get(oid);
    if (cached) return cached;
    const blob = (await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid })).blob;
    this.blobs.set(oid, blob);
    return blob;
  }

  /**
   * Make `dir` hold exactly the files of `tree`: files not in the tree are removed, changed
   * ones rewritten, equal ones left alone.
   */
  exportTree(tree: string, dir: string): Promise<FileMap> {
    return exportTreeTo(this, tree, dir);
  }

  /** Write a commit; `time` (seconds) defaults to now. */
  async commit(input: { tree: string; parents: string[]; message: CommitMessage; time?: number }): Promise<string> {
    const signature = { ...IDENTITY, timestamp: input.time ?? Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    return this.writeObject(commitObject({ tree: input.tree, parents: input.parents, author: signature, committer: signature, message: formatMessage(input.message) }));
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    const { commit } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid });
    return { oid, tree: commit.tree, parents: commit.parent, message: parseMessage(commit.message), time: commit.committer.timestamp };
  }

  /** Point `ref` (a full name, `refs/...`) at `oid`. Atomic. */
  async setRef(ref: string, oid: string): Promise<void> {
    writeLooseRef(this.gitdir, ref, oid, this.tempDir);
  }

  /** Make the store's HEAD name `ref` (the latest run's branch), so clones and `git log` land there. */
  async pointHead(ref: string): Promise<void> {
    await git.writeRef({ fs: this.fs, gitdir: this.gitdir, ref: "HEAD", value: ref, symbolic: true, force: true });
  }

  /** The object a full ref names, or undefined when it does not exist. */
  async getRef(ref: string): Promise<string | undefined> {
    const loose = readLooseRef(this.gitdir, ref);
    if (loose !== undefined) return loose ?? undefined;
    try {
      return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref });
    } catch (error) {
      if ((error as { code?: string }).code === "NotFoundError") return undefined;
      throw error;
    }
  }

  /** Full ref names under `prefix` (e.g. `refs/hermit/run-1/candidates`). */
  async listRefs(prefix: string): Promise<string[]> {
    const names = await git.listRefs({ fs: this.fs, gitdir: this.gitdir, filepath: prefix });
    return names.map((name) => `${prefix}/${name}`);
  }

  /** An annotated tag `name` (without `refs/tags/`) on `commit`, replaced if it named another commit. */
  async tag(name: string, commit: string, message: string): Promise<void> {
    const existing = await this.getRef(`refs/tags/${name}`);
    if (existing && (await this.peel(existing)) === commit) return;
    const tagger = { ...IDENTITY, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    const oid = await this.writeObject(tagObject({ object: commit, tag: name, tagger, message: message.endsWith("\n") ? message : `${message}\n` }));
    await this.setRef(`refs/tags/${name}`, oid);
  }

  /** Follow annotated tags down to the commit. */
  async peel(oid: string): Promise<string> {
    let current = oid;
    for (let depth = 0; depth < 10; depth++) {
      const object = await git.readObject({ fs: this.fs, gitdir: this.gitdir, oid: current, format: "parsed" });
      if (object.type !== "tag") return current;
      current = (object.object as { object: string }).object;
    }
    return current;
  }

  /**
   * Resolve what a user typed (`hermit/run-1/final`, `refs/heads/…`, a branch, a tag, a commit
   * id or a unique prefix of one) to a commit id.
   */
  async resolveCommit(refish: string): Promise<string> {
    let oid: string | undefined;
    try {
      oid = await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: await git.expandRef({ fs: this.fs, gitdir: this.gitdir, ref: refish }) });
    } catch {
      if (/^[0-9a-f]{4,40}$/.test(refish)) {
        oid = await git.expandOid({ fs: this.fs, gitdir: this.gitdir, oid: refish }).catch(() => undefined);
      }
    }
    if (!oid) {
      throw new HermitError("INPUT_NOT_FOUND", `${this.gitdir}: no ref or commit '${refish}' in the version store`, {
        path: this.gitdir,
        ref: refish,
      });
    }
    const commit = await this.peel(oid);
    const { type } = await git.readObject({ fs: this.fs, gitdir: this.gitdir, oid: commit, format: "parsed" });
    if (type !== "commit") throw new HermitError("INPUT_NOT_FOUND", `${this.gitdir}: '${refish}' names a ${type}, not a commit`, { ref: refish });
    return commit;
  }

  /** The first-parent history from `oid` back to the root (newest first). */
  async firstParentLog(oid: string, limit = 100_000): Promise<CommitInfo[]> {
    const out: CommitInfo[] = [];
    let current: string | undefined = oid;
    while (current && out.length < limit) {
      const info = await this.readCommit(current);
      out.push(info);
      current = info.parents[0];
    }
    return out;
  }
}
