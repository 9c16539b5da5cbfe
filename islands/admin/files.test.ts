import { test } from "node:test";
import assert from "node:assert/strict";
import { Files, untrimmed } from "./files.ts";

test("a string the editor trimmed, and changed no other way, keeps the file's spaces", () => {
  const before = { form: { agree_before: "I agree to the ", agree_after: " and consent", skip: "Skip" } };
  const saved = { form: { agree_before: "I agree to the", agree_after: "and consent", skip: "Skip to content" } };
  assert.deepEqual(untrimmed(saved, before), { form: { agree_before: "I agree to the ", agree_after: " and consent", skip: "Skip to content" } });
});

test("a save of the words file changes the edited line alone", () => {
  const files = new Files(true);
  const path = "content/strings/de.yaml";
  const text = 'page:\n  skip: Zum Inhalt springen\nform:\n  agree_before: "Ich stimme der "\n  agree_after: " zu"\n';
  files.known(path, text);
  const data = { page: { skip: "Direkt zum Inhalt" }, form: { agree_before: "Ich stimme der", agree_after: "zu" } };
  assert.equal(files.textFor(path, data), text.replace("Zum Inhalt springen", "Direkt zum Inhalt"));
});
