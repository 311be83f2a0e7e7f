/**
 * The learner's overhead per step beyond the model call: one `reflect` step (reading the
 * template and its state, the evidence, the reflective dataset, the prompt, the real AI SDK
 * client, parsing the answer, recording the call, writing the candidate) against the `noop`
 * Evolver's step on the same context, paired and interleaved in the same run. The model is the
 * stub provider on loopback (test/models/stub-provider.ts) answering at once; the call's own
 * latency, as the client measured it, is subtracted, so what remains is hermit's work. The steps
 * run in a plain-ESM child (`learner-child.mjs`, on `dist/`): the AI SDK does not load through jiti.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { startStubProvider } from "../test/models/stub-provider.js";
import { observe } from "./lib.js";

const NEW = "# Word counting\n\nUse the `count_words` tool on the exact text.\n\n- Do not count anything inside fenced code blocks.\n";
const stub = await startStubProvider(() => ({ text: `\`\`\`\`markdown\n${NEW}\`\`\`\`\n`, usage: { input: 3000, output: 300 } }));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const { stdout } = await promisify(execFile)(process.execPath, [join(import.meta.dirname, "learner-child.mjs")], { env: { ...process.env, STUB_URL: stub.url } });
  const samples = JSON.parse(stdout) as { reflect: number[]; noop: number[]; calls: number[] };
  const overhead = samples.reflect.map((ms, i) => ms - (samples.calls[i] ?? 0) - samples.noop[i]!);
  observe(
    "learner-step",
    `median ${median(overhead).toFixed(1)} ms per step beyond the model call (reflect step ${median(samples.reflect).toFixed(1)} ms, its call ${median(samples.calls)} ms, noop step ${median(samples.noop).toFixed(2)} ms; ${samples.reflect.length} pairs)`,
    true,
  );
} finally {
  await stub.close();
}
