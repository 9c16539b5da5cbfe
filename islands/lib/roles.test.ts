import { test } from "node:test";
import assert from "node:assert/strict";
import { nextIndex } from "./roles.ts";

test("arrows move through the roles and wrap around", () => {
  assert.equal(nextIndex("ArrowRight", 0, 11), 1);
  assert.equal(nextIndex("ArrowDown", 10, 11), 0);
  assert.equal(nextIndex("ArrowLeft", 0, 11), 10);
  assert.equal(nextIndex("ArrowUp", 5, 11), 4);
});

test("Home and End go to the first and last role; other keys do nothing", () => {
  assert.equal(nextIndex("Home", 7, 11), 0);
  assert.equal(nextIndex("End", 2, 11), 10);
  assert.equal(nextIndex("a", 2, 11), null);
  assert.equal(nextIndex("Enter", 2, 11), null);
});
