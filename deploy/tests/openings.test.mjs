// The step that tells the applications' table its postings, run for real (its
// own script, under the Node.js its workflow sets up) with the JSON `site
// applications --openings` writes, against a stand-in of PostgREST on loopback
// that makes the SQL PostgREST makes for an upsert (`on_conflict`,
// `resolution=merge-duplicates`) and a filtered PATCH, as the service role, on a
// real PostgreSQL with the migrations applied. Then the table decides
// applications by what it was told.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { startPostgres, supabaseLike } from "../../supabase/tests/postgres.mjs";
import { root, runStep, step, workflowJob } from "./workflow.mjs";

const SERVICE_KEY = "service-role-key";
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const job = workflowJob("site.yml", "openings");
const sync = step(job, "Tell the applications' table which postings are open");

let pg;
let db;
let api;
let workspace;
const requests = [];

/** Runs `sql` as the service role, in one transaction. */
async function asService(sql, params) {
  await db.query("begin");
  try {
    await db.query("set local role service_role");
    const result = await db.query(sql, params);
    await db.query("commit");
    return result;
  } catch (error) {
    await db.query("rollback");
    throw error;
  }
}

/** PostgREST's filters this script uses: `eq`, `gt` and `not.in` on one column each. */
function where(params, values) {
  const clauses = [];
  for (const [column, filter] of params) {
    if (["on_conflict", "select"].includes(column)) continue;
    const [, negated, op, operand] = filter.match(/^(not\.)?(eq|gt|in)\.(.*)$/) ?? [];
    if (!op || !/^[a-z_]+$/.test(column)) throw new Error(`filter ${column}=${filter}`);
    if (op === "in") {
      const list = [...operand.slice(1, -1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
      values.push(list);
      clauses.push(`${negated ? "not " : ""}(${column} = any ($${values.length}))`);
    } else {
      values.push(operand);
      clauses.push(`${negated ? "not " : ""}(${column} ${op === "eq" ? "=" : ">"} $${values.length})`);
    }
  }
  return clauses.length ? `where ${clauses.join(" and ")}` : "";
}

async function startPostgrest() {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = JSON.parse(Buffer.concat(chunks).toString() || "null");
    const url = new URL(req.url, "http://x");
    requests.push({ method: req.method, url: req.url, prefer: req.headers.prefer });
    const send = (status, json) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(json === undefined ? "" : JSON.stringify(json));
    };
    if (req.headers.apikey !== SERVICE_KEY || req.headers.authorization !== `Bearer ${SERVICE_KEY}`) return send(401, { message: "Invalid API key" });
    if (url.pathname !== "/rest/v1/job_openings") return send(404, { code: "PGRST205", message: `Could not find the table '${url.pathname}' in the schema cache` });
    try {
      if (req.method === "POST" && url.searchParams.get("on_conflict") === "job_id" && /resolution=merge-duplicates/.test(req.headers.prefer)) {
        await asService(
          `insert into public.job_openings (job_id, title, closes_at, applicants_from)
           select job_id, title, closes_at, applicants_from from json_to_recordset($1) as r(job_id text, title text, closes_at timestamptz, applicants_from text[])
           on conflict (job_id) do update set title = excluded.title, closes_at = excluded.closes_at, applicants_from = excluded.applicants_from`,
          [JSON.stringify(body)],
        );
        return send(201);
      }
      if (req.method === "PATCH") {
        const values = [body.closes_at];
        const filter = where(url.searchParams, values);
        const { rows } = await asService(`update public.job_openings set closes_at = $1 ${filter} returning job_id`, values);
        return send(200, rows);
      }
      send(405, { message: `${req.method} not supported here` });
    } catch (error) {
      send(400, { code: error.code, message: error.message });
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) };
}

before(async () => {
  pg = await startPostgres();
  db = await pg.client();
  await supabaseLike(db);
  const migrations = path.join(root, "supabase", "migrations");
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
  api = await startPostgrest();
  workspace = mkdtempSync(path.join(tmpdir(), "site-openings-"));
  symlinkSync(path.join(root, "deploy"), path.join(workspace, "deploy"));
  writeFileSync(path.join(workspace, ".node-version"), readFileSync(path.join(root, ".node-version")));
});

after(async () => {
  await api?.stop();
  await db?.end();
  await pg?.stop();
  rmSync(workspace, { recursive: true, force: true });
});

const contexts = (key) => ({ vars: { SUPABASE_URL: api.url }, secrets: { SUPABASE_SERVICE_ROLE_KEY: key } });
const log = (r) => `exit ${r.code}\n${r.stdout}${r.stderr}`;
const table = async () => (await db.query("select job_id, closes_at, applicants_from from public.job_openings order by job_id")).rows;

describe("after a deploy of main", () => {
  test("the table has every posting of the site, with its closing moment and countries", async () => {
    const openings = execFileSync(bin, ["applications", "--openings", "--root", root], { encoding: "utf8" });
    writeFileSync(path.join(workspace, "openings.json"), openings);
    const result = await runStep(job, sync, { workspace, contexts: contexts(SERVICE_KEY) });
    assert.equal(result.code, 0, log(result));
    const expected = JSON.parse(openings);
    assert.match(result.stdout, new RegExp(`^Wrote ${expected.length} postings to job_openings`));
    const rows = await table();
    assert.deepEqual(
      rows.map((r) => [r.job_id, r.closes_at.toISOString().replace(".000", ""), r.applicants_from]),
      expected.map((o) => [o.job_id, o.closes_at, o.applicants_from]),
    );
    assert.deepEqual(rows.find((r) => r.job_id === "senior-cloud-engineer-remote-europe").applicants_from, ["GB", "IE", "NL"]);
  });

  test("a posting taken off the site closes now; a changed one is updated; running again changes nothing", async () => {
    const openings = JSON.parse(readFileSync(path.join(workspace, "openings.json"), "utf8"));
    const [gone, changed, ...rest] = openings;
    const later = { ...changed, closes_at: "2027-06-01T00:00:00Z" };
    writeFileSync(path.join(workspace, "openings.json"), JSON.stringify([later, ...rest]));
    const result = await runStep(job, sync, { workspace, contexts: contexts(SERVICE_KEY) });
    assert.equal(result.code, 0, log(result));
    assert.match(result.stdout, new RegExp(`closed ${gone.job_id}, no longer on the site`));
    const rows = await table();
    assert.ok(rows.find((r) => r.job_id === gone.job_id).closes_at <= new Date(), "closed");
    assert.equal(rows.find((r) => r.job_id === changed.job_id).closes_at.toISOString(), "2027-06-01T00:00:00.000Z");
    const again = await runStep(job, sync, { workspace, contexts: contexts(SERVICE_KEY) });
    assert.equal(again.code, 0, log(again));
    assert.doesNotMatch(again.stdout, /closed/);
    assert.deepEqual(await table(), rows);
  });

  test("a refused key fails the step with PostgREST's message, changing nothing", async () => {
    const before = await table();
    const result = await runStep(job, sync, { workspace, contexts: contexts("anon-key") });
    assert.equal(result.code, 1, log(result));
    assert.match(result.stderr, /error: POST \/rest\/v1\/job_openings\?on_conflict=job_id answered HTTP 401: Invalid API key/);
    assert.deepEqual(await table(), before);
  });

  test("without the project's settings it says what to set", async () => {
    const result = await runStep(job, sync, { workspace, contexts: { vars: {}, secrets: {} } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /SUPABASE_SERVICE_ROLE_KEY/);
  });
});
