import { test } from "node:test";
import assert from "node:assert/strict";
import { average } from "../src/average.js";

test("average of numbers, and of nothing", () => {
  assert.equal(average([2, 4, 9]), 5);
  assert.equal(average([]), 0);
});
