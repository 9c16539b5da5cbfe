import { test } from "node:test";
import assert from "node:assert/strict";
import { COUNTRIES } from "./countries.ts";
import { JOB_APPLICATIONS } from "./forms.generated.ts";

test("every country once, by a code the table takes, in English alphabetical order", () => {
  const codes = COUNTRIES.map(([code]) => code);
  assert.equal(new Set(codes).size, codes.length);
  const pattern = new RegExp(JOB_APPLICATIONS.patterns.country);
  for (const code of codes) assert.match(code, pattern);
  const collator = new Intl.Collator("en");
  const names = COUNTRIES.map(([, name]) => name);
  assert.deepEqual(names, [...names].sort(collator.compare), "the server's HTML and the browser's first render list them in this order");
  for (const code of ["GB", "IE", "NL", "IN", "SG", "AU", "US"]) assert.ok(codes.includes(code), code);
});
