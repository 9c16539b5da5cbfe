import { test } from "node:test";
import assert from "node:assert/strict";
import { dismissToast, showToast, subscribe, type Toast } from "./toasts.ts";

test("one toast at a time: a new toast replaces the current one", () => {
  const seen: (Toast | null)[] = [];
  const stop = subscribe((t) => seen.push(t));
  const first = showToast({ title: "First" });
  const second = showToast({ title: "Second", variant: "destructive" });
  assert.deepEqual(seen.slice(1).map((t) => t?.title), ["First", "Second"]);
  assert.notEqual(first.id, second.id);
  assert.equal(second.variant, "destructive");
  assert.equal(first.variant, "default");
  // Dismissing a toast that was already replaced changes nothing.
  dismissToast(first.id);
  assert.equal(seen.length, 3);
  dismissToast(second.id);
  assert.equal(seen.at(-1), null);
  stop();
});

test("a listener that subscribes late still gets the toast on screen", () => {
  const shown = showToast({ title: "Early" });
  let got = null as Toast | null;
  const stop = subscribe((t) => (got = t));
  assert.equal(got?.id, shown.id);
  stop();
  dismissToast(shown.id);
});
