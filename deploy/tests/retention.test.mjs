// The retention workflow's step, run for real (its own script, under the Node.js
// it sets up, with the deploy tools' lockfile), against a stand-in of Supabase
// Storage's list and delete API on loopback, holding the contact form's images
// and applicants' CVs of several ages: images past contact.retention_months
// go, CVs past careers.retention_months go, the rest stay.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { BUCKET, cutoff, retentionMonths } from "../delete-old-attachments.mjs";
import { JOB_APPLICATIONS } from "../../islands/lib/forms.generated.ts";
import { root, runStep, step, workflowJob } from "./workflow.mjs";

const SERVICE_KEY = "service-role-key";
const DAY = 24 * 3600 * 1000;

/**
 * The Storage API's `POST /object/list/{bucket}` and `DELETE /object/{bucket}` as
 * the Supabase storage server answers them (names relative to the prefix,
 * folders without an id, `sortBy` and `limit` honoured), on `objects`: key → the
 * time it was stored, for the contact form's bucket, and `cvs` for the
 * applications bucket.
 */
async function startStorageApi(objects, cvs = new Map()) {
  const buckets = { [BUCKET]: objects, applications: cvs };
  const requests = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    requests.push({ method: req.method, url: req.url, body });
    const send = (status, json) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.headers.authorization !== `Bearer ${SERVICE_KEY}` || req.headers.apikey !== SERVICE_KEY) {
      return send(400, { statusCode: "403", error: "Unauthorized", message: "invalid signature" });
    }
    const listed = req.url.match(/^\/storage\/v1\/object\/list\/([^/]+)$/);
    if (req.method === "POST" && listed && buckets[listed[1]]) {
      const prefix = body.prefix ? `${body.prefix.replace(/\/$/, "")}/` : "";
      const entries = [...buckets[listed[1]]]
        .filter(([key]) => key.startsWith(prefix))
        .map(([key, at]) => {
          const rest = key.slice(prefix.length);
          return rest.includes("/")
            ? { name: rest.split("/")[0], id: null, created_at: null }
            : { name: rest, id: `id-${key}`, created_at: new Date(at).toISOString(), metadata: { size: 10 } };
        });
      const unique = [...new Map(entries.map((e) => [e.name, e])).values()];
      const column = body.sortBy?.column ?? "name";
      unique.sort((a, b) => String(a[column] ?? "").localeCompare(String(b[column] ?? "")) * (body.sortBy?.order === "desc" ? -1 : 1));
      return send(200, unique.slice(body.offset ?? 0, (body.offset ?? 0) + (body.limit ?? 100)));
    }
    const deleted = req.url.match(/^\/storage\/v1\/object\/([^/]+)$/);
    if (req.method === "DELETE" && deleted && buckets[deleted[1]]) {
      const removed = body.prefixes.filter((k) => buckets[deleted[1]].delete(k)).map((k) => ({ name: k, bucket_id: deleted[1] }));
      return send(200, removed);
    }
    send(400, { statusCode: "404", error: "not_found", message: `no route ${req.method} ${req.url}` });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, stop: () => new Promise((r) => server.close(r)) };
}

const job = workflowJob("retention.yml", "attachments");
const remove = step(job, "Delete the images and CVs past the retention");
let workspace;

before(() => {
  workspace = mkdtempSync(path.join(tmpdir(), "site-retention-"));
  symlinkSync(path.join(root, "deploy"), path.join(workspace, "deploy"));
  mkdirSync(path.join(workspace, "content"));
  writeFileSync(path.join(workspace, ".node-version"), readFileSync(path.join(root, ".node-version")));
});

after(() => rmSync(workspace, { recursive: true, force: true }));

/** The project's site.yaml, with contact.retention_months `months` when given. */
function siteYaml(months) {
  const text = readFileSync(path.join(root, "content/site.yaml"), "utf8");
  const contact = /(\ncontact:\n(?:  .*\n|\n)*?  retention_months: )\d+/;
  writeFileSync(path.join(workspace, "content/site.yaml"), months === undefined ? text : text.replace(contact, `$1${months}`));
}

const contexts = (url, key) => ({ vars: { SUPABASE_URL: url }, secrets: { SUPABASE_SERVICE_ROLE_KEY: key } });
const log = (r) => `exit ${r.code}\n${r.stdout}${r.stderr}`;

describe("the nightly deletion of old images", () => {
  test("deletes the images stored before the retention, a thousand at a time, and keeps the rest", async () => {
    siteYaml();
    const months = retentionMonths(readFileSync(path.join(workspace, "content/site.yaml"), "utf8"));
    const limit = cutoff(Date.now(), months).getTime();
    const objects = new Map();
    for (let i = 0; i < 1500; i++) objects.set(`public/${1600000000000 + i}_old${i}.png`, limit - DAY - i * 60_000);
    objects.set("public/1700000000000_just_kept.png", limit + DAY);
    objects.set("public/1763800000000_recent.png", Date.now() - DAY);
    // A key's timestamp is the visitor's clock: the time stored decides, not the name.
    objects.set("public/9999999999999_clock_ahead.png", limit - DAY);
    objects.set("public/nested/1600000000000_other.png", limit - 10 * DAY);
    objects.set("elsewhere/1600000000000_x.png", limit - 10 * DAY);
    const api = await startStorageApi(objects);
    try {
      const result = await runStep(job, remove, { workspace, contexts: contexts(api.url, SERVICE_KEY) });
      assert.equal(result.code, 0, log(result));
      assert.match(result.stdout, new RegExp(`Deleted 1501 images of ${BUCKET} stored before \\d{4}-\\d\\d-\\d\\dT.* \\(${months} months\\)\\.`));
      assert.deepEqual([...objects.keys()].sort(), [
        "elsewhere/1600000000000_x.png",
        "public/1700000000000_just_kept.png",
        "public/1763800000000_recent.png",
        "public/nested/1600000000000_other.png",
      ]);
      const deletes = api.requests.filter((r) => r.method === "DELETE");
      assert.ok(deletes.every((d) => d.body.prefixes.length <= 1000), "at most a thousand a request");
    } finally {
      await api.stop();
    }
  });

  test("follows contact.retention_months", async () => {
    siteYaml(1);
    const objects = new Map([
      ["public/1_two_months.png", Date.now() - 62 * DAY],
      ["public/2_two_weeks.png", Date.now() - 14 * DAY],
    ]);
    const api = await startStorageApi(objects);
    try {
      const result = await runStep(job, remove, { workspace, contexts: contexts(api.url, SERVICE_KEY) });
      assert.equal(result.code, 0, log(result));
      assert.deepEqual([...objects.keys()], ["public/2_two_weeks.png"]);
    } finally {
      await api.stop();
    }
  });

  test("deletes the CVs stored before careers.retention_months, in every posting's folder", async () => {
    siteYaml();
    const months = retentionMonths(readFileSync(path.join(workspace, "content/site.yaml"), "utf8"), JOB_APPLICATIONS);
    const limit = cutoff(Date.now(), months).getTime();
    const cvs = new Map([
      ["senior-data-engineer-hyderabad/1700000000000_old.pdf", limit - DAY],
      ["senior-data-engineer-hyderabad/1763800000000_new.pdf", limit + DAY],
      ["security-consultant-london/1700000000001_old.docx", limit - 30 * DAY],
      ["a-closed-role/1600000000000_older.pdf", limit - 90 * DAY],
    ]);
    const api = await startStorageApi(new Map(), cvs);
    try {
      const result = await runStep(job, remove, { workspace, contexts: contexts(api.url, SERVICE_KEY) });
      assert.equal(result.code, 0, log(result));
      assert.match(result.stdout, new RegExp(`Deleted 3 CVs of applications stored before .* \\(${months} months\\)\\.`));
      assert.deepEqual([...cvs.keys()], ["senior-data-engineer-hyderabad/1763800000000_new.pdf"]);
    } finally {
      await api.stop();
    }
  });

  test("fails with the Storage API's message when the key is refused, deleting nothing", async () => {
    siteYaml();
    const objects = new Map([["public/1_old.png", 0]]);
    const api = await startStorageApi(objects);
    try {
      const result = await runStep(job, remove, { workspace, contexts: contexts(api.url, "anon-key") });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /error: POST \/object\/list\/contact-attachments answered HTTP 400: invalid signature/);
      assert.equal(objects.size, 1);
    } finally {
      await api.stop();
    }
  });

  test("fails, saying what to set, without the project's settings", async () => {
    siteYaml();
    const result = await runStep(job, remove, { workspace, contexts: contexts("", "") });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY must be set/);
  });
});

test("a month back is the same day of that month, or its last day", () => {
  assert.equal(cutoff(Date.UTC(2026, 2, 31, 12), 1).toISOString(), "2026-02-28T12:00:00.000Z");
  assert.equal(cutoff(Date.UTC(2026, 10, 23), 12).toISOString(), "2025-11-23T00:00:00.000Z");
  assert.throws(() => retentionMonths("contact:\n  retention_months: 0\n"), /contact.retention_months must be .* from 1 to 120/);
  assert.equal(retentionMonths("name: X\n"), 12);
  assert.equal(retentionMonths("name: X\n", JOB_APPLICATIONS), 6);
  assert.equal(retentionMonths("careers:\n  retention_months: 3\n", JOB_APPLICATIONS), 3);
});
