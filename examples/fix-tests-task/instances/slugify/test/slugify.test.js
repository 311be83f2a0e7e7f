import { test } from "node:test";
import assert from "node:assert/strict";
import { slugify } from "../src/slugify.js";

test("slugify joins words with single dashes", () => {
  assert.equal(slugify("Hello World"), "hello-world");
  assert.equal(slugify("  Fix: the   tests! "), "fix-the-tests");
  assert.equal(slugify("v2.0 Release"), "v2-0-release");
});
