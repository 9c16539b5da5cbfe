import { test } from "node:test";
import assert from "node:assert/strict";
import { excerptParts, MAX_TYPE_AHEAD, nextFocus, resultsSummary, typeAhead } from "./search.ts";

test("an excerpt becomes runs of text, the matched words marked", () => {
  assert.deepEqual(excerptParts("Offices in <mark>Singapore</mark> and <mark>Sydney</mark>."), [
    { text: "Offices in ", marked: false },
    { text: "Singapore", marked: true },
    { text: " and ", marked: false },
    { text: "Sydney", marked: true },
    { text: ".", marked: false },
  ]);
});

test("an excerpt's escaped characters are shown as themselves, and no other markup survives", () => {
  assert.deepEqual(excerptParts("R&amp;D &lt;b&gt; &#39;quoted&#39; &#x2014; <em>x</em><mark>AT&amp;T</mark>"), [
    { text: "R&D <b> 'quoted' \u2014 x", marked: false },
    { text: "AT&T", marked: true },
  ]);
  assert.deepEqual(excerptParts(""), []);
});

test("arrow keys move from the field through the results and back, never past either end", () => {
  assert.equal(nextFocus(-1, "ArrowDown", 3), 0);
  assert.equal(nextFocus(0, "ArrowDown", 3), 1);
  assert.equal(nextFocus(2, "ArrowDown", 3), 2);
  assert.equal(nextFocus(1, "ArrowUp", 3), 0);
  assert.equal(nextFocus(0, "ArrowUp", 3), -1);
  assert.equal(nextFocus(-1, "ArrowUp", 3), -1);
  assert.equal(nextFocus(1, "End", 3), 2);
  assert.equal(nextFocus(2, "Home", 3), 0);
  assert.equal(nextFocus(-1, "ArrowDown", 0), -1);
});

test("the summary read out counts the pages found", () => {
  const en = { none: "No pages found for “{query}”", "found.one": "{count} page found for “{query}”", "found.other": "{count} pages found for “{query}”" };
  assert.equal(resultsSummary("  ", 0, en, "en"), "");
  assert.equal(resultsSummary("cyber", 0, en, "en"), "No pages found for “cyber”");
  assert.equal(resultsSummary("cyber", 1, en, "en"), "1 page found for “cyber”");
  assert.equal(resultsSummary(" cyber ", 4, en, "en"), "4 pages found for “cyber”");
});

test("the count takes the language's plural form", () => {
  const ar = { none: "لا نتائج", "found.one": "صفحة واحدة", "found.two": "صفحتان", "found.few": "{count} صفحات", "found.many": "{count} صفحة", "found.other": "{count} صفحة" };
  assert.equal(resultsSummary("سحابة", 2, ar, "ar"), "صفحتان");
  assert.equal(resultsSummary("سحابة", 3, ar, "ar-u-nu-latn"), "3 صفحات");
  assert.equal(resultsSummary("سحابة", 11, ar, "ar-u-nu-latn"), "11 صفحة");
  // A language without a form of its own for a count uses `other`.
  assert.equal(resultsSummary("x", 2, { "found.other": "{count} Seiten" }, "de"), "2 Seiten");
});

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });
const typeKeys = (keys: string[]) => keys.reduce((typed, key) => typeAhead(typed, press(key)), "");

test("keys typed while the search loads become its query, Backspace included", () => {
  assert.equal(typeKeys(["c", "l", "o", "u", "f", "Backspace"]), "clou");
  assert.equal(typeKeys(["a", " ", "b"]), "a b");
  assert.equal(typeKeys(["é", "ü", "中", "😀"]), "éü中😀");
  assert.equal(typeKeys(["😀", "Backspace"]), "", "a character, not half of it, is taken back");
  assert.equal(typeKeys(["Backspace"]), "");
});

test("keys that type nothing leave the query as it was", () => {
  for (const key of ["Shift", "Enter", "Tab", "ArrowLeft", "Escape", "F5", "Dead"]) assert.equal(typeAhead("ab", press(key)), "ab", key);
  assert.equal(typeAhead("ab", press("k", { ctrlKey: true })), "ab");
  assert.equal(typeAhead("ab", press("k", { metaKey: true })), "ab");
  assert.equal(typeAhead("ab", press("x", { altKey: true })), "ab");
});

test("the query typed ahead stops growing at its limit", () => {
  const long = typeKeys(Array.from({ length: MAX_TYPE_AHEAD + 50 }, () => "a"));
  assert.equal(long.length, MAX_TYPE_AHEAD);
});
