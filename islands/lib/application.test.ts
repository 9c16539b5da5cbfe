import { test } from "node:test";
import assert from "node:assert/strict";
import {
  APPLICATION_MAX,
  applicationFromForm,
  applicationRow,
  cvKey,
  EMPTY_APPLICATION,
  isClosed,
  validateApplication,
  type ApplicationFields,
} from "./application.ts";
import { APPLICATIONS, JOB_APPLICATIONS } from "./forms.generated.ts";

const words = {
  required_name: "Please enter your name",
  required_email: "Please enter your e-mail address",
  invalid_email: "Please enter a valid e-mail address",
  required_phone: "Please enter your phone number",
  invalid_profile: "A profile link starts with https://",
  required_country: "Please choose where you live",
  country_not_taken: "This role is open to people living in {countries}",
  required_note: "Please write a short covering note",
  required_cv: "Please attach your CV",
  required_agree: "Please accept the privacy notice",
  too_long: "{field} can be at most {max} characters",
  field_note: "The note",
};

const filled: ApplicationFields = {
  name: "Asha Patel",
  email: "asha@example.com",
  phone: "+44 20 7946 0000",
  profile: "",
  country: "GB",
  note: "I have run Azure platforms for six years.",
  agree: true,
};
const anywhere = { applicantsFrom: [] };

test("a filled-in form with a CV has nothing to fix", () => {
  assert.deepEqual(validateApplication(filled, true, anywhere, words), {});
});

test("an empty form names every required field and the CV", () => {
  const errors = validateApplication(EMPTY_APPLICATION, false, anywhere, words);
  assert.deepEqual(Object.keys(errors).sort(), ["agree", "country", "cv", "email", "name", "note", "phone"]);
  assert.equal(errors.cv, "Please attach your CV");
});

test("a profile must be an https address", () => {
  for (const profile of ["http://example.com/me", "javascript:alert(1)", "linkedin.com/in/asha", "https://"]) {
    assert.equal(validateApplication({ ...filled, profile }, true, anywhere, words).profile, words.invalid_profile, profile);
  }
  assert.deepEqual(validateApplication({ ...filled, profile: "https://www.linkedin.com/in/asha-patel" }, true, anywhere, words), {});
});

test("a remote role takes applicants from its countries only, named in the page's language", () => {
  const remote = { applicantsFrom: ["GB", "IE", "NL"] };
  assert.deepEqual(validateApplication({ ...filled, country: "IE" }, true, remote, words), {});
  const names: Record<string, string> = { GB: "United Kingdom", IE: "Ireland", NL: "Netherlands" };
  assert.equal(
    validateApplication({ ...filled, country: "FR" }, true, remote, words, "en", (c) => names[c] ?? c).country,
    "This role is open to people living in United Kingdom, Ireland, Netherlands",
  );
});

test("the bounds are the table's, counted in characters", () => {
  assert.equal(APPLICATION_MAX.note, JOB_APPLICATIONS.maxLength.note);
  const at = (n: number) => "é".repeat(n);
  assert.deepEqual(validateApplication({ ...filled, note: at(APPLICATION_MAX.note) }, true, anywhere, words), {});
  assert.equal(validateApplication({ ...filled, note: at(APPLICATION_MAX.note + 1) }, true, anywhere, words).note, "The note can be at most 5,000 characters");
  assert.equal(validateApplication({ ...filled, note: at(5001) }, true, anywhere, words, "de").note, "The note can be at most 5.000 characters");
});

test("what was typed before hydration is read back from the controls", () => {
  const values: Record<string, { value: string; checked?: boolean }> = { name: { value: "Asha" }, country: { value: "NL" }, agree: { value: "on", checked: true } };
  assert.deepEqual(applicationFromForm((n) => values[n] ?? null), { ...EMPTY_APPLICATION, name: "Asha", country: "NL", agree: true });
});

test("a CV's key is in its posting's folder and matches the bucket's pattern", () => {
  const key = cvKey("senior-cloud-engineer-remote-europe", "Asha Patel – CV (2026).pdf", 1763800000000);
  assert.equal(key, "senior-cloud-engineer-remote-europe/1763800000000_Asha_Patel_CV_2026.pdf");
  assert.match(key, new RegExp(JOB_APPLICATIONS.patterns.cv_key));
  // With its send's key: the same for each attempt of the send, and still the bucket's shape.
  const long = "A very long name of a curriculum vitae that goes on and on and on (final version 3).pdf";
  const keyed = cvKey("senior-cloud-engineer-remote-europe", long, 1763800000000, "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b");
  assert.match(keyed, /^senior-cloud-engineer-remote-europe\/1763800000000_3f2a9c1e0b4d4e8f9a7b6c5d4e3f2a1b_A_very_long[A-Za-z0-9_]*\.pdf$/);
  assert.match(keyed, new RegExp(JOB_APPLICATIONS.patterns.cv_key));
  assert.match(keyed, new RegExp(APPLICATIONS.keyPattern));
});

test("a posting closes at its closing moment", () => {
  const closes = "2026-12-01T00:00:00Z";
  assert.equal(isClosed(closes, Date.parse("2026-11-30T23:59:59Z")), false);
  assert.equal(isClosed(closes, Date.parse("2026-12-01T00:00:00Z")), true);
  assert.equal(isClosed("not a date", Date.now()), false);
});

test("the row is trimmed, with no profile as null", () => {
  const row = applicationRow({ ...filled, name: "  Asha Patel " }, { jobId: "j", cvKey: "j/1_cv.pdf", page: "/careers/j/", fillMs: 8200.4, trap: "", sendKey: "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b" });
  assert.equal(row.name, "Asha Patel");
  assert.equal(row.profile_url, null);
  assert.equal(row.fill_ms, 8200);
  assert.deepEqual(Object.keys(row).sort(), [...JOB_APPLICATIONS.required, "profile_url", "website", "send_key"].sort());
});
