import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkAttachment,
  EMPTY_FIELDS,
  MAX_ATTACHMENT_BYTES,
  safeFileName,
  storageEndpoint,
  storageKey,
  validate,
} from "./contact.ts";

const filled = {
  ...EMPTY_FIELDS,
  name: "Asha Patel",
  email: "asha@example.com",
  subject: "Cloud migration",
  message: "We would like to talk.",
  agree: true,
};

test("a complete form has no errors; phone and company are optional", () => {
  assert.deepEqual(validate(filled), {});
});

test("every required field is reported when empty", () => {
  assert.deepEqual(Object.keys(validate(EMPTY_FIELDS)).sort(), ["agree", "email", "message", "name", "subject"]);
  assert.ok(validate({ ...filled, name: "   " }).name, "blank is empty");
});

test("an email address must look like one", () => {
  assert.ok(validate({ ...filled, email: "asha" }).email);
  assert.ok(validate({ ...filled, email: "asha@" }).email);
  assert.equal(validate({ ...filled, email: "asha.patel+web@mail.example.co.uk" }).email, undefined);
});

test("attachments must be JPG, PNG or GIF and at most 5 MiB", () => {
  assert.equal(MAX_ATTACHMENT_BYTES, 5 * 1024 * 1024);
  assert.equal(checkAttachment({ type: "image/png", size: 100 }), null);
  assert.equal(checkAttachment({ type: "image/gif", size: MAX_ATTACHMENT_BYTES }), null);
  assert.equal(checkAttachment({ type: "image/jpeg", size: MAX_ATTACHMENT_BYTES + 1 }), "too-large");
  assert.equal(checkAttachment({ type: "application/pdf", size: 100 }), "invalid-type");
  assert.equal(checkAttachment({ type: "image/webp", size: 100 }), "invalid-type");
  assert.equal(checkAttachment({ type: "", size: 100 }), "invalid-type");
});

test("file names become keys the storage server accepts, and stay readable", () => {
  assert.equal(safeFileName("photo.png"), "photo.png");
  assert.equal(safeFileName("Café menu (final).JPG"), "Cafe_menu_final.jpg");
  assert.equal(safeFileName("写真.png"), "attachment.png");
  assert.equal(safeFileName("a#b?c%d.gif"), "a_b_c_d.gif");
  assert.equal(safeFileName("../../etc/passwd"), "passwd");
  assert.equal(safeFileName("C:\\Users\\me\\scan.png"), "scan.png");
  assert.equal(safeFileName(".hidden"), "hidden");
  assert.ok(safeFileName("x".repeat(500) + ".png").length <= 84);
  for (const name of ["Café menu (final).JPG", "写真.png", "a#b?c%d.gif", "ünïcödé ☃.png"]) {
    assert.match(storageKey(name, 1), /^public\/1_[A-Za-z0-9._-]+$/);
  }
});

test("the key is public/<timestamp>_<file name>", () => {
  assert.equal(storageKey("map.png", 1763769600000), "public/1763769600000_map.png");
});

test("an empty storage URL means this site's own origin", () => {
  assert.equal(storageEndpoint("", "http://127.0.0.1:8080"), "http://127.0.0.1:8080/storage/v1");
  assert.equal(storageEndpoint("https://abc.supabase.co/", "http://x"), "https://abc.supabase.co/storage/v1");
});
