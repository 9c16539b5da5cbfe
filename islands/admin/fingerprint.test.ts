import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { changed, fingerprintOfText, wordsFingerprint, type Shape } from "./fingerprint.ts";
import { flatRecord, recordIn, withRecord } from "./record.ts";

/** The table the build is held to as well (staleness.rs). Tests run from the project's root. */
const table = JSON.parse(readFileSync(path.join(process.cwd(), "generator/tests/fingerprints.json"), "utf8")) as {
  shapes: Record<string, Shape>;
  words: { text: string; fingerprint: string }[];
  files: { kind: string; markdown: boolean; text: string; fingerprint: [string, string][] }[];
};

test("the words fingerprint of every text of the shared table is the build's", () => {
  for (const { text, fingerprint } of table.words) assert.equal(wordsFingerprint(text), fingerprint, JSON.stringify(text));
});

test("the fingerprint of every file of the shared table is the build's: the same fields, paths and order", () => {
  for (const file of table.files) {
    assert.deepEqual(fingerprintOfText(table.shapes[file.kind], file.markdown, file.text), file.fingerprint, file.text);
  }
});

test("only words count: a reflowed or restyled text keeps its fingerprint, a changed word does not", () => {
  assert.equal(wordsFingerprint("We started in 2021\n  with a *small* team."), wordsFingerprint("We started in 2021 with a small team"));
  assert.notEqual(wordsFingerprint("with a small team"), wordsFingerprint("with a smaller team"));
  assert.notEqual(wordsFingerprint("Über uns"), wordsFingerprint("über uns"));
});

test("what changed since a record: the fields whose words changed, then those gone", () => {
  const record = { title: "00000001", description: "00000002", "blocks[0].heading": "00000003" };
  const now: [string, string][] = [
    ["title", "00000001"],
    ["description", "0000000f"],
    ["blocks[1].heading", "00000004"],
  ];
  assert.deepEqual(changed(now, record), ["description", "blocks[1].heading", "blocks[0].heading"]);
});

const print: [string, string][] = [
  ["title", "1a2b3c4d"],
  ["blocks[0].heading", "00000001"],
];

test("a page of blocks gets its record before its blocks, written as site translations writes it", () => {
  const text =
    "# yaml-language-server: $schema=../../schemas/page.schema.json\ntitle: Über uns # kept\ndescription: Wer wir sind\n\nblocks:\n  - type: text\n    heading: Unsere Geschichte\n";
  const written = withRecord(text, false, print);
  assert.equal(
    written,
    '# yaml-language-server: $schema=../../schemas/page.schema.json\ntitle: Über uns # kept\ndescription: Wer wir sind\n\ntranslated_from:\n  title: "1a2b3c4d"\n  "blocks[0].heading": "00000001"\nblocks:\n  - type: text\n    heading: Unsere Geschichte\n',
  );
  // Recorded again, the old record is replaced and nothing else moves.
  const again = withRecord(written, false, [["title", "ffffffff"]]);
  assert.equal(again, written.replace('  title: "1a2b3c4d"\n  "blocks[0].heading": "00000001"\n', '  title: "ffffffff"\n'));
  assert.deepEqual(recordIn(again, false), { title: "ffffffff" });
});

test("a Markdown page gets its record at the end of its front matter", () => {
  const text = "---\ntitle: Über uns\ndraft: true\n---\n\nDer Text.\n";
  const written = withRecord(text, true, print);
  assert.equal(written, '---\ntitle: Über uns\ndraft: true\ntranslated_from:\n  title: "1a2b3c4d"\n  "blocks[0].heading": "00000001"\n---\n\nDer Text.\n');
  assert.deepEqual(recordIn(written, true), { title: "1a2b3c4d", "blocks[0].heading": "00000001" });
});

test("a record the editor hands back by its dotted paths reads as written", () => {
  assert.deepEqual(flatRecord({ title: "1a2b3c4d", "blocks[0]": { heading: "00000001", "cards[2]": { title: "00000002" } } }), {
    title: "1a2b3c4d",
    "blocks[0].heading": "00000001",
    "blocks[0].cards[2].title": "00000002",
  });
  assert.equal(flatRecord(undefined), undefined);
});
