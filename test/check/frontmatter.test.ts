/** Frontmatter: split on `---` lines, parsed with hermit's YAML reader; errors name the file's line. */
import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../src/adapter/frontmatter.js";
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
