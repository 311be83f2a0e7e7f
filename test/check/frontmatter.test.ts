/** Frontmatter: split on `---` lines, parsed with hermit's YAML reader; errors name the file's line. */
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { parseFrontmatter } from "../../src/adapter/frontmatter.js";
import { parseFlatMapping } from "../../src/adapter/yaml.js";
import { checkSpec } from "../../src/check/check.js";
import { runCli } from "../cli/run-cli.js";
import { copyDir, exampleAdapter, exampleTemplate } from "../helpers.js";

const split = (text: string) => {
  const { data, body } = parseFrontmatter(text, "a.md");
  return { data: { ...data }, body };
};

describe("parseFrontmatter", () => {
  it.each([
    ["---\nname: x\n---\nBody\n", { name: "x" }, "Body\n"],
    ["---\nname: x\n---", { name: "x" }, ""],
    ["---\r\nname: x\r\n---\r\nBody\r\n", { name: "x" }, "Body\r\n"],
    ["\ufeff---\nname: x\n---\nBody", { name: "x" }, "Body"],
    ["---yaml\nname: x\n---\nBody", { name: "x" }, "Body"],
    ["---\nname: x\n---  \nBody", { name: "x" }, "Body"],
    ["---\n---\nBody", {}, "Body"],
    ["---\n- a list\n---\nBody", {}, "Body"],
    ["---\ntext: |\n  ---\n---\nBody", { text: "---\n" }, "Body"],
    ["No frontmatter.\n---\nname: x\n---\n", {}, "No frontmatter.\n---\nname: x\n---\n"],
    ["----\nname: x\n---\nBody", {}, "----\nname: x\n---\nBody"],
  ])("splits %j", (text, data, body) => {
    expect(split(text)).toEqual({ data, body });
  });

  it("refuses frontmatter that is never closed, naming line 1", () => {
    expect(() => parseFrontmatter("---\nname: x\nBody\n", "agents/a.md")).toThrow(
      expect.objectContaining({ code: "YAML_SYNTAX", message: "agents/a.md:1: frontmatter opens with '---' on line 1 but no line '---' closes it" }),
    );
  });

  it("names the line of the file, not of the frontmatter, and shows it with a caret", () => {
    const text = "---\nname: x\ndescription: Reviews: counts\n---\nBody\n";
    expect(() => parseFrontmatter(text, "agents/a.md")).toThrow(
      expect.objectContaining({
        code: "YAML_SYNTAX",
        message:
          "agents/a.md:3: YAML syntax error: Nested mappings are not allowed in compact mappings (line 3, column 14)\n" +
          "  3 | description: Reviews: counts\n" +
          "    |              ^",
      }),
    );
  });
});

describe("the flat frontmatter read without the YAML parser", () => {
  it.each([
    ["name: x\ndescription: Use it for C# and a:b, [not] {flow}.\n", { name: "x", description: "Use it for C# and a:b, [not] {flow}." }],
    ["name: x\n\ndescription: Don't — ever.", { name: "x", description: "Don't — ever." }],
  ])("reads %j as YAML does", (text, data) => {
    expect(parseFlatMapping(text)).toEqual(data);
  });

  it.each([
    "description: a: b", // YAML refuses it
    "name: x\nname: y", // so does the duplicate key
    "version: 1.0", // a number
    "enabled: yes", // a boolean in YAML 1.1
    "name: 'quoted'",
    "name: x # comment",
    "name: x\r",
    "name:\tx",
    "__proto__: x",
    "name: x\n  more: y",
    "",
  ])("leaves %j to the parser", (text) => {
    expect(parseFlatMapping(text)).toBeUndefined();
  });

  it("never reads a text differently from the parser", () => {
    let state = 7;
    const pick = (n: number) => ((state = (state * 1664525 + 1013904223) >>> 0) >>> 8) % n;
    const pieces = [" ", ":", ": ", "#", " #", "'", '"', "-", "?", ",", "[", "{", "&", "*", "!", "|", ">", "%", "@", "`", "\t", "\u00a0", "\u2028", "\ufeff", "é", "0", "1.5", ".", "~", "x", "yes", "true", "null", "NaN", ".inf", "0x1f", "1e3", "<<", "---", "word", "-1", "😀"];
    const keys = ["name", "description", "y", "on", "true", "__proto__", "constructor", "a-b", "Key", "1", "a b"];
    let read = 0;
    for (let run = 0; run < 20_000; run++) {
      const lines = Array.from({ length: 1 + pick(3) }, () => {
        let value = pick(2) ? "word" : "";
        for (let count = 1 + pick(4); count > 0; count--) value += pieces[pick(pieces.length)];
        return `${keys[pick(keys.length)]}: ${value}`;
      });
      const text = lines.join("\n");
      const flat = parseFlatMapping(text);
      if (!flat) continue;
      read++;
      const doc = parseDocument(text, { uniqueKeys: true, strict: true });
      expect(doc.errors, text).toEqual([]);
      expect(doc.toJS(), text).toEqual(flat);
    }
    expect(read).toBeGreaterThan(1000);
  });
});

describe("a YAML error in an agent's frontmatter, as the spec check reports it", () => {
  it("is one issue with the excerpt, printed under its issue line", async () => {
    const dir = await copyDir(exampleAdapter, { "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews: counts\n---\nBe brief.\n" });
    const problem =
      "YAML syntax error: Nested mappings are not allowed in compact mappings (line 3, column 14)\n" +
      "  3 | description: Reviews: counts\n" +
      "    |              ^";
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([{ path: "agents/reviewer.md", check: "format", problem }]);
    const run = await runCli(["spec", "check", dir, "--root", exampleTemplate]);
    expect(run.stdout.split("\n").slice(0, 3)).toEqual([
      "agents/reviewer.md: YAML syntax error: Nested mappings are not allowed in compact mappings (line 3, column 14) (format)",
      "      3 | description: Reviews: counts",
      "        |              ^",
    ]);
  });
});
