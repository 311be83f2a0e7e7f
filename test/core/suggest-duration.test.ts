import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/duration.js";
import { closest, didYouMean } from "../../src/suggest.js";

describe("parseDuration", () => {
  it("reads plain seconds and every unit", () => {
    expect(parseDuration(90)).toBe(90);
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("90s")).toBe(90);
    expect(parseDuration("500ms")).toBe(0.5);
    expect(parseDuration("10m")).toBe(600);
    expect(parseDuration("1.5h")).toBe(5400);
  });
  it("refuses what is not a positive duration", () => {
    for (const bad of ["abc", "", "0", "-5", "5d", "1e3", null, undefined, {}, Number.NaN]) expect(parseDuration(bad)).toBeUndefined();
  });
});

describe("closest / didYouMean", () => {
  const hosts = ["codex", "claude-code", "pi", "opencode", "gemini"];
  it("suggests the full name for a short form and for a typo", () => {
    expect(closest("claude", hosts)).toBe("claude-code");
    expect(closest("gemnii", hosts)).toBe("gemini");
    expect(closest("open-code", hosts)).toBe("opencode");
    expect(didYouMean("codx", hosts)).toBe("; did you mean 'codex'?");
  });
  it("suggests nothing for a name far from every candidate", () => {
    expect(closest("vim", hosts)).toBeUndefined();
    expect(didYouMean("emacs", hosts)).toBe("");
  });
});
