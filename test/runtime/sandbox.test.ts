import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapArguments } from "../../src/sandbox/bwrap.js";
import { Session } from "../../src/runtime/session.js";
import { noBwrap, skipBecause, tempDir, testdir } from "../helpers.js";
import { ensureBuilt, failure, fixtureAdapter, fixtureTree } from "./fixture.js";


describe("bwrapArguments", () => {
  it("mounts parents before children, so the adapter stays read-only inside a writable evidence folder", () => {
    const args = bwrapArguments({
      readOnly: ["/usr", "/work/run/evidence/adapter"],
      writable: ["/work/run/evidence"],
      symlinks: [{ path: "/bin", target: "usr/bin" }],
      env: { PATH: "/usr/bin" },
      cwd: "/work/run/evidence/adapter",
    });
    expect(args).toEqual([
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--clearenv",
      "--setenv",
      "PATH",
      "/usr/bin",
      "--symlink",
      "usr/bin",
      "/bin",
      "--ro-bind",
      "/usr",
      "/usr",
      "--bind",
      "/work/run/evidence",
      "/work/run/evidence",
      "--ro-bind",
      "/work/run/evidence/adapter",
      "/work/run/evidence/adapter",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--remount-ro",
      "/",
      "--chdir",
      "/work/run/evidence/adapter",
      "--",
    ]);
  });
});

describe("Session without bubblewrap", () => {
  it("refuses with SANDBOX_UNAVAILABLE instead of running unsandboxed", async () => {
    const path = process.env.PATH;
    process.env.PATH = await tempDir(); // an empty folder: no bwrap on PATH
    try {
      const session = new Session(await fixtureAdapter(), { sandbox: true });
      const error = await failure(session.call("count_words", { text: "a" }));
      expect(error.code).toBe("SANDBOX_UNAVAILABLE");
      expect(error.message).toContain("no 'bwrap' is on PATH");
      await session.close();
    } finally {
      process.env.PATH = path;
    }
  });
});

describe.skipIf(skipBecause(noBwrap))("Session with sandbox: true (bubblewrap)", () => {
  let adapter: string;
  let outside: string;
  let evidence: string;
  let listener: Server;
  let port: number;
  let sandboxed: Session;
  let unsandboxed: Session;

  beforeAll(async () => {
    await ensureBuilt();
    adapter = await fixtureAdapter();
    outside = await tempDir();
    evidence = join(await tempDir(), "evidence");
    // A TCP server the test runs itself, on the host's loopback.
    listener = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as AddressInfo).port;
    sandboxed = new Session(adapter, { sandbox: true, evidence, resources: { team: "red" }, timeoutMs: 1500 });
    unsandboxed = new Session(adapter, { evidence, timeoutMs: 1500 });
  });
  afterAll(async () => {
    await sandboxed?.close();
    await unsandboxed?.close();
    listener?.close();
  });

  it("runs the tools over MCP with the same results and resources", async () => {
    expect(await sandboxed.call("count_words", { text: "a b c" })).toEqual({ count: 3 });
    expect(await sandboxed.call("upper", { text: "a" })).toBe("A");
    expect(await sandboxed.call("twice_js", { text: "b" })).toEqual({ text: "b b" });
    expect(await sandboxed.call("show_resources", { label: "s" })).toEqual({
      label: "s",
      resources: { team: "red", evidence },
    });
    expect(await sandboxed.respond({ type: "tool_use", id: "t", name: "count_words", input: { text: "x" } })).toEqual({
      type: "tool_result",
      tool_use_id: "t",
      content: '{"count":1}',
    });
  });

  it("keeps the error codes of failed calls", async () => {
    expect((await failure(sandboxed.call("fail", { reason: "s" }))).code).toBe("TOOL_FAILED");
    expect((await failure(sandboxed.call("count_words", { text: 1 }))).code).toBe("TOOL_ARGUMENTS_INVALID");
    expect((await failure(sandboxed.call("spin"))).code).toBe("TOOL_TIMEOUT");
    expect(await sandboxed.call("count_words", { text: "alive" })).toEqual({ count: 1 });
  });

  it("lets a tool write into the evidence directory", async () => {
    const file = join(evidence, "inside.txt");
    expect(await sandboxed.call("write_file", { path: file, text: "evidence" })).toEqual({ written: file });
    expect(await readFile(file, "utf8")).toBe("evidence");
  });

  it("stops a tool writing outside the evidence directory; unsandboxed, the same write succeeds", async () => {
    const file = join(outside, "escaped.txt");
    const error = await failure(sandboxed.call("write_file", { path: file, text: "escaped" }));
    expect(error.code).toBe("TOOL_FAILED");
    expect(error.message).toMatch(/ENOENT|EROFS|EACCES/);
    expect(existsSync(file)).toBe(false);

    // The evidence folder's parent is visible in the sandbox (it holds the mount), yet read-only.
    const sibling = join(dirname(evidence), "sibling.txt");
    expect((await failure(sandboxed.call("write_file", { path: sibling, text: "x" }))).message).toMatch(/EROFS/);
    expect(existsSync(sibling)).toBe(false);

    const intoAdapter = await failure(sandboxed.call("write_file", { path: join(adapter, "tools.ts"), text: "" }));
    expect(intoAdapter.message).toMatch(/EROFS/);
    expect(await readFile(join(adapter, "tools.ts"), "utf8")).toBe(fixtureTree()["tools.ts"]);

    expect(await unsandboxed.call("write_file", { path: file, text: "escaped" })).toEqual({ written: file });
    expect(await readFile(file, "utf8")).toBe("escaped");
  });

  it("stops a tool connecting to the network; unsandboxed, the same connection succeeds", async () => {
    const error = await failure(sandboxed.call("connect", { port }));
    expect(error.code).toBe("TOOL_FAILED");
    expect(error.message).toMatch(/ECONNREFUSED|ENETUNREACH/);
    expect(await unsandboxed.call("connect", { port })).toEqual({ received: "hello from the host" });
  });

  it("reports a missing tool function from inside the sandbox", async () => {
    const tree = fixtureTree();
    const broken = await testdir({ ...tree, "tools.ts": (tree["tools.ts"] as string).replace("export function spin(", "function spin(") });
    const session = new Session(broken, { sandbox: true });
    const error = await failure(session.context());
    expect(error.code).toBe("ADAPTER_INVALID");
    expect(error.message).toContain("tool 'spin' (entrypoint tools.ts:spin): tools.ts has no exported function 'spin'");
    await session.close();
  });
});
