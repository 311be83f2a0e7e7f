/**
 * Git's object encoding (blob, tree, commit, annotated tag) hashed with Node's own SHA-1 and
 * deflated with Node's zlib. isomorphic-git encodes the same bytes but hashes through
 * `crypto.subtle` and deflates through a web `CompressionStream` (a Blob, a stream pipe and a
 * `Response` per object), which made up most of the version store's time in a Trainer step.
 * The bytes are exactly those isomorphic-git (and the `git` CLI) write: test/train/git-objects.test.ts
 * compares every kind with isomorphic-git's own writer.
 */
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

export type ObjectType = "blob" | "tree" | "commit" | "tag";

/** An object ready for the loose store: its id and its deflated bytes (header included). */
export interface EncodedObject {
  oid: string;
  type: ObjectType;
  /** The object's content, without the `<type> <size>\0` header. */
  content: Buffer;
}

/** A person and a time, as git writes them (`name <email> seconds +hhmm`). */
export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes west of UTC, as JavaScript's `getTimezoneOffset` gives them (0 for UTC). */
  timezoneOffset: number;
}

export interface TreeEntry {
  path: string;
  /** `100644`, `100755` or `040000`. */
  mode: string;
  oid: string;
}

/** The id of `content` stored as `type`. */
export function encodeObject(type: ObjectType, content: Buffer): EncodedObject {
  const oid = createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
  return { oid, type, content };
}

/** The loose-object file's bytes: header and content, deflated. */
export function deflateObject(object: EncodedObject): Buffer {
  return deflateSync(Buffer.concat([Buffer.from(`${object.type} ${object.content.length}\0`), object.content]));
}

export function blobObject(bytes: Uint8Array): EncodedObject {
  return encodeObject("blob", Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** A tree: entries in git's order (a folder sorts as if its name ended in `/`), modes without a leading 0. */
export function treeObject(entries: TreeEntry[]): EncodedObject {
  const key = (entry: TreeEntry) => (entry.mode === "040000" ? `${entry.path}/` : entry.path);
  const sorted = [...entries].sort((a, b) => compareBytes(key(a), key(b)));
  const parts: Buffer[] = [];
  for (const entry of sorted) {
    parts.push(Buffer.from(`${entry.mode.replace(/^0/, "")} ${entry.path}\0`, "utf8"), Buffer.from(entry.oid, "hex"));
  }
  return encodeObject("tree", Buffer.concat(parts));
}

/** A commit; the message as isomorphic-git normalizes it (no CR, no leading blank lines, one final newline). */
export function commitObject(input: { tree: string; parents: string[]; author: Signature; committer: Signature; message: string }): EncodedObject {
  let headers = `tree ${input.tree}\n`;
  for (const parent of input.parents) headers += `parent ${parent}\n`;
  headers += `author ${formatSignature(input.author)}\ncommitter ${formatSignature(input.committer)}\n`;
  return encodeObject("commit", Buffer.from(`${headers}\n${normalizeNewlines(input.message)}`, "utf8"));
}

/** An annotated tag of a commit, laid out as isomorphic-git's `annotatedTag` writes it. */
export function tagObject(input: { object: string; tag: string; tagger: Signature; message: string }): EncodedObject {
  const text = `object ${input.object}\ntype commit\ntag ${input.tag}\ntagger ${formatSignature(input.tagger)}\n\n${input.message}\n`;
  return encodeObject("tag", Buffer.from(text, "utf8"));
}

function formatSignature({ name, email, timestamp, timezoneOffset }: Signature): string {
  // JavaScript's offset is minutes west; git writes east (+0100 for an offset of -60). Like
  // isomorphic-git, -0 is written as -0000 (a zone behind UTC at offset zero).
  const behind = timezoneOffset === 0 ? Object.is(timezoneOffset, -0) : timezoneOffset > 0;
  const sign = behind ? "-" : "+";
  const minutes = Math.abs(timezoneOffset);
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0");
  const mm = String(minutes % 60).padStart(2, "0");
  return `${name} <${email}> ${timestamp} ${sign}${hh}${mm}`;
}

function normalizeNewlines(text: string): string {
  return `${text.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "")}\n`;
}

/** Compare as git does: by UTF-8 bytes. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
