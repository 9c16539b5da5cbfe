import { test } from "node:test";
import assert from "node:assert/strict";
import { isActive, isSolid, opensSearch, SOLID_AFTER_PX } from "./header.ts";

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

const press = (key: string, more: Partial<Parameters<typeof opensSearch>[0]> = {}) =>
  opensSearch({ key, ctrlKey: false, metaKey: false, altKey: false, target: { tagName: "BODY" }, ...more });

test("/ opens the search, except while typing in a field", () => {
  assert.equal(press("/"), true);
  assert.equal(press("/", { target: { tagName: "INPUT" } }), false);
  assert.equal(press("/", { target: { tagName: "textarea" } }), false);
  assert.equal(press("/", { target: { tagName: "DIV", isContentEditable: true } }), false);
});

test("Ctrl-K and ⌘-K open the search anywhere; other keys do not", () => {
  assert.equal(press("k", { ctrlKey: true }), true);
  assert.equal(press("K", { metaKey: true, target: { tagName: "INPUT" } }), true);
  assert.equal(press("k"), false);
  assert.equal(press("k", { ctrlKey: true, altKey: true }), false);
  assert.equal(press("/", { ctrlKey: true }), false);
});
