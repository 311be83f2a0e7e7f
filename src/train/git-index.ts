/**
 * Git's index file (`.git/index`, version 2), read and written: what lets the Trainer refresh
 * `checkout/` in its own process after a step, instead of running `git reset --hard`. Only the
 * plain form is read — version 2, stage 0, no split or sparse index; anything else is
 * `undefined`, and the caller lets the `git` CLI do the work. Extensions (the cache tree, …)
 * are dropped on writing: git rebuilds what it needs.
 */
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";

/** One file of the index: its blob, its mode and the stat data git compares to see it unchanged. */
export interface IndexEntry {
  path: string;
  oid: string;
  /** `100644` or `100755`. */
  mode: string;
  stat: IndexStat;
}

/** The stat fields the index keeps, as git truncates them (32 bits each). */
export interface IndexStat {
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
}

const SIGNATURE = 0x44495243; // "DIRC"
const HEADER_BYTES = 12;
const FIXED_ENTRY_BYTES = 62;
const HASH_BYTES = 20;
/** Extensions that change what the entries mean (a split index, a sparse one): not ours to read. */
const MEANINGFUL_EXTENSIONS = new Set(["link", "sdir"]);

/** The index's stat fields of a file, from `lstat(path, { bigint: true })`. */
export function indexStat(info: BigIntStats): IndexStat {
  const low = (value: bigint) => Number(BigInt.asUintN(32, value));
  return {
    ctimeSeconds: low(info.ctimeNs / 1_000_000_000n),
    ctimeNanoseconds: Number(info.ctimeNs % 1_000_000_000n),
    mtimeSeconds: low(info.mtimeNs / 1_000_000_000n),
    mtimeNanoseconds: Number(info.mtimeNs % 1_000_000_000n),
    dev: low(info.dev),
    ino: low(info.ino),
    uid: low(info.uid),
    gid: low(info.gid),
    size: low(info.size),
  };
}

export function sameStat(a: IndexStat, b: IndexStat): boolean {
  return (
    a.ctimeSeconds === b.ctimeSeconds &&
    a.ctimeNanoseconds === b.ctimeNanoseconds &&
    a.mtimeSeconds === b.mtimeSeconds &&
    a.mtimeNanoseconds === b.mtimeNanoseconds &&
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.uid === b.uid &&
    a.gid === b.gid &&
    a.size === b.size
  );
}

/** The index file's bytes for `entries` (sorted here by path, as git requires), checksum included. */
export function encodeIndex(entries: IndexEntry[]): Buffer {
  const sorted = entries.map((entry) => ({ entry, name: Buffer.from(entry.path, "utf8") })).sort((a, b) => Buffer.compare(a.name, b.name));
  const parts: Buffer[] = [];
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(SIGNATURE, 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sorted.length, 8);
  parts.push(header);
  for (const { entry, name } of sorted) {
    // 1 to 8 NULs: the entry ends on a multiple of 8 bytes, its name NUL-terminated.
    const length = Math.ceil((FIXED_ENTRY_BYTES + name.length + 1) / 8) * 8;
    const bytes = Buffer.alloc(length);
    const { stat } = entry;
    const fields = [stat.ctimeSeconds, stat.ctimeNanoseconds, stat.mtimeSeconds, stat.mtimeNanoseconds, stat.dev, stat.ino, Number.parseInt(entry.mode, 8), stat.uid, stat.gid, stat.size];
    fields.forEach((value, index) => bytes.writeUInt32BE(value >>> 0, index * 4));
    Buffer.from(entry.oid, "hex").copy(bytes, 40);
    bytes.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    name.copy(bytes, FIXED_ENTRY_BYTES);
    parts.push(bytes);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** The entries of an index file, or undefined when it is not the plain form this module writes (or is damaged). */
export function decodeIndex(data: Buffer): IndexEntry[] | undefined {
  if (data.length < HEADER_BYTES + HASH_BYTES || data.readUInt32BE(0) !== SIGNATURE || data.readUInt32BE(4) !== 2) return undefined;
  const body = data.subarray(0, data.length - HASH_BYTES);
  if (!createHash("sha1").update(body).digest().equals(data.subarray(body.length))) return undefined;
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = HEADER_BYTES;
  for (let n = 0; n < count; n++) {
    if (at + FIXED_ENTRY_BYTES > body.length) return undefined;
    const field = (index: number) => body.readUInt32BE(at + index * 4);
    const flags = body.readUInt16BE(at + 60);
    // A stage other than 0 (a merge in progress) or the extended flag (version 3): not plain.
    if ((flags & 0x3000) !== 0 || (flags & 0x4000) !== 0) return undefined;
    const end = body.indexOf(0, at + FIXED_ENTRY_BYTES);
    if (end < 0) return undefined;
    const mode = field(6);
    if (mode !== 0o100644 && mode !== 0o100755) return undefined;
    entries.push({
      path: body.toString("utf8", at + FIXED_ENTRY_BYTES, end),
      oid: body.toString("hex", at + 40, at + 60),
      mode: mode.toString(8),
      stat: { ctimeSeconds: field(0), ctimeNanoseconds: field(1), mtimeSeconds: field(2), mtimeNanoseconds: field(3), dev: field(4), ino: field(5), uid: field(7), gid: field(8), size: field(9) },
    });
    at += Math.ceil((end + 1 - at) / 8) * 8;
  }
  while (at + 8 <= body.length) {
    const signature = body.toString("latin1", at, at + 4);
    if (MEANINGFUL_EXTENSIONS.has(signature)) return undefined;
    at += 8 + body.readUInt32BE(at + 4);
  }
  return at === body.length ? entries : undefined;
}
