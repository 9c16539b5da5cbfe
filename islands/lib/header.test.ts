import { test } from "node:test";
import assert from "node:assert/strict";
import { isActive, isSolid, SOLID_AFTER_PX } from "./header.ts";

test("the header stays transparent up to 10 px of scroll and turns solid past it", () => {
  assert.equal(SOLID_AFTER_PX, 10);
  assert.equal(isSolid(0, false), false);
  assert.equal(isSolid(10, false), false);
  assert.equal(isSolid(11, false), true);
});

test("an open menu makes the header solid at any scroll position", () => {
  assert.equal(isSolid(0, true), true);
});

test("exactly the link the build chose is active", () => {
  const link = { label: "Services", href: "/services" };
  assert.equal(isActive(link, "/services"), true);
  assert.equal(isActive(link, "/"), false);
  assert.equal(isActive(link, ""), false);
});
