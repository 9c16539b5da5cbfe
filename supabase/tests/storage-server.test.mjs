// The applications bucket on the real Supabase Storage server (the
// `supabase/storage` repository, built from its source), beside `site serve`'s
// built-in storage: every upload and read is put to both and must be answered
// alike, except where site serve is stricter (it reads a file's bytes; the
// real server takes the declared type on trust). Then each stored file's
// application is put to the real server's own PostgreSQL, with the
// migrations applied, so the table's guard reads the real server's record of
// the file.
//
// The server is not installable from the registries `make test` may reach, so
// this file runs only when SUPABASE_STORAGE_RUN names a command that starts
// one with its PostgreSQL (pg_cron loaded) and prints, on one line,
// `STORAGE_URL=… ANON_KEY=… SERVICE_KEY=… PGPORT=… PGUSER=… PGDATABASE=…`, then
// `READY`; it stops both on SIGTERM. Otherwise it is skipped, and
// applications-policies.test.mjs stands in for it.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { copySite, keepPostingsOpen, startServer } from "../../e2e/support.mjs";
import { columnsOf, insert } from "./postgrest.mjs";

const command = process.env.SUPABASE_STORAGE_RUN;
const root = path.resolve(import.meta.dirname, "../..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const BUCKET = "applications";
const JOB = "senior-data-engineer-hyderabad";
const TYPES = { pdf: "application/pdf", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" };
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const DOCX = readFileSync(path.join(root, "e2e/fixtures/cv.docx"));
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const ZIP = Buffer.from("504b0304140000000000000000000000000000000000000000000000000000", "hex");
const SERVE_KEY = "test-anon-key";
const SERVE_SERVICE = "test-service-role-key";

let real;
let child;
let db;
let serve;
let columns;
const outcomes = [];

before(async () => {
  if (!command) return;
  // Its own process group, so the stop reaches the command, not only its shell.
  child = spawn(command, { shell: true, detached: true, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (/\nREADY\n/.test(out)) resolve(out.split("\n")[0]);
    });
    child.on("exit", (code) => reject(new Error(`${command} exited with ${code}`)));
  });
  real = Object.fromEntries(line.split(" ").map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
  db = new pg.Client({ host: "127.0.0.1", port: Number(real.PGPORT), user: real.PGUSER, database: real.PGDATABASE });
  await db.connect();
  const migrations = path.join(root, "supabase", "migrations");
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
  columns = await columnsOf(db, "job_applications");
  const site = copySite();
  keepPostingsOpen(site);
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, `anon_key: "${SERVE_KEY}"`));
  for (const o of JSON.parse(execFileSync(bin, ["applications", "--openings", "--root", site], { encoding: "utf8" }))) {
    await db.query("insert into public.job_openings (job_id, title, closes_at, applicants_from) values ($1, $2, $3, $4) on conflict (job_id) do nothing", [o.job_id, o.title, o.closes_at, o.applicants_from]);
  }
  // A posting that has closed (site serve's build has no such posting at all).
  await db.query("insert into public.job_openings (job_id, title, closes_at) values ('cloud-architect-closed', 'Cloud Architect', '2026-11-02T00:00:00Z')");
  serve = await startServer({ siteRoot: site, env: { SITE_SERVICE_ROLE_KEY: SERVE_SERVICE } });
});

after(async () => {
  if (outcomes.length) {
    console.log(["| case | Supabase Storage | site serve | |", "|---|---|---|---|", ...outcomes.map((o) => `| ${o.name} | ${o.real} | ${o.served} | ${o.same} |`)].join("\n"));
  }
  await db?.end();
  await serve?.stop();
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
});

const sides = () => [
  { side: "real", base: real.STORAGE_URL, anon: real.ANON_KEY, service: real.SERVICE_KEY },
  { side: "served", base: `${serve.url}/storage/v1`, anon: SERVE_KEY, service: SERVE_SERVICE },
];

/** An upload as storage-js sends a Blob: a form with the cache control and the file part. */
async function upload({ base, anon }, key, bytes, type, upsert = false) {
  const body = new FormData();
  body.append("cacheControl", "0");
  body.append("", new Blob([bytes], { type }));
  const response = await fetch(`${base}/object/${BUCKET}/${key}`, { method: "POST", headers: { Authorization: `Bearer ${anon}`, apikey: anon, "x-upsert": String(upsert) }, body });
  const json = await response.json();
  delete json.Id;
  return { status: response.status, body: json };
}

/**
 * An upload as storage-js sends an ArrayBuffer or a typed array: the bytes as the
 * whole body, the type (when given) and cache control in headers; streamed
 * without a Content-Length when `stream`.
 */
async function uploadRaw({ base, anon }, key, bytes, type, { upsert = false, stream = false } = {}) {
  const headers = { Authorization: `Bearer ${anon}`, apikey: anon, "x-upsert": String(upsert), "cache-control": "max-age=3600" };
  if (type !== undefined) headers["content-type"] = type;
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 1 << 20) chunks.push(bytes.subarray(i, i + (1 << 20)));
  const body = stream ? new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) }) : bytes;
  const response = await fetch(`${base}/object/${BUCKET}/${key}`, { method: "POST", headers, body, duplex: "half" });
  const json = await response.json();
  delete json.Id;
  return { status: response.status, body: json };
}

async function read({ base, anon, service }, route, key, as) {
  const token = as === "service" ? service : anon;
  const response = await fetch(`${base}/object/${route}${BUCKET}/${key}`, { headers: { Authorization: `Bearer ${token}`, apikey: token } });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body: response.ok ? { bytes: bytes.length, type: response.headers.get("content-type") } : JSON.parse(bytes.toString()) };
}

const summary = (r) => (r.status === 200 ? "200" : `${r.status} ${r.body.code ?? r.body.statusCode ?? ""}`);

/** Puts `act` to both sides; they must answer alike, or as `stricter` says. */
async function both(name, act, stricter) {
  const [onReal, onServe] = [await act(sides()[0]), await act(sides()[1])];
  const same = JSON.stringify(onReal) === JSON.stringify(onServe);
  outcomes.push({ name, real: summary(onReal), served: summary(onServe), same: same ? "same" : stricter ? `stricter: ${stricter}` : "DIFFERENT" });
  if (stricter) assert.equal(onServe.status, 400, `${name}: site serve refuses`);
  else assert.deepEqual(onServe, onReal, name);
  return { onReal, onServe };
}

let at = 1763800000000;
const fresh = (name) => `${JOB}/${(at += 1)}_${name}`;

/** The application of a CV at `key`, put to the real server's PostgreSQL. */
async function apply(key, n) {
  const row = { job_id: JOB, name: "Asha Patel", email: `real${n}@example.com`, phone: "+91 40 0000 0000", profile_url: null, country: "IN", note: "Hello.", cv_key: key, privacy: true, page: `/careers/${JOB}/`, fill_ms: 9000, website: "" };
  return insert(db, "job_applications", columns, JSON.stringify(row), { "X-Forwarded-For": `198.18.0.${n}` });
}

describe("the real Supabase Storage server and site serve", { skip: command ? false : "SUPABASE_STORAGE_RUN is not set: no Supabase Storage server to start" }, () => {
  test("store a PDF and a Word document, and the table takes their applications", async () => {
    let n = 0;
    for (const [bytes, type, name] of [[PDF, TYPES.pdf, "cv.pdf"], [DOCX, TYPES.docx, "cv.docx"]]) {
      const key = fresh(name);
      await both(`a ${name}`, (s) => upload(s, key, bytes, type));
      const row = await apply(key, ++n);
      outcomes.push({ name: `its application, in the real server's PostgreSQL`, real: String(row.status), served: "", same: "" });
      assert.equal(row.status, 201, JSON.stringify(row.body));
    }
  });

  test("refuse what the bucket's policy refuses: another key's shape, a closed or unknown posting's folder, an overwrite, an upsert, another type, too many bytes", async () => {
    const key = fresh("cv.pdf");
    await both("a first upload", (s) => upload(s, key, PDF, TYPES.pdf));
    await both("the same key again", (s) => upload(s, key, PDF, TYPES.pdf));
    await both("the same key again, as an upsert", (s) => upload(s, key, PDF, TYPES.pdf, true));
    for (const bad of ["Senior/1763800000000_cv.pdf", `${JOB}/cv.pdf`, `${JOB}/1763800000000_a%20b.pdf`, "cloud-architect-closed/1763800000000_cv.pdf", "no-such-role/1763800000000_cv.pdf"]) {
      await both(`a key ${decodeURIComponent(bad)}`, (s) => upload(s, bad, PDF, TYPES.pdf));
    }
    await both("a picture declared as one", (s) => upload(s, fresh("photo.png"), PNG, "image/png"));
    await both("10 MiB and a byte", (s) => upload(s, fresh("big.pdf"), Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024 + 1 - PDF.length)]), TYPES.pdf));
  });

  test("let only the service key read a CV back", async () => {
    const key = fresh("cv.pdf");
    await both("stored", (s) => upload(s, key, PDF, TYPES.pdf));
    for (const route of ["public/", "authenticated/", ""]) {
      await both(`anon reads /object/${route}`, (s) => read(s, route, key, "anon"));
    }
    await both("the service key reads it", (s) => read(s, "authenticated/", key, "service"));
  });

  test("take a raw body (the file's bytes as the whole body) as a form's file: stored, refused, read back alike", async () => {
    const key = fresh("cv.pdf");
    await both("a raw PDF", (s) => uploadRaw(s, key, PDF, TYPES.pdf));
    await both("a raw PDF, read back with the service key", (s) => read(s, "authenticated/", key, "service"));
    await both("a raw PDF's cache control, the header as sent", async ({ base, service }) => {
      const response = await fetch(`${base}/object/authenticated/${BUCKET}/${key}`, { headers: { Authorization: `Bearer ${service}`, apikey: service } });
      await response.arrayBuffer();
      return { status: response.status, body: { cacheControl: response.headers.get("cache-control") } };
    });
    await both("a raw Word document", (s) => uploadRaw(s, fresh("cv.docx"), DOCX, TYPES.docx));
    await both("a raw PDF streamed, without a Content-Length", (s) => uploadRaw(s, fresh("cv.pdf"), PDF, TYPES.pdf, { stream: true }));
    await both("the same key again, raw", (s) => uploadRaw(s, key, PDF, TYPES.pdf));
    await both("the same key again, raw, as an upsert", (s) => uploadRaw(s, key, PDF, TYPES.pdf, { upsert: true }));
    for (const bad of ["Senior/1763800000000_cv.pdf", `${JOB}/cv.pdf`, "cloud-architect-closed/1763800000000_cv.pdf", "no-such-role/1763800000000_cv.pdf"]) {
      await both(`a raw body at ${bad}`, (s) => uploadRaw(s, bad, PDF, TYPES.pdf));
    }
    // The whole Content-Type is the type: parameters stay, and none is octet-stream.
    await both("a raw picture declared as one", (s) => uploadRaw(s, fresh("photo.png"), PNG, "image/png"));
    await both("a raw PDF declared with a charset", (s) => uploadRaw(s, fresh("cv.pdf"), PDF, `${TYPES.pdf};charset=utf-8`));
    await both("a raw PDF with no Content-Type", (s) => uploadRaw(s, fresh("cv.pdf"), PDF, undefined));
    await both("storage-js's default type for a raw body", (s) => uploadRaw(s, fresh("cv.pdf"), PDF, "text/plain;charset=UTF-8"));
    const big = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024 + 1 - PDF.length)]);
    await both("10 MiB and a byte, raw, its length declared", (s) => uploadRaw(s, fresh("big.pdf"), big, TYPES.pdf));
    // uploader.ts checks a raw body's declared length only; site serve counts the bytes.
    await both("10 MiB and a byte, raw, streamed", (s) => uploadRaw(s, fresh("big.pdf"), big, TYPES.pdf, { stream: true }), "it counts the bytes of a body without a length");
  });

  test("files that are not CVs: site serve refuses them; the real server stores them, and the table refuses the empty one", async () => {
    let n = 10;
    for (const [name, bytes, type, tableStatus] of [
      ["a PNG renamed .pdf", PNG, TYPES.pdf, 201],
      ["a ZIP renamed .docx", ZIP, TYPES.docx, 201],
      ["an empty file", Buffer.alloc(0), TYPES.pdf, 400],
    ]) {
      const key = fresh("cv.pdf");
      const { onReal } = await both(name, (s) => upload(s, key, bytes, type), "it reads the bytes");
      assert.equal(onReal.status, 200, `${name}: the real server stores it`);
      const row = await apply(key, ++n);
      outcomes.push({ name: `${name}: its application, in the real server's PostgreSQL`, real: summary({ status: row.status, body: row.body ?? {} }), served: "", same: "" });
      assert.equal(row.status, tableStatus, JSON.stringify(row.body));
    }
  });
});
