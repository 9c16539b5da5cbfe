import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import {
  checkAttachment,
  EMPTY_FIELDS,
  fieldsFromForm,
  MAX_ATTACHMENT_BYTES,
  MAX_LENGTH,
  MAX_QUERY_SUBJECT,
  safeFileName,
  storageEndpoint,
  storageKey,
  subjectFromQuery,
  isRequired,
  validate as validateIn,
  type Fields,
} from "./contact.ts";

// The site's own words: the form's messages as the English and German pages show them.
// The project's root, however this file is compiled and wherever it is put.
const root = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "content", "strings")) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return dir;
})();
const strings = (code: string) => parse(readFileSync(path.join(root, "content", "strings", `${code}.yaml`), "utf8"));
const english = strings("en").form;
const validate = (fields: Fields) => validateIn(fields, english, "en");

test("the messages are the page's language's", () => {
  assert.equal(validate({ ...EMPTY_FIELDS, ...{ name: "" } }).name, "Please enter your full name.");
  const long = { name: "Asha", email: "a@b.co", subject: "s", message: "m".repeat(MAX_LENGTH.message + 1), agree: true };
  assert.equal(validate({ ...EMPTY_FIELDS, ...long }).message, "Please shorten your message to 5,000 characters or fewer.");
  const german = { required_name: "Bitte geben Sie Ihren vollständigen Namen ein.", too_long: "Höchstens {max} Zeichen für {field}.", field_message: "Nachricht" };
  assert.equal(validateIn({ ...EMPTY_FIELDS }, german, "de").name, german.required_name);
  assert.equal(validateIn({ ...EMPTY_FIELDS, ...long }, german, "de").message, "Höchstens 5.000 Zeichen für Nachricht.");
});

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

test("a link's subject is read from the query string", () => {
  assert.equal(subjectFromQuery("?subject=Cloud%20migration"), "Cloud migration");
  assert.equal(subjectFromQuery("subject=Cloud%20migration"), "Cloud migration", "the ? is optional");
  assert.equal(subjectFromQuery("?ref=jobs&subject=Hello&x=1"), "Hello");
  const subject = subjectFromQuery("?subject=Application%3A%20Senior%20Cloud%20Engineer%20(London)");
  assert.equal(subject, "Application: Senior Cloud Engineer (London)");
  assert.deepEqual(validate({ ...filled, subject: subject! }), {}, "it satisfies the subject rule");
});

test("no subject, or a blank one, gives null", () => {
  assert.equal(subjectFromQuery(""), null);
  assert.equal(subjectFromQuery("?"), null);
  assert.equal(subjectFromQuery("?subject"), null);
  assert.equal(subjectFromQuery("?subject="), null);
  assert.equal(subjectFromQuery("?subject=%20%20+%09%0A"), null);
  assert.equal(subjectFromQuery("?subject=%00%1F%7F"), null, "only control characters");
});

test("other parameters are not a subject", () => {
  assert.equal(subjectFromQuery("?message=Hello"), null);
  assert.equal(subjectFromQuery("?Subject=Hello"), null, "names are case-sensitive");
  assert.equal(subjectFromQuery("?subjects=Hello&title=Hi"), null);
  assert.equal(subjectFromQuery("#subject=Hello"), null, "nor is the fragment");
});

test("%-escapes and + are decoded", () => {
  assert.equal(subjectFromQuery("?subject=Application%3A+Senior+Cloud+Engineer"), "Application: Senior Cloud Engineer");
  assert.equal(subjectFromQuery("?subject=C%2B%2B+%26+Rust"), "C++ & Rust");
  assert.equal(subjectFromQuery("?subject=Caf%C3%A9"), "Café");
  assert.equal(subjectFromQuery("?subject=100%25+remote%"), "100% remote%", "a stray % is kept, not an error");
});

test("a subject is one line: newlines, tabs and control characters become one space", () => {
  assert.equal(subjectFromQuery("?subject=%20%20Line%20one%0D%0ALine%09two%20%20"), "Line one Line two");
  assert.equal(subjectFromQuery("?subject=a%00b%1Bc%7Fd%C2%85e"), "a b c d e");
  assert.equal(subjectFromQuery("?subject=a%E2%80%A8b%E2%80%A9c"), "a b c", "Unicode line and paragraph separators");
  assert.equal(subjectFromQuery("?subject=a%0A%0A%0A%20%20b"), "a b");
});

test("an overlong subject is cut, at a word when it can be", () => {
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
  const cut = subjectFromQuery(`?subject=${encodeURIComponent(words)}`)!;
  assert.ok(cut.length <= MAX_QUERY_SUBJECT, `${cut.length} characters`);
  assert.ok(cut.length > MAX_QUERY_SUBJECT / 2);
  assert.ok(words.startsWith(`${cut} `), "ends at a whole word");
  // One long word has nowhere better to be cut.
  assert.equal(subjectFromQuery(`?subject=${"x".repeat(500)}`), "x".repeat(MAX_QUERY_SUBJECT));
  // Exactly the limit is kept, and a cut that lands just before a space keeps the last word.
  const exact = `${"a".repeat(MAX_QUERY_SUBJECT - 4)} end`;
  assert.equal(subjectFromQuery(`?subject=${encodeURIComponent(exact)}`), exact);
  assert.equal(subjectFromQuery(`?subject=${encodeURIComponent(exact + " more")}`), exact);
  // A cut never splits a character made of two UTF-16 units.
  assert.equal(subjectFromQuery(`?subject=${encodeURIComponent("😀".repeat(200))}`), "😀".repeat(MAX_QUERY_SUBJECT));
});

test("each text field is bounded, in characters as the table counts them", () => {
  const at = (n: number) => "é".repeat(n);
  assert.deepEqual(validate({ ...filled, message: at(MAX_LENGTH.message) }), {});
  assert.match(validate({ ...filled, message: at(MAX_LENGTH.message + 1) }).message ?? "", /5,000 characters/);
  // An emoji is one character, though two UTF-16 units.
  assert.deepEqual(validate({ ...filled, name: "😀".repeat(MAX_LENGTH.name) }), {});
  assert.ok(validate({ ...filled, name: "😀".repeat(MAX_LENGTH.name + 1) }).name);
  assert.ok(validate({ ...filled, phone: "1".repeat(MAX_LENGTH.phone + 1) }).phone);
  assert.ok(validate({ ...filled, company: at(MAX_LENGTH.company + 1) }).company);
  assert.ok(validate({ ...filled, subject: at(MAX_LENGTH.subject + 1) }).subject);
  assert.ok(validate({ ...filled, email: `${"a".repeat(250)}@example.com` }).email);
});

test("the fields are read from the form as the visitor left them before hydration", () => {
  const controls: Record<string, { value: string; type?: string; checked?: boolean }> = {
    name: { value: "Asha Rao" },
    email: { value: "asha@example.com" },
    message: { value: "Hello\nthere" },
    agree: { value: "on", type: "checkbox", checked: true },
  };
  assert.deepEqual(
    fieldsFromForm((name) => controls[name] ?? null),
    { ...EMPTY_FIELDS, name: "Asha Rao", email: "asha@example.com", message: "Hello\nthere", agree: true },
  );
  assert.deepEqual(fieldsFromForm(() => null), EMPTY_FIELDS);
  assert.equal(fieldsFromForm(() => ({ value: "on", type: "checkbox", checked: false })).agree, false);
});

test("the fields the form requires are the ones the table requires, and no others", () => {
  assert.deepEqual(
    (["name", "email", "phone", "company", "subject", "message", "agree"] as const).filter(isRequired),
    ["name", "email", "subject", "message", "agree"],
  );
});
