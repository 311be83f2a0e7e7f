/**
 * A pool of candidate fragments for the `select` Evolver (`--pool DIR`):
 *
 *   skills/<name>/…      a skill folder (SKILL.md and its files), copied into the adapter's skills folder
 *   agents/<name>.md     a subagent file, copied into the adapter's agents folder
 *   sections/<name>.md   an instruction section, appended to the adapter's context (ADAPTER.md)
 *                        between `<!-- pool:<name> -->` markers
 *
 * Every fragment has a description (the frontmatter `description`, else its first paragraph),
 * which `select` matches against the learner's failure feedback.
 */
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseFrontmatter } from "../adapter/frontmatter.js";
import { contextPath } from "../adapter/manifest.js";
import { readManifest } from "../adapter/read.js";
import type { Manifest } from "../adapter/types.js";
import { HermitError } from "../errors.js";

export type FragmentKind = "skill" | "agent" | "section";

export interface Fragment {
  /** `skills/<name>`, `agents/<name>` or `sections/<name>`: unique in the pool. */
  id: string;
  kind: FragmentKind;
  name: string;
  description: string;
  /** Absolute path in the pool (a folder for a skill, a file otherwise). */
  source: string;
  /** For a section: the text inserted into the context. */
  text?: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Read every fragment of the pool, sorted by id. */
export async function readPool(dir: string): Promise<Fragment[]> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    throw new HermitError("INPUT_NOT_FOUND", `${dir}: pool directory not found`, { path: dir });
  }
  const fragments: Fragment[] = [];
  for (const name of await entries(join(dir, "skills"), "dir")) {
    const file = join(dir, "skills", name, "SKILL.md");
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) throw new HermitError("INPUT_NOT_FOUND", `${file}: a pool skill needs a SKILL.md`, { path: file });
    fragments.push({ id: `skills/${name}`, kind: "skill", name, description: describe(text, file), source: join(dir, "skills", name) });
  }
  for (const file of await entries(join(dir, "agents"), "md")) {
    const name = file.slice(0, -3);
    const path = join(dir, "agents", file);
    fragments.push({ id: `agents/${name}`, kind: "agent", name, description: describe(await readFile(path, "utf8"), path), source: path });
  }
  for (const file of await entries(join(dir, "sections"), "md")) {
    const name = file.slice(0, -3);
    const path = join(dir, "sections", file);
    const raw = await readFile(path, "utf8");
    const { body } = parseFrontmatter(raw, path);
    fragments.push({ id: `sections/${name}`, kind: "section", name, description: describe(raw, path), source: path, text: body.trim() });
  }
  if (fragments.length === 0) throw new HermitError("INPUT_NOT_FOUND", `${dir}: the pool has no fragments (skills/<name>/SKILL.md, agents/<name>.md, sections/<name>.md)`, { path: dir });
  return fragments.sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function entries(dir: string, want: "dir" | "md"): Promise<string[]> {
  const list = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return list
    .filter((entry) => (want === "dir" ? entry.isDirectory() : entry.isFile() && entry.name.endsWith(".md")))
    .map((entry) => entry.name)
    .filter((name) => NAME.test(want === "md" ? name.slice(0, -3) : name))
    .sort();
}

function describe(text: string, file: string): string {
  const { data, body } = parseFrontmatter(text, file);
  if (typeof data.description === "string" && data.description.trim()) return data.description.trim();
  const paragraph = body.split(/\n\s*\n/).map((part) => part.replace(/^#+\s*/gm, "").trim()).find((part) => part.length > 0);
  return paragraph ?? "";
}

/** Where fragments land in an adapter, from its manifest. */
export interface Placement {
  context: string;
  skills?: string;
  agents?: string;
}

export function placement(manifest: Manifest): Placement {
  const agents = manifest.exports?.agents;
  return { context: contextPath(manifest), skills: manifest.exports?.skills, agents: typeof agents === "string" ? agents : undefined };
}

export async function readPlacement(adapter: string): Promise<Placement> {
  return placement(await readManifest(adapter));
}

/** Why a fragment cannot go into this adapter (no skills or agents folder exported), or undefined. */
export function unplaceable(fragment: Fragment, where: Placement): string | undefined {
  if (fragment.kind === "skill" && !where.skills) return "the adapter exports no skills folder";
  if (fragment.kind === "agent" && !where.agents) return "the adapter exports no agents folder";
  return undefined;
}

const startMarker = (name: string) => `<!-- pool:${name} -->`;
const endMarker = (name: string) => `<!-- /pool:${name} -->`;

/** Is the fragment in the adapter? */
export async function isIncluded(adapter: string, fragment: Fragment, where: Placement): Promise<boolean> {
  if (fragment.kind === "section") return (await readFile(join(adapter, where.context), "utf8").catch(() => "")).includes(startMarker(fragment.name));
  const target = fragment.kind === "skill" ? join(adapter, where.skills ?? "skills", fragment.name) : join(adapter, where.agents ?? "agents", `${fragment.name}.md`);
  return (await stat(target).catch(() => undefined)) !== undefined;
}

/** Paths the fragment occupies in the adapter (to match repair records against it). */
export function fragmentPaths(fragment: Fragment, where: Placement): string[] {
  if (fragment.kind === "section") return [where.context];
  if (fragment.kind === "skill") return [`${where.skills ?? "skills"}/${fragment.name}/`];
  return [`${where.agents ?? "agents"}/${fragment.name}.md`];
}

/** Put the fragment into the adapter. */
export async function addFragment(adapter: string, fragment: Fragment, where: Placement): Promise<void> {
  if (fragment.kind === "section") {
    const file = join(adapter, where.context);
    const current = await readFile(file, "utf8");
    const block = `${startMarker(fragment.name)}\n${fragment.text ?? ""}\n${endMarker(fragment.name)}\n`;
    await writeFile(file, `${current.replace(/\s*$/, "")}\n\n${block}`);
  } else if (fragment.kind === "skill") {
    const target = join(adapter, where.skills!, fragment.name);
    await rm(target, { recursive: true, force: true });
    await mkdir(join(adapter, where.skills!), { recursive: true });
    await cp(fragment.source, target, { recursive: true });
  } else {
    await mkdir(join(adapter, where.agents!), { recursive: true });
    await cp(fragment.source, join(adapter, where.agents!, `${fragment.name}.md`));
  }
}

/** Take the fragment out of the adapter. */
export async function removeFragment(adapter: string, fragment: Fragment, where: Placement): Promise<void> {
  if (fragment.kind === "section") {
    const file = join(adapter, where.context);
    const current = await readFile(file, "utf8");
    const start = current.indexOf(startMarker(fragment.name));
    const end = current.indexOf(endMarker(fragment.name));
    if (start === -1 || end === -1) return;
    const after = current.slice(end + endMarker(fragment.name).length).replace(/^\n/, "");
    await writeFile(file, `${current.slice(0, start).replace(/\s*$/, "\n")}${after ? `\n${after}` : ""}`);
  } else if (fragment.kind === "skill") {
    await rm(join(adapter, where.skills ?? "skills", fragment.name), { recursive: true, force: true });
  } else {
    await rm(join(adapter, where.agents ?? "agents", `${fragment.name}.md`), { force: true });
  }
}
