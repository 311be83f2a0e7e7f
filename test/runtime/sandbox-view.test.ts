/**
 * What a sandboxed tool can see and reach: only what it needs to run (no task data, no run
 * directories, no home, no /etc/shadow), and each extra a `Sandbox` object grants — read,
 * write, network, environment — reported in the audit log's first line.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo, type Server } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/package-root.js";
import { Session } from "../../src/runtime/session.js";
import { bwrap, hasBwrap, tempDir, testdir } from "../helpers.js";
import { ensureBuilt, failure } from "./fixture.js";

if (!bwrap.available) console.warn(`sandbox-view: skipped: ${bwrap.reason}`);

const TOOLS = `import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";

export function visible({ paths }: { paths: string[] }) {
  return Object.fromEntries(paths.map((path) => [path, existsSync(path)]));
}

export function readText({ path }: { path: string }) {
  return readFileSync(path, "utf8");
}

export function writeText({ path, text }: { path: string; text: string }) {
  writeFileSync(path, text);
  return "written";
}

export function env({ name }: { name: string }) {
  return process.env[name] ?? null;
}

export function connectTo({ port }: { port: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (data += chunk));
    socket.on("end", () => resolve(data.trim()));
    socket.on("error", reject);
  });
}
`;

function tree() {
  const tool = (name: string, fn: string) => ({ name, description: `The ${name} tool.`, entrypoint: `tools.ts:${fn}`, input_schema: { type: "object" } });
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "viewer",
      version: "0.0.1",
      description: "Looks around.",
      exports: {
        tools: [tool("visible", "visible"), tool("read_text", "readText"), tool("write_text", "writeText"), tool("env", "env"), tool("connect", "connectTo")],
      },
    }),
    "ADAPTER.md": "# Viewer\n",
    "tools.ts": TOOLS,
  };
}

describe.skipIf(!hasBwrap)("what a sandboxed tool sees", () => {
  let adapter: string;
  let evidence: string;
  let runs: string;
  let session: Session;

  beforeAll(async () => {
    await ensureBuilt();
    adapter = await testdir(tree());
    const run = await tempDir();
    // A run directory as the Trainer lays it out: this rollout's evidence, a sibling's, the run's records.
    runs = join(run, "runs");
    evidence = join(runs, "r1", "steps", "0", "rollouts", "a");
    await mkdir(join(runs, "r1", "steps", "0", "rollouts", "b"), { recursive: true });
    await writeFile(join(runs, "r1", "steps", "0", "rollouts", "b", "answer.txt"), "another rollout's evidence");
    await writeFile(join(runs, "r1", "run.json"), "{}");
    session = new Session(adapter, { sandbox: true, evidence, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("cannot see the task's data, the run directory, the user's home or /etc/shadow", async () => {
    const taskData = join(packageRoot, "examples", "wordcount-task", "data.json");
    const homeFile = (await readdir(homedir(), { withFileTypes: true })).find((entry) => entry.isFile());
    const secrets = [
      taskData,
      join(packageRoot, "examples"),
      join(packageRoot, "templates"),
      join(packageRoot, "src"),
      join(runs, "r1", "run.json"),
      join(runs, "r1", "steps", "0", "rollouts", "b", "answer.txt"),
      "/etc/shadow",
      "/etc/hostname",
      ...(homeFile ? [join(homedir(), homeFile.name)] : []),
    ];
    for (const path of secrets) expect(existsSync(path), `${path} exists on the host`).toBe(true);
    const seen = (await session.call("visible", { paths: secrets })) as Record<string, boolean>;
    expect(Object.entries(seen).filter(([, visible]) => visible)).toEqual([]);
  });

  it("sees what it needs to run: the adapter, hermit's runtime files, a made-up /etc/passwd", async () => {
    const needed = [join(adapter, "tools.ts"), join(packageRoot, "dist", "runtime", "tool-host.js"), evidence, "/usr/bin", "/etc/passwd"];
    expect(await session.call("visible", { paths: needed })).toEqual(Object.fromEntries(needed.map((path) => [path, true])));
    const passwd = (await session.call("read_text", { path: "/etc/passwd" })) as string;
    expect(passwd.split("\n").filter(Boolean)).toHaveLength(2); // the user the tools run as, and nobody
    expect(passwd).not.toContain("daemon:");
  });
});

describe.skipIf(!hasBwrap)("a Sandbox object grants more, each grant explicit", () => {
  let listener: Server;
  let port: number;
  let readable: string;
  let writable: string;
  let evidence: string;

  beforeAll(async () => {
    await ensureBuilt();
    listener = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as AddressInfo).port;
    readable = await tempDir();
    await writeFile(join(readable, "corpus.txt"), "granted text");
    writable = await tempDir();
    evidence = join(await tempDir(), "evidence");
    process.env.HERMIT_TEST_GRANTED = "granted value";
  });
  afterAll(() => {
    listener?.close();
    delete process.env.HERMIT_TEST_GRANTED;
  });

  it("the strict sandbox: none of them", async () => {
    const session = new Session(await testdir(tree()), { sandbox: true, evidence, timeoutMs: 5000 });
    try {
      expect((await failure(session.call("read_text", { path: join(readable, "corpus.txt") }))).message).toMatch(/ENOENT/);
      expect((await failure(session.call("write_text", { path: join(writable, "out.txt"), text: "x" }))).message).toMatch(/ENOENT|EROFS/);
      expect(await session.call("env", { name: "HERMIT_TEST_GRANTED" })).toBeNull();
      expect((await failure(session.call("connect", { port }))).message).toMatch(/ECONNREFUSED|ENETUNREACH/);
    } finally {
      await session.close();
    }
  });

  it("read, write, env and network when granted, and the audit log's first line lists them", async () => {
    const auditLog = join(await tempDir(), "audit.jsonl");
    const sandbox = { network: true, read: [readable], write: [writable], env: ["HERMIT_TEST_GRANTED"] };
    const session = new Session(await testdir(tree()), { sandbox, evidence, auditLog, timeoutMs: 5000 });
    try {
      expect(await session.call("read_text", { path: join(readable, "corpus.txt") })).toBe("granted text");
      expect((await failure(session.call("write_text", { path: join(readable, "x.txt"), text: "x" }))).message).toMatch(/EROFS/);
      expect(await session.call("write_text", { path: join(writable, "out.txt"), text: "written" })).toBe("written");
      expect(await readFile(join(writable, "out.txt"), "utf8")).toBe("written");
      expect(await session.call("env", { name: "HERMIT_TEST_GRANTED" })).toBe("granted value");
      expect(await session.call("connect", { port })).toBe("hello from the host");
    } finally {
      await session.close();
    }
    const header = JSON.parse((await readFile(auditLog, "utf8")).split("\n")[0]!) as { session: Record<string, unknown> };
    expect(header.session.sandbox).toEqual(sandbox);
    expect(header.session.evidence).toBe(evidence);
  });

  it("refuses a grant that names nothing, or a setting it does not know", async () => {
    const adapter = await testdir(tree());
    const refused = async (sandbox: unknown) => (await failure(new Session(adapter, { sandbox: sandbox as never }).context())).message;
    expect(await refused({ read: ["/no/such/folder"] })).toContain("sandbox.read: /no/such/folder is not an existing file or folder");
    expect(await refused({ write: [join(readable, "corpus.txt")] })).toContain("is not an existing folder");
    expect(await refused({ env: ["NOT-A-NAME"] })).toContain("'NOT-A-NAME' is not an environment variable name");
    expect(await refused({ netwrok: true })).toContain("sandbox.netwrok is not a sandbox setting");
    expect(await refused({ network: "yes" })).toContain("sandbox.network must be true or false");
  });
});
