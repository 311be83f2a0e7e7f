import { describe, expect, it } from "vitest";
import { declaredResources, parameterList } from "../../src/runtime/declared-resources.js";

describe("declaredResources", () => {
  it.each([
    ["function tool(args, _resources) { return 1; }", "argument"],
    ["async function tool(input, _resources = {}) {}", "argument"],
    ["(args, _resources) => args", "argument"],
    ["async (args, /* bound */ _resources) => args", "argument"],
    ["function tool({ text, _resources }) {}", "destructured"],
    ["({ _resources: res, text = 'a,b' }) => res", "destructured"],
    ["async ({ text, _resources = {} }) => text", "destructured"],
    ["function tool(args) {}", "none"],
    ["function tool(args, resources) {}", "none"],
    ["function tool({ text, other: { _resources } }) {}", "none"],
    ["function tool(_resources) {}", "none"],
    ["args => args", "none"],
    ["async args => args", "none"],
    ["function () { [native code] }", "none"],
    ["function tool(args = { a: ')' }, _resources) {}", "argument"],
    ["function tool(...args) {}", "none"],
  ])("%s → %s", (source, expected) => {
    expect(declaredResources(source)).toBe(expected);
  });

  it("reads parameters past nested brackets, strings and comments", () => {
    expect(parameterList("function f(a = [1, 2], { b, c } = {}, d = `x,${'y'}` /* e, f */) {}").map((p) => p.trim())).toEqual([
      "a = [1, 2]",
      "{ b, c } = {}",
      "d = `x,${'y'}`",
    ]);
  });

  it("recognises the declaration in a real transpiled TypeScript tool", async () => {
    const { importModule } = await import("../../src/adapter/module-loader.js");
    const { fixtureTree } = await import("./fixture.js");
    const { testdir } = await import("../helpers.js");
    const dir = await testdir({ "tools.ts": fixtureTree()["tools.ts"] as string });
    const module = await importModule(`${dir}/tools.ts`);
    const source = (name: string) => Function.prototype.toString.call(module[name]);
    expect(declaredResources(source("showResources"))).toBe("argument");
    expect(declaredResources(source("destructuredResources"))).toBe("destructured");
    expect(declaredResources(source("countWords"))).toBe("none");
  });
});
