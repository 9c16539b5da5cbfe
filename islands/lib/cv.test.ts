import { test } from "node:test";
import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { checkCv, cvKind, sizeProblem, zipEntries, MAX_CV_BYTES } from "./cv.ts";

/** A ZIP of `names` (each holding a few bytes), as any zip tool writes one. */
function zip(names: string[], comment = ""): Uint8Array<ArrayBuffer> {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const name of names) {
    const data = deflateRawSync(Buffer.from(`<x>${name}</x>`));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt16LE(Buffer.byteLength(name), 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt16LE(Buffer.byteLength(name), 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, Buffer.from(name), data);
    directory.push(entry, Buffer.from(name));
    offset += 30 + Buffer.byteLength(name) + data.length;
  }
  const dir = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(Buffer.byteLength(comment), 20);
  return new Uint8Array(Buffer.concat([...parts, dir, end, Buffer.from(comment)]));
}

const DOCX = ["[Content_Types].xml", "_rels/.rels", "word/document.xml"];

test("a PDF is known by its first bytes, whatever it is called", () => {
  assert.equal(cvKind(new TextEncoder().encode("%PDF-1.7\n%âãÏÓ\n1 0 obj")), "pdf");
  assert.equal(cvKind(new TextEncoder().encode(" %PDF-1.7")), null);
});

test("a Word document is a ZIP with a document part, even behind a comment", () => {
  assert.deepEqual(zipEntries(zip(DOCX)), DOCX);
  assert.equal(cvKind(zip(DOCX)), "docx");
  assert.equal(cvKind(zip(DOCX, "made by a tool that signs its files")), "docx");
});

test("other ZIPs, pictures and programs renamed .pdf or .docx are neither", () => {
  assert.equal(cvKind(zip(["photos/1.jpg", "[Content_Types].xml"])), null, "a ZIP renamed .docx");
  assert.equal(cvKind(zip(["xl/workbook.xml", "[Content_Types].xml"])), null, "a spreadsheet");
  assert.equal(cvKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), null, "a PNG");
  assert.equal(cvKind(new TextEncoder().encode("MZ\x90\x00")), null, "a Windows program");
  assert.equal(cvKind(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])), null, "a cut-off ZIP");
  assert.equal(cvKind(new Uint8Array()), null);
});

test("a damaged ZIP directory is refused, never read past its end", () => {
  const whole = zip(DOCX);
  const cut = whole.slice(0, whole.length - 30);
  assert.equal(cvKind(cut), null);
  const lying = zip(DOCX);
  // The end record claims more entries than there are.
  new DataView(lying.buffer).setUint16(lying.length - 12, 9, true);
  assert.equal(cvKind(lying), null);
});

test("an empty file and one over 10 MB are refused before they are read", async () => {
  assert.equal(sizeProblem(0), "empty");
  assert.equal(sizeProblem(MAX_CV_BYTES), null);
  assert.equal(sizeProblem(MAX_CV_BYTES + 1), "too-large");
  assert.equal(MAX_CV_BYTES, 10 * 1024 * 1024);
  assert.deepEqual(await checkCv(new Blob([])), { problem: "empty" });
  assert.deepEqual(await checkCv(new Blob([zip(DOCX)])), { kind: "docx" });
  assert.deepEqual(await checkCv(new Blob(["GIF89a..."])), { problem: "invalid-type" });
});
