// The privacy notices tell people how long their data is kept: the privacy
// policy the months of contact.retention_months in content/site.yaml, after
// which the messages' table deletes a message, and the applicants' notice the
// months of careers.retention_months, after which applications and CVs go.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { CONTACT_MESSAGES, JOB_APPLICATIONS } from "../islands/lib/forms.generated.ts";

const root = new URL("..", import.meta.url).pathname;
const site = parse(readFileSync(join(root, "content/site.yaml"), "utf8"));

/** The setting `contact.retention_months` of site.yaml, or the table's default. */
function months(table) {
  const [section, key] = table.retention.setting.split(".");
  return site[section]?.[key] ?? table.retention.defaultMonths;
}

for (const [page, table, what] of [
  ["content/pages/privacy-policy.md", CONTACT_MESSAGES, "messages"],
  ["content/pages/applicant-privacy.md", JOB_APPLICATIONS, "applications"],
]) {
  test(`${page} states ${table.retention.setting} of content/site.yaml`, () => {
    const kept = months(table);
    const text = readFileSync(join(root, page), "utf8");
    const stated = [...text.matchAll(/(\d+) months?\b/g)].map((m) => Number(m[1]));
    assert.ok(stated.length > 0, `${page} says nothing of how many months ${what} are kept: write it in digits, "${kept} months"`);
    assert.deepEqual(
      [...new Set(stated)],
      [kept],
      `${page} says ${what} are kept ${[...new Set(stated)].join(" and ")} months, content/site.yaml's ${table.retention.setting} ${kept}: make them agree`,
    );
  });
}
