// The applications' migration against a real PostgreSQL, and `site serve`'s
// built-in storage and table against it. Each case is an application as the
// form makes it (islands/lib/application.ts), then changed: its CV is stored
// first, in `site serve` by an upload to its storage API and in PostgreSQL as
// the Storage server records an upload (a row of storage.objects inserted as
// `anon`, under the bucket's row-level security, with the size and type it
// measured); then the row is put to both, the way PostgREST puts it
// (postgrest.mjs), and both must answer alike. Then the storage's own rules,
// and what each side does with files that are not CVs.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { copySite, keepPostingsOpen, startServer } from "../../e2e/support.mjs";
import { formModules } from "./form.mjs";
import { startPostgres, supabaseLike } from "./postgres.mjs";
import { columnsOf, insert } from "./postgrest.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const migrations = path.join(root, "supabase", "migrations");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const TABLE = "job_applications";
const BUCKET = "applications";
const KEY = "test-anon-key";
const SERVICE = "test-service-role-key";
const JOB = "senior-cloud-engineer-remote-europe";
const OTHER_JOB = "security-consultant-london";
const CLOSED_JOB = "cloud-architect-closed";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const DOCX = readFileSync(path.join(root, "e2e/fixtures/cv.docx"));
const TYPES = { pdf: "application/pdf", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" };

let pg;
let db;
let columns;
let server;
let form;

let sequence = 0;
/** A different sender, and a different moment for its CV, for each request. */
function next() {
  sequence += 1;
  return { address: `203.0.${Math.floor(sequence / 250)}.${sequence % 250}`, email: `applicant${sequence}@example.com`, at: 1763800000000 + sequence };
}

/** The row the form sends for a filled-in form, its CV at `cv`. */
function formRow(from, cv) {
  const fields = {
    ...form.EMPTY_APPLICATION,
    name: "Asha Patel",
    email: from.email,
    phone: "+44 20 7946 0000",
    profile: "https://www.linkedin.com/in/asha-patel",
    country: "IE",
    note: "I have run Azure platforms for six years.",
    agree: true,
  };
  return form.applicationRow(fields, { jobId: JOB, cvKey: cv, page: `/careers/${JOB}/`, fillMs: 8200, trap: "", sendKey: randomUUID() });
}

/** Uploads `bytes` at `key` to site serve's storage as the form does; `{ status, body }`. */
async function upload(key, bytes, type, { upsert = false, as = KEY } = {}) {
  const body = new FormData();
  body.append("cacheControl", "0");
  body.append("", new Blob([bytes], { type }));
  const response = await fetch(`${server.url}/storage/v1/object/${BUCKET}/${key}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${as}`, apikey: as, "x-upsert": String(upsert) },
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** What the Storage server writes for an upload: a row of storage.objects, as the caller's role. */
async function record(key, { size, mimetype }, role = "anon") {
  await db.query("begin");
  try {
    await db.query(`set local role ${role}`);
    await db.query("insert into storage.objects (bucket_id, name, metadata) values ($1, $2, $3)", [BUCKET, key, { size, mimetype }]);
    await db.query("commit");
    return { ok: true };
  } catch (error) {
    await db.query("rollback");
    return { ok: false, code: error.code, message: error.message };
  }
}

/**
 * Stores a CV at `key` on both sides, as the public does, or with `service`
 * as the service role, which row-level security does not bind (a CV stored
 * before its posting closed, say).
 */
async function store(key, bytes = PDF, type = TYPES.pdf, { service = false } = {}) {
  const served = await upload(key, bytes, type, { as: service ? SERVICE : KEY });
  assert.equal(served.status, 200, JSON.stringify(served.body));
  const recorded = await record(key, { size: bytes.length, mimetype: type }, service ? "service_role" : "anon");
  assert.ok(recorded.ok, recorded.message);
}

/** The row to PostgreSQL (through PostgREST's insert) and to site serve. */
async function both(row, address) {
  const body = JSON.stringify(row);
  const headers = { "X-Forwarded-For": address };
  const database = await insert(db, TABLE, columns, body, headers);
  const response = await fetch(`${server.url}/rest/v1/${TABLE}`, {
    method: "POST",
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}`, "Content-Type": "application/json", ...headers },
    body,
  });
  const text = await response.text();
  return { database, builtIn: { status: response.status, body: text ? JSON.parse(text) : null } };
}

const without = (row, ...keys) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));
const long = (n) => "é".repeat(n);
const constraint = (name) => `new row for relation "${TABLE}" violates check constraint "${TABLE}_${name}_check"`;
const notNull = (column) => `null value in column "${column}" of relation "${TABLE}" violates not-null constraint`;
const RLS = `new row violates row-level security policy for table "${TABLE}"`;
const DENIED = `permission denied for table ${TABLE}`;

/**
 * Each case: its name, the row from a fresh sender's form row and CV key (the
 * CV is stored first unless `stored: false`), and the status, code and message
 * expected of both.
 */
const CASES = [
  ["an application with a PDF", (r) => r, [201]],
  ["an application with a Word document", (r) => r, [201], { cv: DOCX, type: TYPES.docx, name: "cv.docx" }],
  ["no profile", (r) => ({ ...r, profile_url: null }), [201]],
  ["a name of 200 characters and a note of 5,000", (r) => ({ ...r, name: long(200), note: long(5000) }), [201]],
  ["a name of 201 characters", (r) => ({ ...r, name: long(201) }), [400, "23514", constraint("name")]],
  ["a note of 5,001 characters", (r) => ({ ...r, note: long(5001) }), [400, "23514", constraint("note")]],
  ["an empty note", (r) => ({ ...r, note: " " }), [400, "23514", constraint("note")]],
  ["a phone number of 51 characters", (r) => ({ ...r, phone: "1".repeat(51) }), [400, "23514", constraint("phone")]],
  ["no phone number", (r) => without(r, "phone"), [400, "23502", notNull("phone")]],
  ["an e-mail address of 255 characters", (r) => ({ ...r, email: `${"a".repeat(243)}@example.com` }), [400, "23514", constraint("email")]],
  ["an e-mail address without a domain", (r) => ({ ...r, email: "asha@" }), [400, "23514", constraint("email")]],
  ["a profile over http", (r) => ({ ...r, profile_url: "http://example.com/asha" }), [400, "23514", constraint("profile_url")]],
  ["a profile that is a script", (r) => ({ ...r, profile_url: "javascript:alert(1)" }), [400, "23514", constraint("profile_url")]],
  ["a profile of 2,049 characters", (r) => ({ ...r, profile_url: `https://example.com/${"a".repeat(2029)}` }), [400, "23514", constraint("profile_url")]],
  ["a country in lower case", (r) => ({ ...r, country: "ie" }), [400, "23514", "This posting takes applicants living in GB, IE, NL only."]],
  ["a country the remote role does not take", (r) => ({ ...r, country: "FR" }), [400, "23514", "This posting takes applicants living in GB, IE, NL only."]],
  ["a country of three letters, for an office role", (r) => ({ ...r, job_id: OTHER_JOB, country: "GBR" }), [400, "23514", constraint("country")], { job: OTHER_JOB }],
  ["privacy not accepted", (r) => ({ ...r, privacy: false }), [400, "23514", constraint("privacy")]],
  ["the honeypot filled in", (r) => ({ ...r, website: "https://cheap-pills.example" }), [403, "42501", RLS]],
  ["sent 2,999 ms after the page started", (r) => ({ ...r, fill_ms: 2999 }), [403, "42501", RLS]],
  ["a CV that was never stored", (r) => r, [409, "23503", "The CV is not in storage: upload it first."], { stored: false }],
  ["a CV of another posting's folder", (r) => r, [400, "23514", constraint("cv_folder")], { job: OTHER_JOB }],
  ["a CV key with a traversal", (r) => ({ ...r, cv_key: `${JOB}/../${OTHER_JOB}/1763800000000_cv.pdf` }), [409, "23503", "The CV is not in storage: upload it first."], { stored: false }],
  ["a closed posting, its CV stored while it was open", (r) => ({ ...r, job_id: CLOSED_JOB }), [410, "PT410", "This posting is closed: applications are no longer accepted."], { job: CLOSED_JOB, service: true }],
  ["a posting that does not exist", (r) => ({ ...r, job_id: "no-such-role" }), [404, "PT404", "There is no posting with this id."], { job: "no-such-role", service: true }],
  ["a status set by the applicant", (r) => ({ ...r, status: "hired" }), [403, "42501", DENIED]],
  ["the row asked back", (r) => r, [403, "42501", DENIED], { prefer: "return=representation" }],
];

const outcomes = [];
const summary = (r) => (r.status === 201 ? "201" : `${r.status} ${r.body?.code ?? ""}`.trim());
const note = (name, database, builtIn, same = JSON.stringify(database) === JSON.stringify(builtIn)) =>
  outcomes.push({ name, database: summary(database), builtIn: summary(builtIn), same: same === true ? "same" : same || "DIFFERENT" });

before(async () => {
  form = await formModules("application", "forms.generated");
  const site = copySite();
  keepPostingsOpen(site);
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, `anon_key: "${KEY}"`));
  writeFileSync(
    path.join(site, `content/pages/careers/${CLOSED_JOB}.md`),
    "---\ntitle: Cloud Architect\ndescription: A role that has closed.\nlocation: London\nteam: Cloud Engineering\nemployment_type: full_time\ndate_posted: 2026-10-01\nvalid_through: 2026-11-01\n---\nThis role has been filled.\n",
  );
  server = await startServer({ siteRoot: site, env: { SITE_SERVICE_ROLE_KEY: SERVICE }, args: ["--trust-proxy"] });

  pg = await startPostgres();
  db = await pg.client();
  await supabaseLike(db);
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
  columns = await columnsOf(db, TABLE);
  // The postings, as the deploy sends them (deploy/sync-openings.mjs).
  const openings = JSON.parse(execFileSync(bin, ["applications", "--openings", "--root", site], { encoding: "utf8" }));
  for (const o of openings) {
    await db.query("insert into public.job_openings (job_id, title, closes_at, applicants_from) values ($1, $2, $3, $4)", [o.job_id, o.title, o.closes_at, o.applicants_from]);
  }
});

after(async () => {
  if (outcomes.length) {
    const lines = outcomes.map((o) => `| ${o.name} | ${o.database} | ${o.builtIn} | ${o.same} |`);
    console.log(["| case | PostgreSQL | site serve | |", "|---|---|---|---|", ...lines].join("\n"));
  }
  await db?.end();
  await pg?.stop();
  await server?.stop();
});

describe("the migration", () => {
  test("applies again without error, keeps one retention job, and creates the private bucket", async () => {
    const file = readdirSync(migrations).find((f) => f.endsWith("_job_applications.sql"));
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
    const { rows } = await db.query("select schedule, command from cron.job where jobname = 'job-applications-retention'");
    assert.equal(rows.length, 1);
    const months = readFileSync(path.join(root, "content/site.yaml"), "utf8").match(/careers:\n(?:.*\n)*?\s+retention_months: (\d+)/)[1];
    assert.match(rows[0].command, new RegExp(`interval '${months} months'`));
    const bucket = await db.query("select public, file_size_limit, allowed_mime_types from storage.buckets where id = $1", [BUCKET]);
    assert.deepEqual(bucket.rows, [{ public: false, file_size_limit: "10485760", allowed_mime_types: Object.values(TYPES) }]);
  });

  test("gives the public no way to read the postings' table", async () => {
    await db.query("begin");
    await db.query("set local role anon");
    await assert.rejects(db.query("select * from public.job_openings"), (e) => e.code === "42501");
    await db.query("rollback");
  });
});

describe("each application, to PostgreSQL and to site serve", () => {
  for (const [name, change, [status, code, message], options = {}] of CASES) {
    test(`${name}: ${status}${code ? ` ${code}` : ""}`, async () => {
      const from = next();
      const cv = `${options.job ?? JOB}/${from.at}_${options.name ?? "cv.pdf"}`;
      if (options.stored !== false) await store(cv, options.cv ?? PDF, options.type ?? TYPES.pdf, { service: options.service });
      const row = change(formRow(from, cv));
      let result;
      if (options.prefer) {
        const database = await insert(db, TABLE, columns, JSON.stringify(row), { Prefer: options.prefer });
        const response = await fetch(`${server.url}/rest/v1/${TABLE}`, { method: "POST", headers: { apikey: KEY, "Content-Type": "application/json", Prefer: options.prefer }, body: JSON.stringify(row) });
        result = { database, builtIn: { status: response.status, body: await response.json() } };
      } else {
        result = await both(row, from.address);
      }
      const { database, builtIn } = result;
      note(name, database, builtIn);
      assert.equal(database.status, status, JSON.stringify(database.body));
      if (code) {
        assert.equal(database.body.code, code);
        assert.equal(database.body.message, message);
      }
      assert.deepEqual(builtIn, database, "site serve answers as PostgreSQL does");
    });
  }

  test("a sixth application from one address within the hour: 429 PT429", async () => {
    const { address } = next();
    let last;
    for (let i = 0; i < 6; i++) {
      const from = next();
      const cv = `${JOB}/${from.at}_cv.pdf`;
      await store(cv);
      last = await both(formRow(from, cv), address);
      if (i < 5) assert.deepEqual([last.database.status, last.builtIn.status], [201, 201]);
    }
    note("a sixth application from one address", last.database, last.builtIn);
    assert.equal(last.database.status, 429);
    assert.match(last.database.body.message, /Too many applications have been sent from your network/);
    assert.deepEqual(last.builtIn, last.database);
  });
});

describe("an application sent again after its answer was lost", () => {
  test("lands once, with one CV, counted once: the CV's second upload under the send's key stores nothing", async () => {
    const from = next();
    const row = formRow(from, "");
    const cv = form.cvKey(JOB, "Asha Patel CV.pdf", from.at, row.send_key);
    assert.match(cv, new RegExp(form.APPLICATIONS.keyPattern));
    const sent = { ...row, cv_key: cv };
    for (let attempt = 1; attempt <= 2; attempt++) {
      // The form uploads, then inserts; the second upload is told the key is taken.
      const served = await upload(cv, PDF, TYPES.pdf);
      const recorded = await record(cv, { size: PDF.length, mimetype: TYPES.pdf });
      if (attempt === 1) {
        assert.equal(served.status, 200, JSON.stringify(served.body));
        assert.ok(recorded.ok, recorded.message);
      } else {
        assert.equal(served.body.code, "KeyAlreadyExists");
        assert.equal(recorded.code, "23505");
      }
      const { database, builtIn } = await both(sent, from.address);
      note(`an application sent again, attempt ${attempt}`, database, builtIn);
      assert.equal(database.status, 201, JSON.stringify(database.body));
      assert.deepEqual(builtIn, database);
    }
    const { rows } = await db.query(`select count(*)::int as n from ${TABLE} where send_key = $1`, [row.send_key]);
    assert.equal(rows[0].n, 1);
    const { rows: objects } = await db.query("select count(*)::int as n from storage.objects where bucket_id = $1 and name like $2", [BUCKET, `${JOB}/${from.at}_%`]);
    assert.equal(objects[0].n, 1);
    const inbox = readdirSync(path.join(server.root, ".site/applications")).filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(path.join(server.root, ".site/applications", f), "utf8")))
      .filter((a) => a.send_key === row.send_key);
    assert.equal(inbox.length, 1);
  });
});

describe("the private bucket", () => {
  test("takes a new CV only at a key of the form's shape, in an open posting's folder, and never overwrites one", async () => {
    const key = `${JOB}/${next().at}_cv.pdf`;
    for (const bad of [`../${JOB}/1763800000000_cv.pdf`, `Senior/1763800000000_cv.pdf`, `${JOB}/cv.pdf`, `${JOB}/1763800000000_a b.pdf`, `${CLOSED_JOB}/1763800000000_cv.pdf`, `no-such-role/1763800000000_cv.pdf`]) {
      const served = await upload(bad, PDF, TYPES.pdf);
      const recorded = await record(bad, { size: PDF.length, mimetype: TYPES.pdf });
      const refused = served.status === 400 && ["AccessDenied", "InvalidKey", "NoSuchBucket"].includes(served.body.code);
      note(`storing a CV at ${bad}`, { status: recorded.ok ? 200 : 403, body: { code: recorded.code } }, served, refused && !recorded.ok && "both refuse");
      assert.ok(refused, `${bad}: ${JSON.stringify(served.body)}`);
      assert.equal(recorded.code, "42501", bad);
    }
    await store(key);
    const again = await upload(key, DOCX, TYPES.docx);
    const duplicate = await record(key, { size: DOCX.length, mimetype: TYPES.docx });
    note("storing a CV again at its key", { status: 409, body: { code: duplicate.code } }, again, again.body.code === "KeyAlreadyExists" && duplicate.code === "23505" && "both refuse");
    assert.deepEqual(again.body, { statusCode: "409", error: "Duplicate", message: "The resource already exists", code: "KeyAlreadyExists" });
    assert.equal(duplicate.code, "23505");
    const upsert = await upload(key, DOCX, TYPES.docx, { upsert: true });
    assert.equal(upsert.body.code, "AccessDenied", "an upsert needs UPDATE, which the public has not");
  });

  test("lets nothing anonymous read a CV back, and the service key read it", async () => {
    const key = `${JOB}/${next().at}_cv.pdf`;
    await store(key);
    await db.query("begin");
    await db.query("set local role anon");
    const { rows } = await db.query("select name from storage.objects where bucket_id = $1", [BUCKET]);
    await db.query("rollback");
    const read = async (route, as) => {
      const response = await fetch(`${server.url}/storage/v1/object/${route}${BUCKET}/${key}`, { headers: { Authorization: `Bearer ${as}`, apikey: as } });
      return { status: response.status, body: as === SERVICE ? Buffer.from(await response.arrayBuffer()) : await response.json() };
    };
    const routes = { "public/": "NoSuchBucket", "authenticated/": "NoSuchKey", "": "NoSuchKey" };
    for (const [route, code] of Object.entries(routes)) {
      const answer = await read(route, KEY);
      note(`anon reading a CV at /object/${route}`, { status: 400, body: { code: rows.length ? "rows" : code } }, answer, answer.body.code === code && rows.length === 0 && "both refuse");
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, code, route);
    }
    assert.deepEqual(rows, [], "anon sees no object of the bucket");
    const asService = await read("authenticated/", SERVICE);
    assert.equal(asService.status, 200);
    assert.deepEqual(asService.body, PDF);
    const table = await fetch(`${server.url}/rest/v1/${TABLE}`, { headers: { apikey: KEY } });
    assert.equal(table.status, 403);
  });
});

describe("files that are not CVs", () => {
  // site serve's storage reads the bytes and refuses these at the upload. The
  // Storage server takes the declared type and the Content-Length on trust:
  // it stores what it is told is a PDF, an empty file, and (sent without a
  // length) any size. The table then refuses a CV its record says is empty or
  // too large; bytes it cannot see.
  const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
  const ZIP = Buffer.from("504b0304140000000000000000000000000000000000000000000000000000", "hex");
  const OVER = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024 + 1 - PDF.length)]);
  for (const [name, bytes, type, servedCode, tableCode] of [
    ["a PNG renamed .pdf", PNG, TYPES.pdf, "InvalidMimeType", 201],
    ["a ZIP renamed .docx", ZIP, TYPES.docx, "InvalidMimeType", 201],
    ["a PDF over 10 MB", OVER, TYPES.pdf, "EntityTooLarge", 400],
    ["an empty file", Buffer.alloc(0), TYPES.pdf, "InvalidMimeType", 400],
  ]) {
    test(`${name}: site serve refuses the upload; the table, given the Storage server's record of it, answers ${tableCode}`, async () => {
      const from = next();
      const key = `${JOB}/${from.at}_cv${path.extname(type === TYPES.pdf ? ".pdf" : ".docx")}`;
      const served = await upload(key, bytes, type);
      assert.equal(served.status, 400);
      assert.equal(served.body.code, servedCode);
      assert.equal((await fetch(`${server.url}/storage/v1/object/${BUCKET}/${key}`, { headers: { Authorization: `Bearer ${SERVICE}` } })).status, 400, "nothing stored");
      const recorded = await record(key, { size: bytes.length, mimetype: type });
      assert.ok(recorded.ok, recorded.message);
      const { database } = await both(formRow(from, key), from.address);
      note(`${name} (upload, then its row)`, database, served, `stricter: site serve refuses the upload (${servedCode})`);
      assert.equal(database.status, tableCode, JSON.stringify(database.body));
      if (tableCode !== 201) assert.equal(database.body.message, "The CV stored is empty, too large or not a PDF or Word document.");
    });
  }
});
