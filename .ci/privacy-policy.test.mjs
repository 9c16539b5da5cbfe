// The privacy policy tells visitors how long their messages are kept: the same
// number of months as contact.retention_months in content/site.yaml, which the
// messages' table deletes them after.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const root = new URL("..", import.meta.url).pathname;

test("the privacy policy states the retention of content/site.yaml", () => {
  const site = parse(readFileSync(join(root, "content/site.yaml"), "utf8"));
  const months = site.contact.retention_months ?? 12;
  const policy = readFileSync(join(root, "content/pages/privacy-policy.md"), "utf8");
  const stated = [...policy.matchAll(/(\d+) months?\b/g)].map((m) => Number(m[1]));
  assert.ok(stated.length > 0, `content/pages/privacy-policy.md says nothing of how many months messages are kept: write it in digits, "${months} months"`);
  assert.deepEqual(
    [...new Set(stated)],
    [months],
    `content/pages/privacy-policy.md says messages are kept ${[...new Set(stated)].join(" and ")} months, content/site.yaml's contact.retention_months ${months}: make them agree`,
  );
});
