/**
 * Deploy, whole processes against whole processes (bench/lib.ts pairs and interleaves them):
 *
 * - cold deploy of a generated adapter (200 skills × 3 files, 50 agents, 20 tools) for codex
 *   into a fresh workspace, against a plain Node script writing the same files (its bytes
 *   and modes, read from a JSON file, into a fresh folder): the write floor;
 * - the no-op redeploy of the same source into that workspace, against the cold deploy; it
 *   must write nothing (every file's bytes and mtime are compared after the runs);
 * - the same two with `--existing` into a user's repository (an AGENTS.md, a config.toml with
 *   comments and another server, sources).
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { compare, generateAdapter } from "./lib.js";

const repoRoot = join(import.meta.dirname, "..");
const cli = join(repoRoot, "dist", "cli.js");
const node = process.execPath;
const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-deploy-"));
const source = await generateAdapter({ skills: 200, agents: 50, tools: 20 });

/** Every file under `dir`: bytes (base64), mode and mtime. */
async function snapshot(dir: string): Promise<Record<string, { data: string; mode: number; mtimeMs: number }>> {
  const out: Record<string, { data: string; mode: number; mtimeMs: number }> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else {
        const info = await stat(join(dir, path));
        out[path] = { data: (await readFile(join(dir, path))).toString("base64"), mode: info.mode & 0o777, mtimeMs: info.mtimeMs };
      }
    }
  };
  await walk("");
  return out;
}

const deployArgs = (workspace: string, ...more: string[]) => [node, cli, "deploy", "--adapter", source.adapter, "--workspace", workspace, "--host", "codex", ...more];

async function run(argv: string[]): Promise<void> {
  const { execFile } = await import("node:child_process");
  await new Promise<void>((resolve, reject) => execFile(argv[0], argv.slice(1), (error) => (error ? reject(error) : resolve())));
}

/** Fail the benchmark when a no-op redeploy changed any byte or mtime. */
async function expectUntouched(workspace: string, before: Awaited<ReturnType<typeof snapshot>>, what: string): Promise<void> {
  const after = await snapshot(workspace);
  const changed = Object.keys({ ...before, ...after }).filter((path) => JSON.stringify(before[path]) !== JSON.stringify(after[path]));
  if (changed.length > 0) throw new Error(`${what} wrote ${changed.length} file(s): ${changed.slice(0, 5).join(", ")}`);
  console.log(`${what}: zero writes (${Object.keys(after).length} files, bytes and mtimes unchanged)`);
}

// The write floor: the files a cold deploy writes, as a plain Node script would write them.
const reference = join(scratch, "reference");
await run(deployArgs(reference));
const files = await snapshot(reference);
const floorInput = join(scratch, "floor.json");
await writeFile(floorInput, JSON.stringify(Object.fromEntries(Object.entries(files).map(([path, file]) => [path, [file.data, file.mode]]))));
const floorScript = join(scratch, "write-files.mjs");
await writeFile(
  floorScript,
  `import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
const [input, target] = process.argv.slice(2);
for (const [path, [data, mode]] of Object.entries(JSON.parse(readFileSync(input, "utf8")))) {
  const file = join(target, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, Buffer.from(data, "base64"), { mode });
}
`,
);
console.log(`cold deploy writes ${Object.keys(files).length} files (${source.files.length} source files)`);

const coldWorkspace = join(scratch, "cold");
const floorTarget = join(scratch, "floor");
const cold = { label: "hermit deploy (codex, cold)", command: deployArgs(coldWorkspace), prepare: () => rm(coldWorkspace, { recursive: true, force: true }) };
await compare("cold-deploy", cold, {
  label: "node script writing the same files",
  command: [node, floorScript, floorInput, floorTarget],
  prepare: () => rm(floorTarget, { recursive: true, force: true }),
});

const settled = join(scratch, "settled");
await run(deployArgs(settled));
const beforeNoop = await snapshot(settled);
await compare("noop-redeploy", { label: "hermit deploy (codex, no-op)", command: deployArgs(settled) }, cold);
await expectUntouched(settled, beforeNoop, "no-op redeploy");

// --existing, into a user's repository.
const USER_FILES: Record<string, string> = {
  "AGENTS.md": "# Project notes\n\nRun the tests first.\n\n```sh\nnpm test\n```\n",
  ".codex/config.toml": '# team settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "node"\nargs = ["tools/other.js"]\n',
  "README.md": "# Project\n",
  "src/index.ts": "export const answer = 42;\n",
};
async function userRepo(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  for (const [path, text] of Object.entries(USER_FILES)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}
const coldRepo = join(scratch, "repo-cold");
const coldExisting = { label: "hermit deploy --existing (codex, cold, user repo)", command: deployArgs(coldRepo, "--existing"), prepare: () => userRepo(coldRepo) };
const settledRepo = join(scratch, "repo-settled");
await userRepo(settledRepo);
await run(deployArgs(settledRepo, "--existing"));
const beforeExistingNoop = await snapshot(settledRepo);
await compare("existing-noop", { label: "hermit deploy --existing (codex, no-op, user repo)", command: deployArgs(settledRepo, "--existing") }, coldExisting);
await expectUntouched(settledRepo, beforeExistingNoop, "no-op redeploy --existing");

await rm(scratch, { recursive: true, force: true });
await rm(join(source.adapter, ".."), { recursive: true, force: true });
