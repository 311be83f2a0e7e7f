/**
 * `hermit verify --exercise-tools`: each adapter tool called once through the real host, the
 * call found in hermit's audit log, the server's answer found in a later model request. First
 * the judging, on a conversation driven by the Anthropic SDK (what a host does); then the real
 * hosts, one at a time.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import { hermitCli } from "../../src/package-root.js";
import { exerciseAgent, judgeExercise } from "../../src/verify/exercise.js";
import { recipes } from "../../src/verify/recipes/index.js";
import { startStubModel } from "../../src/verify/stub-model.js";
import type { VerifyReport } from "../../src/verify/verify.js";
import { runCli } from "../cli/run-cli.js";
import { hostBinDir, readTree, skipBecause, tempDir } from "../helpers.js";
import { ALL_HOSTS, adapterFor, hostBin, missingReason, verifyProcesses } from "./fixtures.js";

const SDK = join(hostBinDir, "..", "@anthropic-ai", "sdk");
const noSdk = existsSync(join(SDK, "package.json")) ? undefined : `@anthropic-ai/sdk is not in ${join(hostBinDir, "..")} (it comes with the host CLIs)`;

describe("judging an exercise", () => {
  const tools = [{ server: "file-example", name: "count_words", counted: true }];
  const recipe = recipes["claude-code"];

  /** A host's turn loop, by the SDK: the stub's agent calls the tool; the "host" answers with `answer`. */
  async function conversation(answer: string) {
    const stub = await startStubModel({ agent: exerciseAgent(tools, recipe) });
    try {
      const { default: Anthropic } = await import(pathToFileURL(join(SDK, "index.mjs")).href);
      const client = new Anthropic({ apiKey: "x", baseURL: stub.url, maxRetries: 0 });
      const offered = [{ name: "mcp__file-example__count_words", description: "count", input_schema: { type: "object", properties: { text: { type: "string" }, extra: { type: "string" } }, required: ["text"] } }];
      const messages: unknown[] = [{ role: "user", content: "go" }];
      const first = await client.messages.create({ model: "m", max_tokens: 64, tools: offered, messages });
      const call = first.content.find((block: { type: string }) => block.type === "tool_use");
      expect(call.input).toEqual({ text: "hermit verify" });
      await client.messages.create({
        model: "m",
        max_tokens: 64,
        tools: offered,
        messages: [...messages, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: answer }] }],
      });
      return [...stub.requests];
    } finally {
      await stub.close();
    }
  }

  it.skipIf(skipBecause(noSdk))("passes when the server ran the call and its result came back (re-encoded: JSON in JSON)", async () => {
    const requests = await conversation(JSON.stringify({ output: '{\n  "count": 2\n}' }));
    const [tool] = judgeExercise(tools, recipe, requests, [{ tool: "count_words", ok: true, result: { count: 2 } }]);
    expect(tool).toMatchObject({ tool: "count_words", offeredAs: "mcp__file-example__count_words", calledIn: 1, reachedServer: true, returnedIn: 2, passed: true });
  });

  it.skipIf(skipBecause(noSdk))("fails, saying why, when the server has no record or another answer came back", async () => {
    const requests = await conversation('{"count":7}');
    expect(judgeExercise(tools, recipe, requests, [])[0]).toMatchObject({ passed: false, reachedServer: false, reason: expect.stringMatching(/no record of the call/) });
    expect(judgeExercise(tools, recipe, requests, [{ tool: "count_words", ok: true, result: { count: 2 } }])[0]).toMatchObject({
      passed: false,
      reachedServer: true,
      reason: expect.stringMatching(/no later request carried its result/),
    });
    expect(judgeExercise([{ server: "other", name: "t", counted: true }], recipe, requests, [])[0]!.reason).toMatch(/never offered it/);
  });
});

describe.sequential("hermit verify --exercise-tools with the real hosts", () => {
  for (const host of ALL_HOSTS) {
    const bin = hostBin(host);
    it.skipIf(skipBecause(bin ? undefined : missingReason(host)) || !existsSync(hermitCli))(
      `${host}: ${host === "pi" ? "the tool is best-effort: reported as never offered, not counted" : "the tool's call reached hermit's server and its result came back to the model"}`,
      async () => {
        const adapter = await adapterFor(host);
        const workspace = await tempDir(`hermit-vexercise-${host}-`);
        await deploy({ adapter, workspace, host });
        const tmp = await tempDir("hermit-vtmp-");
        const before = await readTree(workspace);
        const run = await runCli(["verify", "--workspace", workspace, "--json", "--exercise-tools", "--host-bin", bin!], { env: { ...process.env, TMPDIR: tmp } });
        const report = JSON.parse(run.stdout) as VerifyReport;
        expect(report.passed, run.stdout.slice(0, 2000)).toBe(true);
        expect(run.code).toBe(0);
        const [tool] = report.exercise!;
        if (host === "pi") {
          expect(tool).toMatchObject({ tool: "count_words", counted: false, passed: false, reachedServer: false });
        } else {
          expect(tool).toMatchObject({ tool: "count_words", counted: true, passed: true, reachedServer: true, served: { ok: true, result: { count: 2 } } });
          expect(tool!.returnedIn).toBeGreaterThan(tool!.calledIn!);
        }
        expect(verifyProcesses(tmp)).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
        expect(await readTree(workspace)).toEqual(before);
      },
      240_000,
    );
  }
});

