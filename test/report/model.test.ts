/**
 * The report's pure parts: line diffs and their bounds, heatmap cells, usage that was not
 * reported, budgets, shell quoting, escaping, and the page's content security policy.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, MAX_LINES, fileDiff } from "../../src/report/diff.js";
import { cellOf } from "../../src/report/heatmap.js";
import { CLIENT_SCRIPT } from "../../src/report/render/client.js";
import { esc, jsonForScript } from "../../src/report/render/html.js";
import { scoreColor, statusStyle, VIRIDIS } from "../../src/report/render/palette.js";
import { shellWord } from "../../src/report/reproduce.js";
import { addSource, budgets, describeFigure, describeTokens, emptyUsageView, sumUsage } from "../../src/report/usage.js";
import type { RolloutRecord } from "../../src/train/types.js";

const text = (value: string) => Buffer.from(value);

describe("line diffs", () => {
  it("counts added and removed lines of a modified file, with context", () => {
    const diff = fileDiff({ path: "ADAPTER.md", change: "modified" }, text("a\nb\nc\n"), text("a\nB\nc\nd\n"));
    expect(diff).toMatchObject({ path: "ADAPTER.md", change: "modified", added: 2, removed: 1 });
    expect(diff.hunks[0].lines).toEqual([" a", "-b", "+B", " c", "+d"]);
    expect(diff.note).toBeUndefined();
  });

  it("shows an added and a deleted file whole", () => {
    expect(fileDiff({ path: "new.md", change: "added" }, undefined, text("x\ny\n"))).toMatchObject({ added: 2, removed: 0 });
    expect(fileDiff({ path: "old.md", change: "deleted" }, text("x\n"), undefined)).toMatchObject({ added: 0, removed: 1 });
  });

  it("says why there is no line diff: binary, too large, mode only", () => {
    expect(fileDiff({ path: "logo.png", change: "modified" }, Buffer.from([0, 1, 2]), Buffer.from([0, 1, 3])).note).toBe("binary file");
    expect(fileDiff({ path: "latin1.txt", change: "added" }, undefined, Buffer.from([0xe9, 0x0a])).note).toBe("binary file");
    const big = "x\n".repeat(MAX_FILE_BYTES);
    expect(fileDiff({ path: "big.txt", change: "added" }, undefined, text(big)).note).toMatch(/^too large for a line diff/);
    expect(fileDiff({ path: "run.sh", change: "modified" }, text("echo\n"), text("echo\n")).note).toBe("file mode changed");
  });

  it("cuts a long diff, counting every line still", () => {
    const lines = Array.from({ length: MAX_LINES * 2 }, (_, index) => `line ${index}`).join("\n");
    const diff = fileDiff({ path: "long.md", change: "added" }, undefined, text(`${lines}\n`));
    expect(diff.added).toBe(MAX_LINES * 2);
    expect(diff.hunks.flatMap((hunk) => hunk.lines)).toHaveLength(MAX_LINES);
    expect(diff.note).toBe(`diff cut at ${MAX_LINES} lines`);
  });
});

describe("heatmap cells", () => {
  const record = (score: number | null, extra: Partial<RolloutRecord> = {}): RolloutRecord => ({
    tree: "t",
    split: "val",
    instance: "v1",
    instanceHash: "h",
    task: "t",
    trial: 0,
    status: "ok",
    attempts: 1,
    score,
    durationMs: 1,
    evidenceDir: "/x",
    ranAt: 1,
    ...extra,
  });

  it("tells not evaluated, failed and a score apart; a missing trial is left out of the mean, not counted as 0", () => {
    expect(cellOf([])).toEqual({ state: "not-evaluated" });
    expect(cellOf([record(null, { status: "timeout", error: "rollout timed out after 5 s" })])).toEqual({ state: "failed", trials: 1, error: "rollout timed out after 5 s" });
    expect(cellOf([record(null)])).toMatchObject({ state: "failed", error: "no score (the task could not measure it)" });
    expect(cellOf([record(0.5), record(null, { trial: 1, status: "error", error: "boom" }), record(1, { trial: 2 })])).toEqual({ state: "score", score: 0.75, trials: 3, missing: 1 });
    expect(cellOf([record(0)])).toEqual({ state: "score", score: 0, trials: 1, missing: 0 });
  });

  it("colours scores along viridis, low to high", () => {
    expect(scoreColor(0, 0, 1)).toBe(VIRIDIS[0]);
    expect(scoreColor(1, 0, 1)).toBe(VIRIDIS[VIRIDIS.length - 1]);
    expect(scoreColor(5, 0, 10)).toBe(VIRIDIS[5]);
  });

  it("gives a status this version does not know a neutral style instead of failing", () => {
    expect(statusStyle("accepted").color).toBe("#009E73");
    expect(statusStyle("some-future-status")).toMatchObject({ glyph: "?" });
  });
});

describe("usage", () => {
  it("is exact when every source reported it, a lower bound when some did not, unknown when none did — never 0", () => {
    let view = addSource(emptyUsageView(), { inputTokens: 100, outputTokens: 10 });
    expect(describeFigure(view.input)).toBe("100");
    view = addSource(view, undefined);
    expect(describeFigure(view.input)).toBe("≥ 100");
    expect(describeFigure(addSource(emptyUsageView(), undefined).input)).toBe("unknown");
    expect(describeFigure(emptyUsageView().input)).toBe("none");
  });

  it("shows input + output tokens as a lower bound when a source reported only one of them", () => {
    const inputOnly = addSource(addSource(emptyUsageView(), { inputTokens: 1 }), { inputTokens: 1 });
    expect(describeTokens(inputOnly)).toBe("≥ 2");
    expect(describeTokens(addSource(emptyUsageView(), { inputTokens: 100, outputTokens: 10 }))).toBe("110");
    expect(describeTokens(addSource(emptyUsageView(), undefined))).toBe("unknown");
    expect(describeTokens(emptyUsageView())).toBe("none");
  });

  it("reads the model layer's token usage and the older field names alike", () => {
    const view = addSource(addSource(emptyUsageView(), { input: 7, output: 3, cached: 2, reasoning: 1, costUsd: 0.5 }), { inputTokens: 5 });
    expect(view.input).toEqual({ known: 12, reported: 2, sources: 2 });
    expect(view.cached).toEqual({ known: 2, reported: 1, sources: 2 });
    expect(view.costUsd).toEqual({ known: 0.5, reported: 1, sources: 2 });
  });

  it("sets each budget against what was used, saying when that is a lower bound", () => {
    const total = sumUsage([addSource(emptyUsageView(), { inputTokens: 900, outputTokens: 100 }), addSource(emptyUsageView(), undefined)]);
    expect(budgets({ settings: { maxRollouts: 50, maxTime: 60, maxTokens: 5000 }, rolloutsRan: 20, elapsedSeconds: 12.3456, total })).toEqual([
      { name: "max-rollouts", limit: 50, used: 20, unit: "rollouts", lowerBound: false },
      { name: "max-time", limit: 60, used: 12.346, unit: "s", lowerBound: false },
      { name: "max-tokens", limit: 5000, used: 1000, unit: "tokens", lowerBound: true },
    ]);
    expect(budgets({ settings: {}, rolloutsRan: 0, elapsedSeconds: 0, total })).toEqual([]);
  });
});

describe("page text", () => {
  it("quotes shell words that need it", () => {
    expect(shellWord("runs/my-run")).toBe("runs/my-run");
    expect(shellWord("/tmp/a b")).toBe("'/tmp/a b'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("$(rm -rf ~)")).toBe("'$(rm -rf ~)'");
  });

  it("escapes text for HTML, and embeds JSON that cannot close its script element", () => {
    expect(esc(`<img src=x onerror="a('b')">&`)).toBe("&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;");
    const embedded = jsonForScript({ summary: "</script><script>alert(1)</script>", line: "\u2028" });
    expect(embedded).not.toContain("</script");
    expect(JSON.parse(embedded)).toEqual({ summary: "</script><script>alert(1)</script>", line: "\u2028" });
  });

  it("the page's script is allowed by hash, so nothing else inlined can run", async () => {
    const { renderReport } = await import("../../src/report/render/page.js");
    const { loadAssets } = await import("../../src/report/write.js");
    const { buildReport } = await import("../../src/report/model.js");
    const assets = await loadAssets();
    const html = renderReport(buildReport(minimalInput()), assets);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1].replace(/&#39;/g, "'");
    const hash = (script: string) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
    expect(csp).toContain(`script-src ${hash(assets.uplotScript)} ${hash(CLIENT_SCRIPT)}`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });
});

/** The smallest run a report can be made of: created, no step yet. */
function minimalInput() {
  const settings = { template: "/t", task: "task", evolver: "noop", taskOptions: {}, evolverOptions: {}, steps: 3, runsDir: "/runs", store: "/runs/versions.git", runId: "r", seed: 0, concurrency: 1, executor: "local", queuePatience: 120, checkpointEvery: 1, accept: "always" as const, margin: 0, trials: 1, marginSe: 0, rolloutTimeout: 300, retries: 1, deploy: [] };
  const usage = { known: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, reported: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, sources: 0 };
  return {
    run: {
      format: "hermit-run" as const,
      formatVersion: 1 as const,
      run: "r",
      hermitVersion: "0.1.0",
      status: "running" as const,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      settings,
      branch: "hermit/r",
      base: { commit: "b".repeat(40), tree: "c".repeat(40), adapterName: "a", adapterVersion: "1" },
      template: { commit: "d".repeat(40), tree: "e".repeat(40), path: "/t" },
      task: "task",
      evolver: "noop",
      accepted: { commit: "b".repeat(40), tree: "c".repeat(40), step: 0, score: null },
      lastStep: 0,
      elapsedSeconds: 0,
      rollouts: { ran: 0, cached: 0 },
      usage,
    },
    status: "running",
    live: true,
    dir: "/runs/r",
    store: "/runs/versions.git",
    steps: [],
    rollouts: [],
    notes: [],
  };
}
