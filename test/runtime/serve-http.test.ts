import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, fixtureAdapter, hermitCli } from "./fixture.js";
import { connectHttp, serveArgs, serverSuite, startHttp } from "./server-suite.js";

serverSuite("Streamable HTTP", (setup) => connectHttp(serveArgs(setup)));

/** A raw HTTP request; `host` overrides the Host header. */
function post(url: URL, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("hermit serve over HTTP, malformed and foreign requests", () => {
  let server: Awaited<ReturnType<typeof startHttp>>;

  beforeAll(async () => {
    await ensureBuilt();
    server = await startHttp([hermitCli, "serve", "--adapter", await fixtureAdapter()]);
  });
  afterAll(() => {
    server?.child.kill("SIGTERM");
  });

  it("listens on the loopback address only", () => {
    expect(server.url.hostname).toBe("127.0.0.1");
  });

  it("answers malformed JSON with a parse error and keeps serving", async () => {
    const garbage = await post(server.url, "{ not json");
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const noSession = await post(server.url, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    expect(noSession.status).toBe(400);
    expect(JSON.parse(noSession.body)).toMatchObject({ error: { code: -32600 } });
    const unknownSession = await post(server.url, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', {
      "mcp-session-id": "no-such-session",
    });
    expect(unknownSession.status).toBe(404);
    const ok = await post(server.url, initialize);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ id: 1, result: { serverInfo: { name: "runtime-fixture" } } });
    expect(server.child.exitCode).toBeNull();
  });

  it("refuses a foreign Host header (DNS rebinding)", async () => {
    const foreign = await post(server.url, initialize, { host: "attacker.example:80" });
    expect(foreign.status).toBe(403);
    const wrongPath = await post(new URL("/other", server.url), initialize);
    expect(wrongPath.status).toBe(404);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    server.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
