import { test } from "node:test";
import assert from "node:assert/strict";
import { dropSend, keepSend, keptSend, sendFor, sendName, wordsOf, type Keeping } from "./sends.ts";

/** A tab's session storage. */
function storage(): Keeping & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

let made = 0;
const newKey = () => `key-${++made}`;
const NAME = sendName("contact_messages", "/contact/");
const words = wordsOf({ name: "Asha", message: "Hello" }, null);

test("a send is made once, at the first attempt, with its words and time", () => {
  const send = sendFor(null, words, 1763800000000, newKey);
  assert.deepEqual(send, { key: `key-${made}`, words, at: 1763800000000 });
});

test("a failed attempt's key is kept for the next attempt of the same words", () => {
  const first = sendFor(null, words, 1, newKey);
  const again = sendFor(first, wordsOf({ name: "Asha", message: "Hello" }, null), 2, newKey);
  assert.equal(again, first);
});

test("other words after a failure are a new message, with a new key", () => {
  const first = sendFor(null, words, 1, newKey);
  const edited = sendFor(first, wordsOf({ name: "Asha", message: "Hello!" }, null), 2, newKey);
  assert.notEqual(edited.key, first.key);
  assert.equal(edited.at, 2);
  const file = { name: "plan.png", size: 10, lastModified: 5 };
  assert.notEqual(wordsOf({ name: "Asha" }, file), wordsOf({ name: "Asha" }, { ...file, size: 11 }), "another file is other words");
});

test("the words are kept as a hash, not as what the visitor wrote", () => {
  assert.doesNotMatch(wordsOf({ message: "my private words" }, null), /private/);
});

test("a send is kept across a reload in the tab's storage, by table and page, and dropped after a success", () => {
  const tab = storage();
  const send = sendFor(null, words, 1, newKey);
  keepSend(tab, NAME, send);
  assert.deepEqual(keptSend(tab, NAME), send, "the reloaded page finds it");
  assert.equal(keptSend(tab, sendName("contact_messages", "/de/contact/")), null, "another page's form has its own");
  assert.equal(sendFor(keptSend(tab, NAME), words, 2, newKey).key, send.key);
  dropSend(tab, NAME);
  assert.equal(keptSend(tab, NAME), null);
  assert.notEqual(sendFor(keptSend(tab, NAME), words, 3, newKey).key, send.key, "the next message of the same words is a new one");
});

test("storage that is refused, or holds something else, keeps nothing and breaks nothing", () => {
  const refusing: Keeping = {
    getItem: () => {
      throw new Error("SecurityError");
    },
    setItem: () => {
      throw new Error("QuotaExceededError");
    },
    removeItem: () => {
      throw new Error("SecurityError");
    },
  };
  const send = sendFor(null, words, 1, newKey);
  keepSend(refusing, NAME, send);
  assert.equal(keptSend(refusing, NAME), null);
  dropSend(refusing, NAME);
  const tab = storage();
  for (const junk of ["not json", '{"key":1}', "null", '{"key":"k","words":"w","at":1,"object":5}']) {
    tab.items.set(NAME, junk);
    assert.equal(keptSend(tab, NAME), null, junk);
  }
  assert.equal(keptSend(null, NAME), null);
});
