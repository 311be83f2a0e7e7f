import { test } from "node:test";
import assert from "node:assert/strict";
import { titleCase } from "../src/title-case.js";

test("titleCase capitalises each word and lowers the rest", () => {
  assert.equal(titleCase("hello world"), "Hello World");
  assert.equal(titleCase("tHE QUICK fox"), "The Quick Fox");
});
