/**
 * A test adapter whose tools exercise the runtime: sync and async tools, throwing and
 * rejecting ones, slow and blocking ones, results that break their schema, resources,
 * TypeScript and JavaScript entrypoints, a dependency in the adapter's own node_modules,
 * console noise, and file and network access (for the sandbox).
 */
import { stat } from "node:fs/promises";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { stringify } from "yaml";
import { expect } from "vitest";
import { HermitError } from "../../src/errors.js";
import type { FileTree } from "../helpers.js";

const repoRoot = join(import.meta.dirname, "..", "..");
export const hermitCli = join(repoRoot, "dist", "cli.js");

/** Build dist/ once per test file when it is missing (tests that spawn `hermit serve` need it). */
export async function ensureBuilt(): Promise<void> {
  if (await stat(hermitCli).catch(() => undefined)) return;
  await promisify(execFile)("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repoRoot }).catch(() => undefined);
  if (!(await stat(hermitCli).catch(() => undefined))) throw new Error(`${hermitCli} is missing: run npm run build`);
}

/** A closed object schema (every property required unless `required` says otherwise). */
export const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

/** The declared tools, exactly as written into adapter.yaml (tests compare listings to these). */
export const declaredTools = [
  {
    name: "count_words",
    description: "Count the words in a text.",
    entrypoint: "tools.ts:countWords",
    input_schema: object({ text: { type: "string", description: "The text." } }),
    output_schema: object({ count: { type: "integer", minimum: 0 } }),
  },
  {
    name: "echo_later",
    description: "Echo a text after a delay (async).",
    entrypoint: "tools.ts:echoLater",
    input_schema: object({ text: { type: "string" }, delayMs: { type: "integer", minimum: 0 } }, ["text"]),
    output_schema: object({ text: { type: "string" } }),
  },
  {
    name: "fail",
    description: "Throw an error (sync).",
    entrypoint: "tools.ts:fail",
    input_schema: object({ reason: { type: "string" } }),
  },
  {
    name: "reject",
    description: "Reject (async).",
    entrypoint: "tools.ts:reject",
    input_schema: object({ reason: { type: "string" } }),
  },
  {
    name: "sleep",
    description: "Resolve after ms milliseconds (async).",
    entrypoint: "tools.ts:sleep",
    input_schema: object({ ms: { type: "integer", minimum: 0 } }),
  },
  {
    name: "spin",
    description: "Block the thread forever (sync loop).",
    entrypoint: "tools.ts:spin",
    input_schema: { type: "object" },
  },
  {
    name: "spin_later",
    description: "Await, then block the thread forever (the loop runs in a continuation).",
    entrypoint: "tools.ts:spinLater",
    input_schema: { type: "object" },
  },
  {
    name: "bad_output",
    description: "Return a result that breaks its output schema.",
    entrypoint: "tools.ts:badOutput",
    input_schema: { type: "object" },
    output_schema: object({ count: { type: "integer" } }),
  },
  {
    name: "upper",
    description: "Upper-case a text; returns a plain string.",
    entrypoint: "tools.ts:upper",
    input_schema: object({ text: { type: "string" } }),
  },
  {
    name: "noisy",
    description: "Write to console.log and console.error, then answer.",
    entrypoint: "tools.ts:noisy",
    input_schema: { type: "object" },
  },
  {
    name: "show_resources",
    description: "Return the resources it receives (second parameter).",
    entrypoint: "tools.ts:showResources",
    input_schema: object({ label: { type: "string" }, _resources: { type: "object" } }, ["label", "_resources"]),
  },
  {
    name: "destructured_resources",
    description: "Return the evidence directory (destructured _resources).",
    entrypoint: "tools.ts:destructuredResources",
    input_schema: object({ label: { type: "string" } }),
  },
  {
    name: "no_resources",
    description: "Report whether a second argument arrived.",
    entrypoint: "tools.ts:noResources",
    input_schema: { type: "object" },
  },
  {
    name: "count_calls",
    description: "Count how often this module's counter was bumped (module state).",
    entrypoint: "tools.ts:countCalls",
    input_schema: { type: "object" },
  },
  {
    name: "stray_error",
    description: "Answer, then throw from a timer and reject an unawaited promise.",
    entrypoint: "tools.ts:strayError",
    input_schema: { type: "object" },
  },
  {
    name: "write_file",
    description: "Write text to an absolute path.",
    entrypoint: "tools.ts:writeText",
    input_schema: object({ path: { type: "string" }, text: { type: "string" } }),
    output_schema: object({ written: { type: "string" } }),
  },
  {
    name: "connect",
    description: "Open a TCP connection to 127.0.0.1:port and read one line.",
    entrypoint: "tools.ts:connectTo",
    input_schema: object({ port: { type: "integer" } }),
  },
  {
    name: "shout_mjs",
    description: "A JavaScript (.mjs) tool.",
    entrypoint: "lib/shout.mjs:shout",
    input_schema: object({ text: { type: "string" } }),
  },
  {
    name: "twice_js",
    description: "A JavaScript (.js) tool that uses a package from the adapter's node_modules.",
    entrypoint: "lib/twice.js:twice",
    input_schema: object({ text: { type: "string" } }),
  },
];

const TOOLS_TS = `import { writeFileSync } from "node:fs";
import { connect } from "node:net";

export function countWords(input: { text: string }): { count: number } {
  return { count: input.text.split(/\\s+/u).filter((word) => word.length > 0).length };
}

export async function echoLater({ text, delayMs = 0 }: { text: string; delayMs?: number }) {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  return { text };
}

export function fail({ reason }: { reason: string }): never {
  throw new Error(\`boom: \${reason}\`);
}

export async function reject({ reason }: { reason: string }): Promise<never> {
  await Promise.resolve();
  throw new Error(\`rejected: \${reason}\`);
}

export async function sleep({ ms }: { ms: number }) {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { slept: ms };
}

export function spin(): never {
  for (;;) {
    // blocks the thread: only a timeout ends this call
  }
}

export async function spinLater() {
  await new Promise((resolve) => setTimeout(resolve, 10));
  for (;;) {
    // blocks the thread after the call's synchronous part has returned
  }
}

export function badOutput() {
  return { count: "many" };
}

export function upper({ text }: { text: string }): string {
  return text.toUpperCase();
}

export function noisy() {
  console.log("noise on stdout");
  console.error("noise on stderr");
  return { quiet: false };
}

export function showResources(args: { label: string }, _resources: Record<string, unknown>) {
  return { label: args.label, resources: _resources };
}

export const destructuredResources = ({ label, _resources }: { label: string; _resources: { evidence?: string } }) => ({
  label,
  evidence: _resources.evidence ?? null,
});

export function noResources(...args: unknown[]) {
  return { argumentCount: args.length };
}

let calls = 0;
export function countCalls() {
  calls += 1;
  return { calls };
}

export function strayError() {
  setTimeout(() => {
    throw new Error("stray timer error");
  }, 0);
  void Promise.reject(new Error("stray rejection"));
  return { answered: true };
}

export function writeText({ path, text }: { path: string; text: string }) {
  writeFileSync(path, text);
  return { written: path };
}

export function connectTo({ port }: { port: number }): Promise<{ received: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (data += chunk));
    socket.on("end", () => resolve({ received: data.trim() }));
    socket.on("error", (error) => reject(error));
  });
}
`;

/** The adapter's files. */
export function fixtureTree(): FileTree {
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "runtime-fixture",
      version: "1.2.3",
      description: "Tools that exercise hermit's runtime.",
      exports: { context: "ADAPTER.md", agents: "agents", skills: "skills", tools: declaredTools },
    }),
    "ADAPTER.md": "# Runtime fixture\n\nUse the tools.\n",
    "agents/checker.md": "---\nname: checker\ndescription: Checks results.\n---\nCheck every result twice.\n",
    "skills/recount/SKILL.md": "---\nname: recount\ndescription: Count again.\n---\nCount the words again.\n",
    "tools.ts": TOOLS_TS,
    "lib/shout.mjs": "export function shout({ text }) {\n  return `${text}!`;\n}\n",
    "lib/twice.js": 'import { repeat } from "repeat-text";\n\nexport function twice({ text }) {\n  return { text: repeat(text, 2) };\n}\n',
    "node_modules/repeat-text/package.json": JSON.stringify({ name: "repeat-text", version: "1.0.0", main: "index.js" }),
    "node_modules/repeat-text/index.js": "exports.repeat = (text, times) => Array(times).fill(text).join(' ');\n",
  };
}

/** A fresh copy of the fixture adapter in a temp dir (removed after the test file). */
export async function fixtureAdapter(): Promise<string> {
  const { testdir } = await import("../helpers.js");
  return testdir(fixtureTree());
}

/** The HermitError `promise` rejects with (the test fails when it resolves or throws something else). */
export async function failure(promise: Promise<unknown>): Promise<HermitError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HermitError);
  return error as HermitError;
}
