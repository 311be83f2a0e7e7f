/**
 * `hermit train --evolver reflect` end to end, as a user runs it: the real CLI, the bundled
 * word-counting example (scripted offline agent, real Session and tools), the real AI SDK
 * provider against the stub model server (base URL pointed at it), the real Git store. What the
 * learner wrote must land in the final tag; every call is recorded, metered and priced; a budget
 * stops the run before the call that would pass it, and a resume with a larger one goes on.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { startStubProvider, type StubProvider } from "./stub-provider.js";

const cli = join(repoRoot, "dist", "cli.js");
const KEY = "sk-test-reflect-0123456789";

/** Runs the CLI without blocking this process (the stub model answers from here). */
function hermit(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...cleanEnv(), ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The environment without any provider variable the machine may have. */
function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, HERMIT_TEST_BLOCK: "" };
  for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC|GOOGLE|GEMINI|OLLAMA)_/.test(name)) delete env[name];
  return env;
}

/** Sentences the example's agent understands: they fix the code-block, comment and dash failures. */
const LEARNED = [
  "# Word counting",
  "",
  "You answer questions about the number of words in text files.",
  "",
  "## How to count",
  "",
  "- Use the `count_words` tool on the exact text; do not estimate.",
  "- Report the number alone unless the user asks for more.",
  "- Do not count anything inside fenced code blocks.",
  "- Leave HTML comments out of the count.",
  "- Split words joined by an em dash into two words.",
  "",
].join("\n");

const answer = (text: string) => `Here is the new ADAPTER.md.\n\n\`\`\`\`markdown\n${text}\`\`\`\`\n`;

const baseArgs = (runsDir: string, runId: string, stub: StubProvider) => [
  "train",
  "--adapter",
  join(repoRoot, "examples", "file_adapter"),
  "--template",
  join(repoRoot, "templates", "file_adapter"),
  "--task",
  join(repoRoot, "examples", "wordcount-task", "task.ts"),
  "--evolver",
  "reflect",
  "--learner-model",
  "openai:gpt-5-mini",
  "--learner-base-url",
  `${stub.url}/v1`,
  "--runs-dir",
  runsDir,
  "--run-id",
  runId,
  "--evolver-option",
  "max-output-tokens=2000",
  "--evolver-option",
  "component=round-robin",
  "--json",
];

let stub: StubProvider | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

beforeAll(ensureBuilt, 180_000);

async function callRecords(runDir: string, step: number): Promise<Array<Record<string, unknown>>> {
  const dir = join(runDir, "steps", String(step), "calls");
  const names = (await readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  return Promise.all(names.map(async (name) => JSON.parse(await readFile(join(dir, name), "utf8"))));
}

describe("hermit train --evolver reflect (CLI, stub model)", () => {
  it("the learned text is accepted and lands in the final tag; calls recorded, usage and cost summed", async () => {
    stub = await startStubProvider([{ text: answer(LEARNED), usage: { input: 3000, output: 400 } }]);
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const run = await hermit([...baseArgs(runsDir, "learned", stub), "--steps", "1"], { OPENAI_API_KEY: KEY }, dir);
    expect(run.status, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.status).toBe("completed");
    expect(json.steps).toEqual([expect.objectContaining({ step: 1, status: "accepted", summary: expect.stringMatching(/^rewrote ADAPTER\.md/) })]);
    expect(json.test.final).toBeGreaterThan(json.test.base);

    // What the model wrote is the final version's ADAPTER.md.
    const final = execFileSync("git", ["--git-dir", join(runsDir, "versions.git"), "show", "hermit/learned/final:ADAPTER.md"], { encoding: "utf8" });
    expect(final).toBe(LEARNED);

    // The learner saw the failing rollouts' feedback.
    expect(stub.requests).toHaveLength(1);
    const sent = JSON.stringify(stub.requests[0]!.body);
    expect(sent).toMatch(/expected \d+ \(\d+ too many\)/);
    expect(stub.requests[0]!.path).toBe("/v1/responses");

    // One call record: model, usage as reported, cost from the shipped table, no key.
    const runDir = join(runsDir, "learned");
    const [call, ...more] = await callRecords(runDir, 1);
    expect(more).toEqual([]);
    const cost = (3000 * 0.25 + 400 * 2) / 1_000_000;
    expect(call).toMatchObject({ index: 1, role: "learning", model: "openai:gpt-5-mini", status: "ok", usage: { input: 3000, output: 400 }, response: { finishReason: "stop" } });
    expect(call!.costUsd).toBeCloseTo(cost, 12);
    expect(JSON.stringify(call)).not.toContain(KEY);

    // Step and run records, --json and runs show carry the learning usage.
    const step = JSON.parse(await readFile(join(runDir, "steps", "1", "step.json"), "utf8"));
    expect(step.evolver.calls).toMatchObject({ count: 1, usage: { known: { inputTokens: 3000, outputTokens: 400 }, reported: { inputTokens: 1, outputTokens: 1, costUsd: 1 }, sources: 1 } });
    expect(step.validation.candidate).toEqual(expect.any(Object));
    const record = JSON.parse(await readFile(join(runDir, "run.json"), "utf8"));
    expect(record.usageByRole.learning.known.costUsd).toBeCloseTo(cost, 12);
    expect(json.usage.learning.costUsd.value).toBeCloseTo(cost, 12);
    expect(json.usage.learning.inputTokens.value).toBe(3000);
    // The example's rollouts report no usage: unknown, with the reason, never 0.
    expect(json.usage.acting.costUsd).toMatchObject({ value: null, reason: expect.stringMatching(/did not report/) });
    const show = await hermit(["runs", "show", "learned", "--runs-dir", runsDir], {}, dir);
    expect(show.stdout).toContain("learner: openai:gpt-5-mini");
    expect(show.stdout).toMatch(/learning 3000 in \/ 400 out tokens, cost \$0\.001[56]/);
    expect(show.stdout).toMatch(/acting unknown: none of \d+ rollouts reported tokens or cost/);
    expect(await readFile(join(runDir, "CARD.md"), "utf8")).toMatch(/\| learner \| `openai:gpt-5-mini`: 3000 in \/ 400 out tokens, cost \$0\.001[56] \|/);
  }, 240_000);

  it("examples/train-reflect.yaml runs as documented, the learner pointed at the stub", async () => {
    stub = await startStubProvider([{ text: answer(LEARNED), usage: { input: 3000, output: 400 } }]);
    const dir = await tempDir();
    const config = join(repoRoot, "examples", "train-reflect.yaml");
    const args = ["train", "--config", config, "--learner-base-url", `${stub.url}/v1`, "--runs-dir", join(dir, "runs"), "--run-id", "example", "--steps", "1", "--evolver-option", "component=round-robin", "--json"];
    const run = await hermit(args, { OPENAI_API_KEY: KEY }, dir);
    expect(run.status, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({ status: "completed", steps: [{ step: 1, status: "accepted" }] });
    expect(stub.requests[0]!.body).toMatchObject({ model: "gpt-5-mini", max_output_tokens: 8000 });
    // reflect screens by default: the candidate acted on the step's train instances first, and passed.
    const step = JSON.parse(await readFile(join(dir, "runs", "example", "steps", "1", "step.json"), "utf8"));
    expect(step.screening).toMatchObject({ passed: true, instances: 8 });
    expect(step.screening.candidateScore).toBeGreaterThan(step.screening.acceptedScore);
  }, 240_000);

  it("a rewrite that does not beat the accepted version on the acting batch is screened out, without validation rollouts", async () => {
    const idle = LEARNED.split("\n").filter((line) => !line.startsWith("- Do not count") && !line.startsWith("- Leave") && !line.startsWith("- Split")).join("\n") + "- Be polite.\n";
    stub = await startStubProvider([{ text: answer(idle) }]);
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const run = await hermit([...baseArgs(runsDir, "screened", stub), "--steps", "1"], { OPENAI_API_KEY: KEY }, dir);
    expect(run.status, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.steps).toEqual([expect.objectContaining({ status: "screened-out", summary: expect.stringMatching(/\(screened out: [\d.]+ against the accepted version's [\d.]+ on the 8 acting rollout\(s\)\)$/) })]);
    const stepDir = join(runsDir, "screened", "steps", "1");
    expect((await readdir(join(stepDir, "screen"))).filter((name) => !name.endsWith(".audit.jsonl"))).toHaveLength(8);
    expect(await stat(join(stepDir, "val", "candidate")).catch(() => undefined)).toBeUndefined();
    expect(JSON.parse(await readFile(join(stepDir, "step.json"), "utf8")).screening).toMatchObject({ passed: false, instances: 8 });
  }, 240_000);

  it("--dry-run checks the inputs and prints the plan; nothing is written, no call is made", async () => {
    stub = await startStubProvider([{ text: answer(LEARNED) }]);
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const run = await hermit([...baseArgs(runsDir, "planned", stub), "--steps", "3", "--max-cost-usd", "learning=0.5", "--dry-run"], { OPENAI_API_KEY: KEY }, dir);
    expect(run.status, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan).toMatchObject({
      task: "wordcount",
      evolver: "reflect",
      steps: 3,
      splits: { train: 8, val: 6, test: 8 },
      perStep: { acting: 8, screening: 8, validation: 6 },
      screen: true,
      firstValidation: 6,
      finalTest: 16,
      maxRollouts: 3 * 22 + 6 + 16,
      learner: { model: "openai:gpt-5-mini", baseUrl: `${stub.url}/v1`, key: "OPENAI_API_KEY", price: { input: 0.25, output: 2 }, costKnown: true },
      budgets: { maxCostUsd: { learning: 0.5 } },
    });
    expect(await stat(runsDir).catch(() => undefined)).toBeUndefined();
    expect(stub.requests).toHaveLength(0);
    const missing = await hermit([...baseArgs(runsDir, "planned", stub), "--dry-run"], {}, dir);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/set OPENAI_API_KEY/);
  }, 60_000);

  it("a provider 500 on every attempt fails the step and the run goes on; a 429 is retried (--learner-retries)", async () => {
    // Round-robin: step 1 proposes ADAPTER.md (its call fails), step 2 the next component, the verify-output skill.
    const skill = "---\nname: verify-output\ndescription: Check a computed word count before reporting it. Use after counting words in a file.\n---\n# Verify output\n\nDo not count anything inside fenced code blocks.\nLeave HTML comments out of the count.\n";
    stub = await startStubProvider([{ status: 500 }, { status: 500 }, { status: 429, retryAfterMs: 50 }, { text: answer(skill) }]);
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const run = await hermit([...baseArgs(runsDir, "flaky", stub), "--steps", "2", "--learner-retries", "1", "--screen", "off"], { OPENAI_API_KEY: KEY }, dir);
    expect(run.status, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.status).toBe("completed");
    expect(json.steps.map((step: { status: string }) => step.status)).toEqual(["failed", "accepted"]);
    expect(json.steps[1].summary).toMatch(/^rewrote skills\/verify-output\/SKILL\.md/);
    expect(json.steps[0].summary).toMatch(/the learner model failed: .*HTTP 500.*\(gave up after 2 attempts\)/);
    const [failed] = await callRecords(join(runsDir, "flaky"), 1);
    expect(failed).toMatchObject({ status: "error", attempts: [{ status: 500 }, { status: 500 }] });
    const [retried] = await callRecords(join(runsDir, "flaky"), 2);
    expect(retried).toMatchObject({ status: "ok", attempts: [{ status: 429 }, { status: 200 }] });
    // The failed call reported nothing: the learning usage is a lower bound, with the reason.
    expect(json.usage.learning.inputTokens).toMatchObject({ value: null, reason: "1 of 2 sources did not report token counts" });
  }, 300_000);

  it("a missing key is a usage error naming the variable, before anything is written", async () => {
    stub = await startStubProvider([{ text: answer(LEARNED) }]);
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const run = await hermit([...baseArgs(runsDir, "nokey", stub), "--steps", "1"], {}, dir);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/USAGE: .*--learner-model 'openai:gpt-5-mini' needs an API key: set OPENAI_API_KEY/);
    expect(await stat(runsDir).catch(() => undefined)).toBeUndefined();
    expect(stub.requests).toHaveLength(0);
  }, 60_000);

  it("a USD budget stops the run with status budget before the call that would pass it; a resume with a larger one goes on", async () => {
    // Each answer reports 100k input tokens ($0.025 at gpt-5-mini's price): step 1's call fits a
    // $0.0252 learning budget, step 2's worst case does not.
    stub = await startStubProvider(() => ({ text: answer(LEARNED), usage: { input: 100_000, output: 0 } }));
    const dir = await tempDir();
    const runsDir = join(dir, "runs");
    const first = await hermit([...baseArgs(runsDir, "budget", stub), "--steps", "3", "--max-cost-usd", "learning=0.0252", "--screen", "off"], { OPENAI_API_KEY: KEY }, dir);
    expect(first.status, first.stderr).toBe(0);
    const json = JSON.parse(first.stdout);
    expect(json.status).toBe("budget");
    expect(json.reason).toMatch(/learning cost budget: \$0\.0250 of \$0\.0252 spent, and the next call may cost up to \$0\.0\d+/);
    expect(json.steps.map((step: { status: string }) => step.status)).toEqual(["accepted", "failed"]);
    expect(json.steps[1].summary).toMatch(/^budget reached: a learner call was not made/);
    expect(stub.requests).toHaveLength(1);
    const refused = await callRecords(join(runsDir, "budget"), 2);
    expect(refused).toEqual([expect.objectContaining({ status: "refused", error: expect.stringMatching(/^not made: learning cost budget/) })]);
    expect(JSON.parse(await readFile(join(runsDir, "budget", "run.json"), "utf8")).status).toBe("budget");

    const resumed = await hermit(["train", "--resume", "budget", "--runs-dir", runsDir, "--max-cost-usd", "learning=1", "--json"], { OPENAI_API_KEY: KEY }, dir);
    expect(resumed.status, resumed.stderr).toBe(0);
    const after = JSON.parse(resumed.stdout);
    expect(after.status).toBe("completed");
    expect(after.steps).toHaveLength(3);
    expect(stub.requests).toHaveLength(2);
    expect(after.usage.learning.costUsd.value).toBeCloseTo(0.05, 9);
  }, 300_000);

  it("a budget in USD for a model without a price is refused, naming --price", async () => {
    stub = await startStubProvider([{ text: answer(LEARNED) }]);
    const dir = await tempDir();
    const args = baseArgs(join(dir, "runs"), "unpriced", stub).map((arg) => (arg === "openai:gpt-5-mini" ? "openai:my-finetune" : arg));
    const run = await hermit([...args, "--max-cost-usd", "1"], { OPENAI_API_KEY: KEY }, dir);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--max-cost-usd: the learner model openai:my-finetune has no price .*--price openai:my-finetune=IN\/OUT/);
  }, 60_000);
});
