import { test } from "node:test";
import assert from "node:assert/strict";
import { range } from "../src/range.js";

test("range includes both ends", () => {
  assert.deepEqual(range(1, 4), [1, 2, 3, 4]);
  assert.deepEqual(range(3, 3), [3]);
  assert.deepEqual(range(5, 4), []);
});
