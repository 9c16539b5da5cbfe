import { test } from "node:test";
import assert from "node:assert/strict";
import { excerptParts, nextFocus, resultsSummary } from "./search.ts";

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
  assert.equal(resultsSummary("  ", 0), "");
  assert.equal(resultsSummary("cyber", 0), "No pages found for “cyber”");
  assert.equal(resultsSummary("cyber", 1), "1 page found for “cyber”");
  assert.equal(resultsSummary(" cyber ", 4), "4 pages found for “cyber”");
});
