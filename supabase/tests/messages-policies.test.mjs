// The messages' migration against a real PostgreSQL, and `site serve`'s built-in
// backend against it. Every case is one request of the contact form's kind (the
// row the form's own code builds, then changed): it is put to PostgreSQL with
// the migration applied, the way PostgREST puts it (postgrest.mjs), and to a
// running `site serve`, and both must answer it the same way, with the outcome
// the case expects. Then what the public may not do (read, change, delete), 1,000
// inserts at once, and the retention job.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import pg from "pg";
import { copySite, startServer } from "../../e2e/support.mjs";
import { formModules } from "./form.mjs";
import { startPostgres, supabaseLike } from "./postgres.mjs";
import { columnsOf, insert, select } from "./postgrest.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const migrations = path.join(root, "supabase", "migrations");
const TABLE = "contact_messages";
const KEY = "test-anon-key";
/** The project's URL, as Vault holds it; `site serve` is its own project. */
const PROJECT = "https://abc.supabase.co";

let server;
let db;
let columns;
let site;
let form;

let sequence = 0;
/** A different sender for each request, unless a case names one. */
function sender() {
  sequence += 1;
  return { address: `198.51.${Math.floor(sequence / 250)}.${sequence % 250}`, email: `visitor${sequence}@example.com` };
}

/** The row the form sends for a filled-in form, from a fresh sender. */
function formRow(from = sender()) {
  const fields = {
    ...form.EMPTY_FIELDS,
    name: "Asha Patel",
    email: from.email,
    phone: "+44 20 7946 0000",
    company: "Example Ltd",
    subject: "Cloud migration",
    message: "We would like to talk about moving our data centre.",
    agree: true,
  };
  const key = form.storageKey("site plan.png", 1763800000000);
  return form.messageRow(fields, {
    attachment: { key, url: `${PROJECT}/storage/v1/object/public/contact-attachments/${key}` },
    page: "/contact/",
    fillMs: 8200,
    trap: "",
    sendKey: randomUUID(),
  });
}

const without = (row, ...keys) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

/** The request to PostgreSQL (through PostgREST's insert) and to `site serve`. */
async function both(row, { address = sender().address, headers = {}, raw, database: client = db } = {}) {
  const body = raw ?? JSON.stringify(row);
  const all = { "X-Forwarded-For": address, ...headers };
  const database = await insert(client, TABLE, columns, body, all);
  // The same image, at site serve's own storage.
  const response = await fetch(`${server.url}/rest/v1/${TABLE}`, {
    method: "POST",
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}`, "Content-Type": "application/json", ...all },
    body: body.replaceAll(PROJECT, server.url),
  });
  const text = await response.text();
  const builtIn = { status: response.status, body: text ? JSON.parse(text) : null };
  return { database, builtIn };
}

/** A POST with node:http, which lets a test name the Host and the address it connects from. */
function post(url, headers, body, localAddress) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", localAddress, headers: { ...headers, "content-length": Buffer.byteLength(body) } });
    request.on("response", async (response) => {
      let text = "";
      for await (const chunk of response) text += chunk;
      resolve({ status: response.statusCode, body: text ? JSON.parse(text) : null });
    });
    request.on("error", reject);
    request.end(body);
  });
}

const long = (n) => "é".repeat(n);
const constraint = (name) => `new row for relation "${TABLE}" violates check constraint "${TABLE}_${name}_check"`;
const notNull = (column) => `null value in column "${column}" of relation "${TABLE}" violates not-null constraint`;
const RLS = `new row violates row-level security policy for table "${TABLE}"`;
const DENIED = `permission denied for table ${TABLE}`;
const IMAGE = "The image's address is not this project's storage address for its key.";

/**
 * Each case: what it sends, and the status, code and message expected of both.
 * `row` is a function of a fresh form row.
 */
const CASES = [
  ["a filled-in form with an image", (r) => r, [201]],
  ["only the required fields", (r) => without(r, "phone", "company", "attachment_key", "attachment_url", "website"), [201]],
  ["a message of 5,000 characters and a name of 200", (r) => ({ ...r, message: long(5000), name: long(200) }), [201]],
  ["the honeypot sent as null", (r) => ({ ...r, website: null }), [201]],
  ["privacy as the text \"yes\" (PostgreSQL's boolean input)", (r) => ({ ...r, privacy: "yes" }), [201]],
  ["the honeypot filled in", (r) => ({ ...r, website: "https://cheap-pills.example" }), [403, "42501", RLS]],
  ["sent 2,999 ms after the page started", (r) => ({ ...r, fill_ms: 2999 }), [403, "42501", RLS]],
  ["no fill time", (r) => without(r, "fill_ms"), [403, "42501", RLS]],
  ["privacy not accepted", (r) => ({ ...r, privacy: false }), [400, "23514", constraint("privacy")]],
  ["privacy missing", (r) => without(r, "privacy"), [400, "23502", notNull("privacy")]],
  ["no name", (r) => without(r, "name"), [400, "23502", notNull("name")]],
  ["a name of spaces", (r) => ({ ...r, name: "   " }), [400, "23514", constraint("name")]],
  ["a name of 201 characters", (r) => ({ ...r, name: long(201) }), [400, "23514", constraint("name")]],
  ["a message of 5,001 characters", (r) => ({ ...r, message: long(5001) }), [400, "23514", constraint("message")]],
  ["an empty message", (r) => ({ ...r, message: "" }), [400, "23514", constraint("message")]],
  ["an e-mail address without a domain", (r) => ({ ...r, email: "asha@" }), [400, "23514", constraint("email")]],
  ["an e-mail address of 255 characters", (r) => ({ ...r, email: `${"a".repeat(243)}@example.com` }), [400, "23514", constraint("email")]],
  ["a phone number of 51 characters", (r) => ({ ...r, phone: "1".repeat(51) }), [400, "23514", constraint("phone")]],
  ["a company of 201 characters", (r) => ({ ...r, company: long(201) }), [400, "23514", constraint("company")]],
  ["a subject of spaces", (r) => ({ ...r, subject: "  " }), [400, "23514", constraint("subject")]],
  ["an image's key without its URL", (r) => ({ ...r, attachment_url: null }), [400, "23514", constraint("attachment")]],
  ["an image outside the public folder", (r) => ({ ...r, attachment_key: "private/1763800000000_a.png", attachment_url: `${PROJECT}/storage/v1/object/public/contact-attachments/private/1763800000000_a.png` }), [400, "23514", constraint("attachment_key")]],
  ["an image URL of another bucket", (r) => ({ ...r, attachment_url: `${PROJECT}/storage/v1/object/public/avatars/public/a.png` }), [400, "23514", IMAGE]],
  ["an image on another host, at its key's path", (r) => ({ ...r, attachment_url: r.attachment_url.replace(PROJECT, "https://abc-supabase.co.evil.example") }), [400, "23514", IMAGE]],
  ["an image over http", (r) => ({ ...r, attachment_url: r.attachment_url.replace("https://", "http://") }), [400, "23514", IMAGE]],
  ["the URL of another image than its key", (r) => ({ ...r, attachment_url: r.attachment_url.replace(/\d{13}_/, "1763800009999_") }), [400, "23514", IMAGE]],
  ["an image URL with more after its key", (r) => ({ ...r, attachment_url: `${r.attachment_url}?download=invoice.exe` }), [400, "23514", IMAGE]],
  ["a page of another site", (r) => ({ ...r, page: "https://elsewhere.example/" }), [400, "23514", constraint("page")]],
  ["several broken fields: the first check by name is reported", (r) => ({ ...r, subject: "", email: "x", name: " " }), [400, "23514", constraint("email")]],
  ["a status set by the sender", (r) => ({ ...r, status: "answered" }), [403, "42501", DENIED]],
  ["a time received set by the sender", (r) => ({ ...r, received_at: "2020-01-01T00:00:00Z" }), [403, "42501", DENIED]],
  ["an id set by the sender", (r) => ({ ...r, id: "00000000-0000-4000-8000-000000000000" }), [403, "42501", DENIED]],
  ["a column the table does not have", (r) => ({ ...r, phone_number: "1" }), [400, "PGRST204", `Could not find the 'phone_number' column of '${TABLE}' in the schema cache`]],
  ["privacy as \"maybe\"", (r) => ({ ...r, privacy: "maybe" }), [400, "22P02", 'invalid input syntax for type boolean: "maybe"']],
  ["a fill time that is not a number", (r) => ({ ...r, fill_ms: "soon" }), [400, "22P02", 'invalid input syntax for type integer: "soon"']],
  ["a fill time past the integers", (r) => ({ ...r, fill_ms: 10_000_000_000 }), [400, "22003", 'value "10000000000" is out of range for type integer']],
  ["a NUL character in the message", (r) => ({ ...r, message: "a\u0000b" }), [400, "22P05", "unsupported Unicode escape sequence"]],
  ["the row asked back (return=representation)", (r) => r, [403, "42501", DENIED], { headers: { Prefer: "return=representation" } }],
];

/** The outcomes, for the table printed at the end. */
const outcomes = [];

before(async () => {
  form = await formModules("contact", "messages");
  const pgServer = await startPostgres();
  server = { pg: pgServer };
  db = await pgServer.client();
  await supabaseLike(db, { projectUrl: PROJECT });
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
  columns = await columnsOf(db, TABLE);

  site = copySite();
  const config = path.join(site, "content/site.yaml");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(/anon_key: ".*"/, `anon_key: "${KEY}"`).replace(/messages: console/, "messages: supabase"),
  );
  // Behind the tests' stand-in for Supabase's gateway, as the live table is.
  const serve = await startServer({ siteRoot: site, args: ["--trust-proxy"] });
  server = { ...serve, pg: pgServer };
});

after(async () => {
  if (outcomes.length) {
    const lines = outcomes.map((o) => `| ${o.name} | ${o.database} | ${o.builtIn} | ${o.same ? "same" : "DIFFERENT"} |`);
    console.log(["| case | PostgreSQL | site serve | |", "|---|---|---|---|", ...lines].join("\n"));
  }
  await db?.end();
  await server?.pg?.stop();
  await server?.stop?.();
});

const summary = (r) => (r.status === 201 ? "201" : `${r.status} ${r.body.code}`);

describe("the migration", () => {
  test("applies again without error, and keeps one retention job", async () => {
    const file = readdirSync(migrations).find((f) => f.endsWith("_contact_messages.sql"));
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
    const { rows } = await db.query("select schedule, command from cron.job where jobname = 'contact-messages-retention'");
    assert.equal(rows.length, 1);
    assert.equal(rows[0].schedule, "17 3 * * *");
  });

  test("applies to a table that holds messages from before the send key, which read as before", async () => {
    const file = readdirSync(migrations).find((f) => f.endsWith("_contact_messages.sql"));
    const sql = readFileSync(path.join(migrations, file), "utf8");
    // The table as it was: no key column, and a message in it (stored past
    // today's triggers, which know the key).
    await db.query(`alter table ${TABLE} drop column send_key`);
    await db.query("set session_replication_role = replica");
    const { rows: before } = await db.query(
      `insert into ${TABLE} (name, email, subject, message, privacy, page, fill_ms) values ('Old Sender', 'before.the.key@example.com', 'Earlier', 'From before the key.', true, '/contact/', 9000) returning *`,
    );
    await db.query("set session_replication_role = origin");
    await db.query(sql);
    const { rows } = await db.query(`select * from ${TABLE} where id = $1`, [before[0].id]);
    assert.deepEqual(rows[0], { ...before[0], send_key: null });
    const { rows: index } = await db.query("select indexdef from pg_indexes where indexname = $1", [`${TABLE}_send_key_key`]);
    assert.match(index[0].indexdef, /CREATE UNIQUE INDEX .* \(send_key\)/);
  });

  test("bounds the fields as the form does", () => {
    const sql = readFileSync(path.join(migrations, readdirSync(migrations).find((f) => f.endsWith("_contact_messages.sql"))), "utf8");
    for (const [field, max] of Object.entries(form.MAX_LENGTH)) {
      assert.match(sql, new RegExp(`char_length\\(${field}\\) <= ${max}\\b`), field);
    }
    const email = sql.match(/email ~ '((?:[^']|'')*)'/)[1].replaceAll("''", "'");
    assert.equal(email, form.EMAIL.source.replaceAll("\\/", "/"), "the form's e-mail rule");
    assert.match(sql, new RegExp(`fill_ms >= ${form.MIN_FILL_MS}\\b`));
  });
});

describe("each request, to PostgreSQL and to site serve", () => {
  for (const [name, change, [status, code, message], options = {}] of CASES) {
    test(`${name}: ${status}${code ? ` ${code}` : ""}`, async () => {
      const { database, builtIn } = await both(change(formRow()), options);
      outcomes.push({ name, database: summary(database), builtIn: summary(builtIn), same: JSON.stringify(database) === JSON.stringify(builtIn) });
      assert.equal(database.status, status, JSON.stringify(database.body));
      if (code) {
        assert.equal(database.body.code, code);
        assert.equal(database.body.message, message);
      }
      assert.deepEqual(builtIn, database, "site serve answers as PostgreSQL does");
    });
  }

  test(`a sixth message from one address within the hour: 429 PT429`, async () => {
    const { address } = sender();
    for (let i = 0; i < 5; i++) {
      const { database, builtIn } = await both(formRow(), { address });
      assert.equal(database.status, 201);
      assert.equal(builtIn.status, 201);
    }
    const { database, builtIn } = await both(formRow(), { address });
    outcomes.push({ name: "a sixth message from one address", database: summary(database), builtIn: summary(builtIn), same: JSON.stringify(database) === JSON.stringify(builtIn) });
    assert.equal(database.status, 429);
    assert.equal(database.body.code, "PT429");
    assert.match(database.body.message, /from your network in the last hour/);
    assert.deepEqual(builtIn, database);
  });

  test("a sixth message to one e-mail address, from six addresses: 429 PT429", async () => {
    const from = sender();
    for (let i = 0; i < 5; i++) {
      const { database, builtIn } = await both(formRow(from), { address: sender().address });
      assert.equal(database.status, 201);
      assert.equal(builtIn.status, 201);
    }
    const { database, builtIn } = await both(formRow(from), { address: sender().address });
    outcomes.push({ name: "a sixth message to one e-mail address", database: summary(database), builtIn: summary(builtIn), same: JSON.stringify(database) === JSON.stringify(builtIn) });
    assert.equal(database.status, 429);
    assert.match(database.body.message, /from this e-mail address in the last hour/);
    assert.deepEqual(builtIn, database);
  });

  test("refused messages are not counted against their sender", async () => {
    const { address } = sender();
    for (let i = 0; i < 6; i++) {
      const { database, builtIn } = await both({ ...formRow(), website: "spam" }, { address });
      assert.equal(database.status, 403);
      assert.equal(builtIn.status, 403);
    }
    const { database, builtIn } = await both(formRow(), { address });
    assert.equal(database.status, 201);
    assert.equal(builtIn.status, 201);
  });

  test("an accepted message is stored with its time, status new and every field", async () => {
    const row = formRow();
    const { database, builtIn } = await both(row);
    assert.equal(database.status, 201);
    assert.equal(builtIn.status, 201);
    const { rows } = await db.query(`select * from ${TABLE} where email = $1`, [row.email]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, "new");
    assert.ok(Date.now() - rows[0].received_at.getTime() < 60_000);
    for (const [k, v] of Object.entries(row)) assert.deepEqual(rows[0][k], v, k);
    const stored = readdirSync(path.join(site, ".site/messages"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(path.join(site, ".site/messages", f), "utf8")))
      .filter((m) => m.email === row.email);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].status, "new");
    const served = JSON.parse(JSON.stringify(row).replaceAll(PROJECT, server.url));
    for (const [k, v] of Object.entries(served)) assert.deepEqual(stored[0][k], v, k);
  });
});

describe("a send repeated after its answer was lost lands once", () => {
  // As the form sends each attempt (islands/lib/messages.ts).
  const REPEATS = { headers: { Prefer: "return=minimal" } };
  const record = (name, { database, builtIn }) =>
    outcomes.push({ name, database: summary(database), builtIn: summary(builtIn), same: JSON.stringify(database) === JSON.stringify(builtIn) });

  /** The rows with `key` in PostgreSQL and in site serve's inbox. */
  async function stored(key) {
    const { rows } = await db.query(`select * from ${TABLE} where send_key = $1`, [key]);
    const inbox = readdirSync(path.join(site, ".site/messages"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(path.join(site, ".site/messages", f), "utf8")))
      .filter((m) => m.send_key === key);
    return { database: rows, builtIn: inbox };
  }

  /** Sends new messages from `address` until the limit refuses one; how many it took. */
  async function sendsLeft(address) {
    for (let n = 0; n < 10; n++) {
      const answer = await both(formRow(), { address, ...REPEATS });
      assert.equal(answer.database.status, answer.builtIn.status, JSON.stringify(answer));
      if (answer.database.status === 429) return n;
      assert.equal(answer.database.status, 201, JSON.stringify(answer.database.body));
    }
    throw new Error("the rate limit never refused");
  }

  test("the same send three times: 201 each time, one row, counted once by the rate limit", async () => {
    const { address } = sender();
    const row = formRow();
    for (let i = 0; i < 3; i++) {
      const answer = await both(row, { address, ...REPEATS });
      record(`the same send, attempt ${i + 1}`, answer);
      assert.equal(answer.database.status, 201, JSON.stringify(answer.database.body));
      assert.deepEqual(answer.builtIn, answer.database);
    }
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(builtIn.length, 1);
    assert.equal(await sendsLeft(address), 4, "five an hour, of which the repeated send is one");
  });

  test("the key written another way PostgreSQL reads as the same (capitals, braces) is the same send", async () => {
    const row = formRow();
    for (const key of [row.send_key, row.send_key.toUpperCase(), `{${row.send_key}}`]) {
      const answer = await both({ ...row, send_key: key }, REPEATS);
      assert.equal(answer.database.status, 201, key);
      assert.deepEqual(answer.builtIn, answer.database, key);
    }
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(builtIn.length, 1);
  });

  test("two attempts of one send at once: one row, counted once", async () => {
    const { address } = sender();
    const row = formRow();
    const other = await server.pg.client();
    try {
      const answers = await Promise.all([both(row, { address, ...REPEATS }), both(row, { address, ...REPEATS, database: other })]);
      for (const answer of answers) {
        assert.equal(answer.database.status, 201, JSON.stringify(answer.database.body));
        assert.equal(answer.builtIn.status, 201, JSON.stringify(answer.builtIn.body));
      }
    } finally {
      await other.end();
    }
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(builtIn.length, 1);
    assert.equal(await sendsLeft(address), 4);
  });

  test("one request holding the same send twice stores it once: the trigger sees the request's earlier row", async () => {
    const row = formRow();
    const answer = await both(null, { ...REPEATS, raw: JSON.stringify([row, row]) });
    record("one request with the same send twice", answer);
    assert.equal(answer.database.status, 201, JSON.stringify(answer.database.body));
    assert.deepEqual(answer.builtIn, answer.database);
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(builtIn.length, 1);
  });

  test("a new key with the same words is a new message: two rows (someone may send the same words twice)", async () => {
    const row = formRow();
    for (const key of [row.send_key, randomUUID()]) {
      const answer = await both({ ...row, send_key: key }, REPEATS);
      assert.equal(answer.database.status, 201);
      assert.deepEqual(answer.builtIn, answer.database);
    }
    const { rows } = await db.query(`select count(*)::int as n from ${TABLE} where email = $1`, [row.email]);
    assert.equal(rows[0].n, 2);
  });

  test("a key sent again with other words: 409 23505, and the first is kept", async () => {
    const row = formRow();
    assert.equal((await both(row, REPEATS)).database.status, 201);
    for (const [name, change] of [
      ["another message", { message: "Something else entirely." }],
      ["another e-mail address", { email: `other.${row.email}` }],
      ["no image", { attachment_key: null, attachment_url: null }],
    ]) {
      const answer = await both({ ...row, ...change }, REPEATS);
      record(`a key sent again with ${name}`, answer);
      assert.equal(answer.database.status, 409, name);
      assert.equal(answer.database.body.code, "23505");
      assert.equal(answer.database.body.message, "This message's key was sent before with other words: a new message needs a new key.");
      assert.deepEqual(answer.builtIn, answer.database, name);
    }
    const again = await both({ ...row, fill_ms: 60_000 }, REPEATS);
    assert.equal(again.database.status, 201, "a later attempt took longer: the same words all the same");
    assert.deepEqual(again.builtIn, again.database);
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(database[0].message, row.message);
    assert.equal(builtIn.length, 1);
  });

  test("a repeat whose trap is filled or whose pace is too quick is skipped all the same: it is the message already taken", async () => {
    const row = formRow();
    assert.equal((await both(row, REPEATS)).database.status, 201);
    for (const change of [{ website: "x" }, { fill_ms: 10 }]) {
      const answer = await both({ ...row, ...change }, REPEATS);
      assert.equal(answer.database.status, 201, JSON.stringify(change));
      assert.deepEqual(answer.builtIn, answer.database);
    }
    const { database, builtIn } = await stored(row.send_key);
    assert.equal(database.length, 1);
    assert.equal(builtIn.length, 1);
  });

  test("a key that is not a UUID: 400 22P02; no key at all is a message as before", async () => {
    const bad = await both({ ...formRow(), send_key: "not-a-key" }, REPEATS);
    assert.equal(bad.database.status, 400);
    assert.equal(bad.database.body.message, 'invalid input syntax for type uuid: "not-a-key"');
    assert.deepEqual(bad.builtIn, bad.database);
    const row = without(formRow(), "send_key");
    for (let i = 0; i < 2; i++) {
      const answer = await both(row, REPEATS);
      assert.equal(answer.database.status, 201);
      assert.deepEqual(answer.builtIn, answer.database);
    }
    const { rows } = await db.query(`select count(*)::int as n from ${TABLE} where email = $1`, [row.email]);
    assert.equal(rows[0].n, 2, "without a key, nothing tells a repeat from a new message");
  });

  test("the unique index keeps one row per key, whoever writes past the trigger", async () => {
    const row = formRow();
    assert.equal((await both(row, REPEATS)).database.status, 201);
    await db.query("set session_replication_role = replica");
    try {
      await assert.rejects(
        db.query(`insert into ${TABLE} (name, email, subject, message, privacy, page, fill_ms, send_key) values ('A', 'a@example.com', 'S', 'M', true, '/', 9000, $1)`, [row.send_key]),
        (e) => e.code === "23505" && e.constraint === `${TABLE}_send_key_key`,
      );
    } finally {
      await db.query("set session_replication_role = origin");
    }
  });
});

describe("the public cannot read, change or remove messages", () => {
  test("no row can be read back, not even its own", async () => {
    const row = formRow();
    await both(row);
    const read = await select(db, TABLE);
    assert.equal(read.status, 403);
    assert.equal(read.body.code, "42501");
    const response = await fetch(`${server.url}/rest/v1/${TABLE}?select=*&email=eq.${encodeURIComponent(row.email)}`, { headers: { apikey: KEY } });
    assert.equal(response.status, 403);
    assert.deepEqual(await response.json(), read.body);
  });

  for (const sql of [`update ${TABLE} set status = 'read'`, `delete from ${TABLE}`, `select count(*) from private.contact_message_rate`]) {
    test(`${sql.split(" ").slice(0, 2).join(" ")}… is refused`, async () => {
      await db.query("begin");
      await db.query("set local role anon");
      await assert.rejects(db.query(sql), (e) => e.code === "42501");
      await db.query("rollback");
    });
  }

  test("the rate limit's function cannot be called by the public", async () => {
    await db.query("begin");
    await db.query("set local role anon");
    await assert.rejects(db.query("select private.contact_messages_rate_limit()"), (e) => e.code === "42501");
    await db.query("rollback");
  });
});

describe("what only site serve is sent", () => {
  // fetch, not `post`: a body refused before it is read whole ends its connection.
  const postToServe = (body, headers = {}) =>
    fetch(`${server.url}/rest/v1/${TABLE}`, { method: "POST", headers: { apikey: KEY, "Content-Type": "application/json", ...headers }, body }).then(async (r) => ({ status: r.status, body: await r.json(), connection: r.headers.get("connection") }));

  test("a body over 1 MiB is refused with 413 and nothing is stored", async () => {
    const before = readdirSync(path.join(site, ".site/messages")).length;
    const answer = await postToServe(JSON.stringify({ ...formRow(), message: "x".repeat(2 * 1024 * 1024) }));
    assert.equal(answer.status, 413);
    assert.equal(answer.body.code, "PGRST413");
    // The body is left unread: the connection closes, and the client is told so,
    // or it may send its next request on a connection the server is closing.
    assert.equal(answer.connection, "close");
    assert.equal(readdirSync(path.join(site, ".site/messages")).length, before);
  });

  test("a body that is not JSON, or not an object, is PostgREST's PGRST102", async () => {
    for (const body of ["{", "42", '["a"]']) {
      const answer = await postToServe(body);
      assert.equal(answer.status, 400, body);
      assert.equal(answer.body.code, "PGRST102", body);
    }
  });

  test("no key, or another project's, is refused as Supabase's gateway refuses it", async () => {
    const none = await fetch(`${server.url}/rest/v1/${TABLE}`, { method: "POST", body: JSON.stringify(formRow()) });
    assert.equal(none.status, 401);
    assert.equal((await none.json()).message, "No API key found in request");
    const other = await postToServe(JSON.stringify(formRow()), { apikey: "another-key" });
    assert.equal(other.status, 401);
    assert.equal(other.body.message, "Invalid API key");
  });
});

describe("site serve is its own project only under its own name", () => {
  /** A message whose image is at `host`'s storage, sent with that Host header. */
  const sendAs = (host) =>
    post(
      `${server.url}/rest/v1/${TABLE}`,
      { host, apikey: KEY, "content-type": "application/json", "x-forwarded-for": sender().address },
      JSON.stringify(formRow()).replaceAll(PROJECT, `http://${host}`),
    );

  test("a forged Host cannot make another server's link the image's address: 400 23514", async () => {
    const port = new URL(server.url).port;
    for (const host of ["phishing.example", `phishing.example:${port}`, "127.0.0.1:9", `10.0.0.1:${port}`]) {
      const answer = await sendAs(host);
      assert.equal(answer.status, 400, host);
      assert.equal(answer.body.code, "23514", host);
      assert.equal(answer.body.message, IMAGE, host);
    }
  });

  test("the names a browser reaches it by are its own: 201", async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      assert.equal((await sendAs(host)).status, 201, host);
    }
  });
});

/**
 * A proxy on loopback that does to each request what a proxy in front of the
 * table does. Cloudflare, in front of Supabase's API: CF-Connecting-IP becomes
 * the address it saw, overwriting the client's, and that address is appended to
 * any X-Forwarded-For the client wrote. nginx as docs/deploy.md configures it:
 * the address is appended to X-Forwarded-For and CF-Connecting-IP is dropped.
 * `deliver(headers, body)` answers `{ status, body }`.
 */
const PROXIES = {
  Cloudflare: { forward: (headers, seen) => ({ ...headers, "cf-connecting-ip": seen }), client: "127.0.0.1" },
  "nginx, appending only": { forward: ({ "cf-connecting-ip": _, ...headers }) => headers, client: "127.0.0.2" },
};
// Each proxy has its own client address, so that each starts with its five.
async function proxy(kind, deliver) {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const seen = req.socket.remoteAddress.replace(/^::ffff:/, "");
    const forwarded = req.headers["x-forwarded-for"];
    const headers = PROXIES[kind].forward({ ...req.headers, "x-forwarded-for": forwarded ? `${forwarded}, ${seen}` : seen }, seen);
    const answer = await deliver(headers, Buffer.concat(chunks).toString());
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(answer.body ? JSON.stringify(answer.body) : "");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

describe("one client cannot pose as many senders", () => {
  const backends = {
    PostgreSQL: (headers, body) => insert(db, TABLE, columns, body, headers),
    "site serve --trust-proxy": ({ "cf-connecting-ip": connecting, "x-forwarded-for": forwarded }, body) =>
      post(
        `${server.url}/rest/v1/${TABLE}`,
        { apikey: KEY, "content-type": "application/json", ...(connecting && { "cf-connecting-ip": connecting }), "x-forwarded-for": forwarded },
        body.replaceAll(PROJECT, server.url),
      ),
  };
  for (const [name, deliver] of Object.entries(backends)) for (const kind of Object.keys(PROXIES)) {
    test(`${name}: 20 messages, each with a forged X-Forwarded-For and CF-Connecting-IP, through ${kind}: 5 accepted`, async (t) => {
      const through = await proxy(kind, deliver);
      const rows = [];
      try {
        for (let i = 1; i <= 20; i++) {
          const forged = { "X-Forwarded-For": `203.0.113.${i}`, "CF-Connecting-IP": `198.18.0.${i}` };
          const headers = { apikey: KEY, "content-type": "application/json", ...forged };
          const answer = await post(`${through.url}/rest/v1/${TABLE}`, headers, JSON.stringify(formRow(sender())), PROXIES[kind].client);
          rows.push({ n: i, ...forged, status: answer.status, code: answer.body?.code ?? "" });
        }
      } finally {
        through.close();
      }
      t.diagnostic(["| # | forged X-Forwarded-For | forged CF-Connecting-IP | answer |", "|---|---|---|---|", ...rows.map((r) => `| ${r.n} | ${r["X-Forwarded-For"]} | ${r["CF-Connecting-IP"]} | ${r.status} ${r.code} |`)].join("\n"));
      const accepted = rows.filter((r) => r.status === 201).length;
      assert.ok(accepted <= 5, `${accepted} of 20 accepted`);
      assert.deepEqual(rows.map((r) => r.status), [...Array(5).fill(201), ...Array(15).fill(429)]);
    });
  }

  test("the sender as the migration counts it: the proxy's address, an IPv6 one as its /64", async () => {
    const cases = [
      [{ "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "1.2.3.4, 203.0.113.7" }, "203.0.113.7"],
      [{ "x-forwarded-for": "6.6.6.6, 7.7.7.7,203.0.113.7" }, "203.0.113.7"],
      [{ "cf-connecting-ip": "2001:db8:1:2:3:4:5:6" }, "2001:db8:1:2::/64"],
      [{ "cf-connecting-ip": "2001:db8:1:2:ffff::1" }, "2001:db8:1:2::/64"],
      [{ "cf-connecting-ip": "2001:db8::1" }, "2001:db8::/64"],
      [{ "cf-connecting-ip": "::ffff:198.51.100.9" }, "198.51.100.9"],
      [{}, null],
    ];
    for (const [headers, expected] of cases) {
      const { rows } = await db.query("select private.contact_sender($1::json) as sender", [JSON.stringify(headers)]);
      assert.equal(rows[0].sender, expected, JSON.stringify(headers));
    }
  });
});

describe("an image's URL is checked against the project's URL in Vault", () => {
  test("without project_url in Vault, a message with an image is refused with the setup step, and one without is stored", async () => {
    await db.query("update vault.secrets set name = 'project_url (moved away)' where name = 'project_url'");
    try {
      const withImage = await insert(db, TABLE, columns, JSON.stringify(formRow()), { "x-forwarded-for": sender().address });
      assert.equal(withImage.status, 500);
      assert.equal(withImage.body.code, "PT500");
      assert.match(withImage.body.hint, /vault\.create_secret\('https:\/\/<project-ref>\.supabase\.co', 'project_url'\)/);
      const plain = await insert(db, TABLE, columns, JSON.stringify(without(formRow(), "attachment_key", "attachment_url")), { "x-forwarded-for": sender().address });
      assert.equal(plain.status, 201);
    } finally {
      await db.query("update vault.secrets set name = 'project_url' where name = 'project_url (moved away)'");
    }
  });

  test("a project URL over http, off loopback, is refused as unset", async () => {
    await db.query("update vault.secrets set secret = 'http://abc.supabase.co' where name = 'project_url'");
    try {
      const row = formRow();
      const answer = await insert(db, TABLE, columns, JSON.stringify({ ...row, attachment_url: row.attachment_url.replace("https://", "http://") }), { "x-forwarded-for": sender().address });
      assert.equal(answer.status, 500);
      assert.equal(answer.body.code, "PT500");
    } finally {
      await db.query(`update vault.secrets set secret = '${PROJECT}' where name = 'project_url'`);
    }
  });
});

describe("1,000 messages at once", () => {
  test("all land in PostgreSQL, each once", async () => {
    // 100 connections, as many as PostgREST's pool would hold; 1,000 requests
    // queued on them at once, from 1,000 senders.
    const pool = new pg.Pool({ host: "127.0.0.1", port: server.pg.port, user: "postgres", database: "postgres", max: 100 });
    const rows = Array.from({ length: 1000 }, () => ({ ...formRow(), subject: "Load" }));
    const results = await Promise.all(
      rows.map(async (row, i) => {
        const client = await pool.connect();
        try {
          return await insert(client, TABLE, columns, JSON.stringify(row), { "x-forwarded-for": `10.1.${Math.floor(i / 250)}.${i % 250}` });
        } finally {
          client.release();
        }
      }),
    );
    await pool.end();
    assert.deepEqual(results.filter((r) => r.status !== 201), []);
    const { rows: counted } = await db.query(`select count(*)::int as n, count(distinct email)::int as senders from ${TABLE} where subject = 'Load'`);
    assert.deepEqual(counted[0], { n: 1000, senders: 1000 });
  });

  test("all land in site serve's inbox, each as one whole file", async () => {
    const rows = Array.from({ length: 1000 }, () => ({ ...formRow(), subject: "Load" }));
    const statuses = await Promise.all(
      rows.map((row, i) =>
        fetch(`${server.url}/rest/v1/${TABLE}`, {
          method: "POST",
          headers: { apikey: KEY, "Content-Type": "application/json", "X-Forwarded-For": `10.2.${Math.floor(i / 250)}.${i % 250}` },
          body: JSON.stringify(row).replaceAll(PROJECT, server.url),
        }).then(async (r) => (await r.text(), r.status)),
      ),
    );
    assert.deepEqual(statuses.filter((s) => s !== 201), []);
    const dir = path.join(site, ".site/messages");
    const load = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")))
      .filter((m) => m.subject === "Load");
    assert.equal(load.length, 1000);
    assert.equal(new Set(load.map((m) => m.email)).size, 1000);
    assert.deepEqual(readdirSync(path.join(dir, ".tmp")), [], "no part left behind");
  });
});

describe("retention", () => {
  test("the nightly job deletes messages past the retention and keeps the rest", async () => {
    const months = Number(readFileSync(path.join(root, "content/site.yaml"), "utf8").match(/retention_months: (\d+)/)[1]);
    const base = formRow();
    const add = (email, age) =>
      db.query(
        `insert into ${TABLE} (name, email, subject, message, privacy, page, fill_ms, received_at)
         values ($1, $2, $3, $4, true, '/contact/', 5000, now() - $5::interval)`,
        [base.name, email, base.subject, base.message, age],
      );
    await add("old@example.com", `${months} months 1 day`);
    await add("kept@example.com", `${months} months -1 day`);
    await db.query("insert into private.contact_message_rate (key_hash, at) values ('old', now() - interval '2 days'), ('new', now())");
    const { rows: job } = await db.query("select command from cron.job where jobname = 'contact-messages-retention'");
    await db.query(job[0].command);
    const { rows } = await db.query(`select email from ${TABLE} where email in ('old@example.com', 'kept@example.com')`);
    assert.deepEqual(rows.map((r) => r.email), ["kept@example.com"]);
    const { rows: rate } = await db.query("select key_hash from private.contact_message_rate where key_hash in ('old', 'new')");
    assert.deepEqual(rate.map((r) => r.key_hash), ["new"]);
  });
});
