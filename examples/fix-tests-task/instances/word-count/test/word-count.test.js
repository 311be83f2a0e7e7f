import { test } from "node:test";
import assert from "node:assert/strict";
import { wordCount } from "../src/word-count.js";

test("wordCount counts runs of non-whitespace", () => {
  assert.equal(wordCount("one two three"), 3);
  assert.equal(wordCount("  spaced   out\nlines  "), 3);
  assert.equal(wordCount(""), 0);
});
