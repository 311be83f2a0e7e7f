/** The reflect Evolver's pure parts: components, the reflective dataset, proposals, the Pareto front, the prompt. */
import { describe, expect, it } from "vitest";
import { readManifest } from "../../src/adapter/read.js";
import { estimateTokens } from "../../src/models/usage.js";
import { blamed, listComponents, newComponentPath, roundRobin } from "../../src/evolvers/reflect/components.js";
import { clipMiddle, reflectiveDataset, type Example } from "../../src/evolvers/reflect/dataset.js";
import { findMerge, nonDominated, selectParent, type Program } from "../../src/evolvers/reflect/pareto.js";
import { buildPrompt, fence } from "../../src/evolvers/reflect/prompt.js";
import { fencedBlocks, readProposal } from "../../src/evolvers/reflect/proposal.js";
import { seededRandom } from "../../src/train/random.js";
import { exampleTemplate } from "../helpers.js";

const template = await readManifest(exampleTemplate);
const PATHS = ["ADAPTER.md", "EVOLVER.md", "README.md", "adapter.yaml", "agents/reviewer.md", "skills/verify-output/SKILL.md", "tools.ts"];

describe("components", () => {
  it("the template's learnable text files, plus room for a new skill and subagent", () => {
    const components = listComponents(PATHS, template);
    expect(components.map((component) => `${component.kind} ${component.path}`)).toEqual([
      "context ADAPTER.md",
      "agent agents/reviewer.md",
      "skill skills/verify-output/SKILL.md",
      "new-skill skills/*/SKILL.md",
      "new-agent agents/*.md",
    ]);
    expect(components[0]).toMatchObject({ maxBytes: 16384, format: "markdown" });
    expect(newComponentPath(components[3]!, "skip-code")).toBe("skills/skip-code/SKILL.md");
    expect(newComponentPath(components[4]!, "checker")).toBe("agents/checker.md");
  });

  it("blame picks the component the failures name; otherwise round-robin in a fixed order", () => {
    const components = listComponents(PATHS, template);
    expect(blamed(components, { failures: ["read skills/verify-output/SKILL.md then answered 12", "verify-output said recount"] })).toMatchObject({ component: { path: "skills/verify-output/SKILL.md" }, failures: 2 });
    expect(blamed(components, { failures: ["answered 12, expected 10"] })).toBeUndefined();
    expect(roundRobin(components, undefined).path).toBe("ADAPTER.md");
    expect(roundRobin(components, "ADAPTER.md").path).toBe("skills/verify-output/SKILL.md");
    expect(roundRobin(components, "new-agent:agents/*.md").path).toBe("ADAPTER.md");
  });
});

function example(instance: string, score: number | null, extra: Partial<Example> = {}): Example {
  return { instance, trial: 0, score, feedback: `feedback for ${instance}`, ...extra };
}

describe("the reflective dataset", () => {
  it("failures first (worst first), then crashes, then a few successes", () => {
    const dataset = reflectiveDataset([example("ok1", 1), example("half", 0.5), example("crash", null, { error: "boom" }), example("zero", 0), example("ok2", 1), example("ok3", 1)], { tokens: 10_000, successes: 2 });
    expect(dataset.instances).toEqual(["zero", "half", "crash", "ok1", "ok2"]);
    expect(dataset).toMatchObject({ failures: 2, crashes: 1, successes: 2, omitted: 0, cut: 0 });
    expect(dataset.text).toContain("feedback for zero");
    expect(dataset.text).toContain("#### Error\nboom");
  });

  it("long outputs are cut with a marker and the whole never passes the budget (no 568K-token prompts)", () => {
    const huge = "x".repeat(2_000_000);
    const examples = Array.from({ length: 200 }, (_, index) => example(`i${index}`, 0, { output: huge, input: huge }));
    for (const tokens of [600, 2_000, 16_000]) {
      const dataset = reflectiveDataset(examples, { tokens, successes: 2 });
      expect(estimateTokens(dataset.text)).toBeLessThanOrEqual(tokens);
      expect(dataset.failures).toBeGreaterThan(0);
      expect(dataset.omitted).toBe(200 - dataset.failures);
      expect(dataset.text).toMatch(/\[… [\d,]+ characters cut …\]/);
    }
    expect(clipMiddle("abcdefghij".repeat(20), 100)).toMatch(/^abc[\s\S]*\[… 1[\d,]* characters cut …\][\s\S]*hij$/);
  });
});

describe("proposals", () => {
  const context = listComponents(PATHS, template)[0]!;
  const skill = listComponents(PATHS, template).find((component) => component.kind === "skill")!;
  const newSkill = listComponents(PATHS, template).find((component) => component.kind === "new-skill")!;
  const base = { component: context, current: "# Old\n", existing: new Set(PATHS), finishReason: "stop" };

  it("one fenced block: its text is adopted; a longer fence may hold inner fences", () => {
    expect(readProposal({ ...base, answer: "Here:\n````markdown\n# New\n\n```procedure\ndrop numbers\n```\n````\nDone." })).toEqual({ ok: true, path: "ADAPTER.md", text: "# New\n\n```procedure\ndrop numbers\n```\n" });
    expect(fencedBlocks("```\na\n```\ntext\n~~~\nb\n~~~")).toHaveLength(2);
  });

  it("truncated, empty, fenced wrong, unchanged or too large: not adopted, with the reason", () => {
    const reason = (answer: string, extra: object = {}) => {
      const result = readProposal({ ...base, answer, ...extra });
      return result.ok ? "adopted" : result.reason;
    };
    expect(reason("````\n# New, cut", { finishReason: "length", maxOutputTokens: 100 })).toMatch(/^truncated: .*\(100 tokens\)/);
    expect(reason("")).toMatch(/^empty: the answer was empty/);
    expect(reason("````\n\n````")).toMatch(/^empty: the fenced block is empty/);
    expect(reason("# New instructions without a fence")).toMatch(/^malformed: the answer has no fenced block/);
    expect(reason("````\n# New\n")).toMatch(/^malformed: the fenced block is never closed/);
    expect(reason("```\n# New A\n```\nor\n```\n# New B\n```")).toMatch(/^malformed: the answer has 2 fenced blocks/);
    // A three-backtick fence around a text with its own fences closes early and leaves one open.
    expect(reason("```\n# New\n```procedure\nx\n```\n```")).toMatch(/^malformed: the fenced block is never closed/);
    expect(reason("````\n# Old\n````")).toMatch(/^unchanged: /);
    expect(reason(`\`\`\`\`\n${"a".repeat(20_000)}\n\`\`\`\``)).toMatch(/^too large: 20001 bytes, over the limit of 16384/);
  });

  it("a skill keeps its frontmatter and name; a new skill gets a valid, unused name", () => {
    const skillText = (name: string) => `\`\`\`\`\n---\nname: ${name}\ndescription: Check counts.\n---\nRecount.\n\`\`\`\``;
    expect(readProposal({ ...base, component: skill, current: "old", answer: skillText("verify-output") })).toMatchObject({ ok: true, path: "skills/verify-output/SKILL.md" });
    expect(readProposal({ ...base, component: skill, current: "old", answer: skillText("other") })).toMatchObject({ ok: false, reason: expect.stringMatching(/differs from its folder name/) });
    expect(readProposal({ ...base, component: newSkill, current: undefined, answer: skillText("skip-code-blocks") })).toMatchObject({ ok: true, path: "skills/skip-code-blocks/SKILL.md", name: "skip-code-blocks" });
    expect(readProposal({ ...base, component: newSkill, current: undefined, answer: skillText("verify-output") })).toMatchObject({ ok: false, reason: expect.stringMatching(/already exists/) });
    expect(readProposal({ ...base, component: newSkill, current: undefined, answer: skillText("Bad Name") })).toMatchObject({ ok: false, reason: expect.stringMatching(/needs frontmatter 'name'/) });
  });
});

describe("the Pareto front", () => {
  const scores = new Map([
    ["base", new Map([["a", 0.5], ["b", 0.5], ["c", 0.2]])],
    ["step-1", new Map([["a", 1], ["b", 0], ["c", 0.2]])],
    ["step-2", new Map([["a", 0], ["b", 1], ["c", 0.2]])],
    ["step-3", new Map([["a", 0], ["b", 0], ["c", 0.2]])],
  ]);

  it("leaders per instance, dominated versions dropped", () => {
    const front = nonDominated(scores);
    expect([...front.get("a")!]).toEqual(["step-1"]);
    expect([...front.get("b")!]).toEqual(["step-2"]);
    // Everyone ties on c; base and step-3 lead nothing else, so c keeps only the leaders of a and b.
    expect([...front.get("c")!].sort()).toEqual(["step-1", "step-2"]);
  });

  it("the parent is drawn from the front, weighted by instances led; none without scores", () => {
    const drawn = new Set(Array.from({ length: 40 }, (_, index) => selectParent(scores, seededRandom(7, index))));
    expect(drawn).toEqual(new Set(["step-1", "step-2"]));
    expect(selectParent(new Map(), Math.random)).toBeUndefined();
  });

  it("merges two front versions that changed different files over their ancestor", () => {
    const programs: Program[] = [
      { id: "base", parents: [], files: { "ADAPTER.md": "A0", "skills/s/SKILL.md": "S0" } },
      { id: "step-1", parents: ["base"], files: { "ADAPTER.md": "A1", "skills/s/SKILL.md": "S0" } },
      { id: "step-2", parents: ["base"], files: { "ADAPTER.md": "A0", "skills/s/SKILL.md": "S2" } },
    ];
    const merge = findMerge(programs, scores, new Set(), () => 0)!;
    expect(merge).toMatchObject({ a: "step-1", b: "step-2", ancestor: "base", files: { "ADAPTER.md": "A1", "skills/s/SKILL.md": "S2" }, from: { "ADAPTER.md": "step-1", "skills/s/SKILL.md": "step-2" } });
    expect(findMerge(programs, scores, new Set(["step-1+step-2@base"]), () => 0)).toBeUndefined();
  });
});

describe("the prompt", () => {
  it("role, rules, guidance, the current text in a longer fence, the evidence and earlier attempts", () => {
    const component = listComponents(PATHS, template)[0]!;
    const dataset = reflectiveDataset([example("t1", 0, { feedback: "Answered 12 words, expected 10. The text has a fenced code block." })], { tokens: 4000, successes: 2 });
    const { system, prompt } = buildPrompt({ component, current: "# Count\n```procedure\ndrop numbers\n```\n", siblings: ["verify-output"], guide: "Prefer one small change.", dataset, batch: { rollouts: 1, score: 0 }, notes: ["Step 2's proposal for ADAPTER.md was not adopted: truncated"] });
    expect(system).toMatch(/exactly one fenced block that opens with ````/);
    expect(prompt).toContain("every host shows this file to the agent");
    expect(prompt).toContain("At most 16384 bytes.");
    expect(prompt).toContain("Prefer one small change.");
    expect(prompt).toContain("````markdown\n# Count\n```procedure");
    expect(prompt).toContain("expected 10. The text has a fenced code block.");
    expect(prompt).toContain("not adopted: truncated");
    expect(fence("a\n`````x\n")).toMatch(/^`{6}markdown/);
  });
});
