// The contact form with `contact.messages: supabase`, in Chromium: a message sent
// from the form reaches the table, in `site serve`'s built-in backend (and is
// shown by `site messages`) and in a real PostgreSQL with the migration applied.
// The pages are served through a small gateway on loopback, as Supabase's is in
// front of its project: `/rest/v1/` goes either to PostgreSQL (the insert
// PostgREST makes, supabase/tests/postgrest.mjs) or to `site serve`, everything
// else (pages, storage) to `site serve`; it sets X-Forwarded-For as Supabase's does.
// It can also lose an answer: the insert is made and committed, and the
// connection dropped before the answer reaches the browser, as a tunnel does.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { formsIn, messagesProblem } from "../deploy/check-messages.mjs";
import { columnsOf, insert, select } from "../supabase/tests/postgrest.mjs";
import { startPostgres, supabaseLike } from "../supabase/tests/postgres.mjs";
import { axeViolations, copySite, fillContactForm, hydrated, launchBrowser, openPage, startServer, WIDTHS } from "./support.mjs";

const KEY = "test-anon-key";
const TABLE = "contact_messages";
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d5d3a1a10000000049454e44ae426082",
  "hex",
);
const root = path.resolve(import.meta.dirname, "..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");

let server;
let gateway;
let postgres;
let db;
let columns;
let browser;
/** Where the gateway sends `/rest/v1/`: "serve" or "postgres". */
let backend = "serve";
/** The sender's address the gateway reports, as Supabase's reports the visitor's. */
let senderAddress = "127.0.0.1";
/** How many of the next inserts' answers the gateway loses, once the insert is made. */
let answersToLose = 0;
/** The inserts the gateway was sent. */
let inserts = 0;

/** Whether this request's answer is to be lost: an insert, while answers are being lost. */
function losesAnswer(req) {
  if (!(req.method === "POST" && req.url.startsWith("/rest/v1/"))) return false;
  inserts++;
  if (answersToLose === 0) return false;
  answersToLose--;
  return true;
}

/** Forwards a request to `site serve`, with the sender's address; `lose`: its answer is read whole, then the connection dropped. */
function forward(req, res, body, lose = false) {
  const target = new URL(server.url);
  const upstream = http.request(
    { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host, "x-forwarded-for": senderAddress } },
    (answer) => {
      if (lose) {
        answer.resume();
        answer.on("end", () => res.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

/** The gateway, listening on a port of its own; it forwards to `server` once that has started. */
async function startGateway() {
  const gatewayServer = http.createServer(async (req, res) => {
    // Each answer closes its connection: a browser resends a request by itself
    // when a connection it reused closes before any answer (Chromium does), and
    // the tests of lost answers are to see what the form does.
    res.shouldKeepAlive = false;
    if (!req.url.startsWith("/rest/v1/") || backend === "serve") return forward(req, res, null, losesAnswer(req));
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const cors = { "access-control-allow-origin": "*" };
    if (req.method === "OPTIONS") {
      res.writeHead(204, { ...cors, "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "", "access-control-allow-methods": "POST" });
      return res.end();
    }
    if (req.headers.apikey !== KEY) {
      res.writeHead(401, { ...cors, "content-type": "application/json" });
      return res.end(JSON.stringify({ message: "Invalid API key" }));
    }
    const lose = losesAnswer(req);
    const answer =
      req.method === "GET"
        ? await select(db, TABLE)
        : await insert(db, TABLE, columns, Buffer.concat(chunks).toString(), { ...req.headers, "x-forwarded-for": senderAddress });
    // Committed (insert resolves after its commit): the answer is what is lost.
    if (lose) return res.socket.destroy();
    res.writeHead(answer.status, { ...cors, "content-type": "application/json; charset=utf-8" });
    res.end(answer.body ? JSON.stringify(answer.body) : "");
  });
  await new Promise((resolve) => gatewayServer.listen(0, "127.0.0.1", resolve));
  return gatewayServer;
}

before(async () => {
  postgres = await startPostgres();
  db = await postgres.client();
  const gatewayServer = await startGateway();
  const { port } = gatewayServer.address();
  gateway = { server: gatewayServer, url: `http://127.0.0.1:${port}` };
  // The form's images are stored behind the gateway, which stands for the project.
  await supabaseLike(db, { projectUrl: `http://127.0.0.1:${port}` });
  const migrations = path.join(root, "supabase/migrations");
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) {
    await db.query(readFileSync(path.join(migrations, file), "utf8"));
  }
  columns = await columnsOf(db, TABLE);

  const site = copySite();
  const config = path.join(site, "content/site.yaml");
  writeFileSync(
    config,
    readFileSync(config, "utf8")
      .replace(/url: ""/, `url: "http://127.0.0.1:${port}"`)
      .replace(/anon_key: ".*"/, `anon_key: "${KEY}"`)
      .replace(/messages: console/, "messages: supabase"),
  );
  // Behind the gateway, which reports the sender as Supabase's does.
  server = await startServer({ siteRoot: site, args: ["--trust-proxy"] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  gateway?.server.close();
  await server?.stop();
  await db?.end();
  await postgres?.stop();
});

async function contactPage(width = 1280) {
  const opened = await openPage(browser, width);
  opened.logs = [];
  opened.page.on("console", (m) => opened.logs.push(m.text()));
  await opened.page.goto(gateway.url + "/contact/");
  await hydrated(opened.page);
  await opened.page.waitForSelector(".contact-form__submit:not([disabled])");
  return opened;
}

const fill = (page, email, options = {}) => fillContactForm(page, { email, ...options });

const sendButton = (page) => page.getByRole("button", { name: "Send Message" });

/** `site messages --json`: what site serve's inbox holds. */
function inbox() {
  const out = execFileSync(bin, ["messages", "--json", "--root", server.root], { encoding: "utf8" });
  return out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

describe("the form with messages delivered", () => {
  test("has no axe violation at any width, and its honeypot is out of sight, of reach and of the accessibility tree", async () => {
    for (const width of WIDTHS) {
      const { page, context, problems } = await contactPage(width);
      assert.deepEqual(await axeViolations(page), [], `${width}px`);
      const trap = page.locator("#contact-website");
      assert.equal(await trap.getAttribute("tabindex"), "-1");
      const box = await trap.boundingBox();
      assert.ok(box.x + box.width <= 0, `off-screen at ${width}px`);
      const tree = await page.locator(".contact-form").ariaSnapshot();
      assert.ok(!/website|Leave this field/i.test(tree), tree);
      // Tabbing from the company field reaches the subject, not the trap.
      await page.getByLabel(/^Company Name/).focus();
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.id), "contact-subject");
      assert.deepEqual(problems, []);
      await context.close();
    }
  });

  test("a message with an image reaches site serve's inbox, and `site messages` shows it", async () => {
    backend = "serve";
    const { page, context, problems, logs } = await contactPage(375);
    const email = `asha.${Date.now()}@example.com`;
    await fill(page, email, { file: { name: "Site plan.png", mimeType: "image/png", buffer: PNG } });
    await sendButton(page).click();
    await page.locator(".form-sent").waitFor();
    assert.equal(await page.locator(".toast__title").innerText(), "Message Sent");
    assert.ok(logs.some((l) => l.startsWith("Contact form submission: ")), "the console line stays");

    const found = inbox().filter((m) => m.email === email);
    assert.equal(found.length, 1);
    const [message] = found;
    assert.equal(message.status, "new");
    assert.equal(message.page, "/contact/");
    assert.equal(message.privacy, true);
    assert.equal(message.subject, "Core banking modernisation");
    assert.equal(message.website, "");
    assert.ok(message.fill_ms >= 3000, `fill_ms ${message.fill_ms}`);
    assert.match(message.attachment_key, /^public\/\d{13}_[0-9a-f]{32}_Site_plan\.png$/);
    assert.equal(message.attachment_key.split("_")[1], message.send_key.replaceAll("-", ""), "the image is stored under the send's key");
    assert.equal(message.attachment_url, `${gateway.url}/storage/v1/object/public/contact-attachments/${message.attachment_key}`);
    assert.deepEqual(Buffer.from(await (await fetch(message.attachment_url)).arrayBuffer()), PNG);
    const shown = execFileSync(bin, ["messages", "--root", server.root], { encoding: "utf8" });
    assert.match(shown, new RegExp(`From: +Asha Patel <${email.replaceAll(".", "\\.")}>`));
    assert.match(shown, /We would like to discuss a programme starting next year\./);
    assert.match(shown, /\(contact\.messages: supabase\)/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a message sent from the form is found in PostgreSQL's table", async () => {
    backend = "postgres";
    const { page, context, problems } = await contactPage(1280);
    const email = `ravi.${Date.now()}@example.com`;
    await fill(page, email, { file: { name: "brief.png", mimeType: "image/png", buffer: PNG } });
    await sendButton(page).click();
    await page.locator(".form-sent").waitFor();
    const { rows } = await db.query(`select * from ${TABLE} where email = $1`, [email]);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.name, "Asha Patel");
    assert.equal(row.phone, "+91 98765 43210");
    assert.equal(row.company, "Northbridge Bank");
    assert.equal(row.status, "new");
    assert.equal(row.page, "/contact/");
    assert.ok(row.fill_ms >= 3000);
    assert.match(row.attachment_url, /\/storage\/v1\/object\/public\/contact-attachments\/public\/\d{13}_[0-9a-f]{32}_brief\.png$/);
    console.log(`PostgreSQL's ${TABLE}: ${JSON.stringify({ ...row, id: "…", received_at: row.received_at.toISOString() })}`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a message the table refuses shows the failure toast with the server's message, and keeps every value", async () => {
    for (const target of ["serve", "postgres"]) {
      backend = target;
      const { page, context, problems } = await contactPage(768);
      const email = `bot.${target}.${Date.now()}@example.com`;
      await fill(page, email);
      // What a script that fills every field does.
      await page.locator("#contact-website").evaluate((i) => (i.value = "https://cheap-pills.example"));
      await sendButton(page).click();
      await page.locator(".toast--destructive").waitFor();
      assert.equal(await page.locator(".toast__title").innerText(), "Submission Failed");
      assert.equal(await page.locator(".toast__description").innerText(), `new row violates row-level security policy for table "${TABLE}"`);
      assert.equal(await page.getByLabel(/^Email Address/).inputValue(), email);
      assert.equal(await page.getByLabel(/^Message/).inputValue(), "We would like to discuss a programme starting next year.");
      assert.equal(await page.getByLabel("I agree to the Privacy Policy and consent to being contacted").isChecked(), true);
      assert.equal(await sendButton(page).isEnabled(), true);
      // The refused request is the only problem the page saw.
      assert.deepEqual(problems.filter((p) => !/40[13]/.test(p)), [], target);
      await context.close();
    }
    assert.deepEqual(inbox().filter((m) => m.email.startsWith("bot.")), []);
    const { rows } = await db.query(`select count(*)::int as n from ${TABLE} where email like 'bot.%'`);
    assert.equal(rows[0].n, 0);
  });
});

describe("a send whose answer is lost lands once", () => {
  let senders = 0;
  /** A sender of its own for each case, so the rate limit counts only its sends. */
  function newSender() {
    senders++;
    senderAddress = `198.18.0.${senders}`;
    return `lost.${senders}.${Date.now()}@example.com`;
  }

  /**
   * Presses Send while both the first answer and the form's own retry's are
   * lost (both inserts made), and waits for the failure toast.
   */
  async function sendLosingBothAnswers(page) {
    answersToLose = 2;
    const before = inserts;
    await sendButton(page).click();
    await page.locator(".toast--destructive").waitFor();
    assert.equal(inserts - before, 2, "the form sent twice, then told the visitor");
  }

  /** The messages from `email`: PostgreSQL's rows or site serve's inbox. */
  async function messagesFrom(email) {
    if (backend === "serve") return inbox().filter((m) => m.email === email);
    const { rows } = await db.query(`select * from ${TABLE} where email = $1`, [email]);
    return rows;
  }

  /** The stored images whose names hold the send's key, in site serve's storage (where both backends' forms store them). */
  function imagesOf(sendKey) {
    const folder = path.join(server.root, ".site/storage/contact-attachments/public");
    return readdirSync(folder).filter((name) => name.includes(`_${sendKey.replaceAll("-", "")}_`));
  }

  /**
   * How many more new messages the sender may send this hour (the limit is
   * five): four when the lost send was counted once. Sent as the form sends.
   */
  async function sendsLeft(email) {
    for (let n = 0; n < 10; n++) {
      const response = await fetch(`${gateway.url}/rest/v1/${TABLE}`, {
        method: "POST",
        headers: { apikey: KEY, Authorization: `Bearer ${KEY}`, "Content-Type": "application/json", Prefer: "return=minimal" },
        body: JSON.stringify({ name: "Asha Patel", email: `${n}.${email}`, subject: "More", message: "Another message.", privacy: true, page: "/contact/", fill_ms: 9000, send_key: crypto.randomUUID() }),
      });
      await response.text();
      if (response.status === 429) return n;
      assert.equal(response.status, 201);
    }
    return Infinity;
  }

  for (const target of ["serve", "postgres"]) {
    test(`${target}: the form's own retry lands the message once, and the visitor sees it sent`, async () => {
      backend = target;
      const email = newSender();
      const { page, context, problems } = await contactPage(1280);
      await fill(page, email, { file: { name: "plan.png", mimeType: "image/png", buffer: PNG } });
      answersToLose = 1;
      const before = inserts;
      await sendButton(page).click();
      await page.locator(".form-sent").waitFor();
      assert.equal(await page.locator(".toast__title").innerText(), "Message Sent");
      assert.equal(inserts - before, 2, "the first answer was lost, and the form sent once more");
      const found = await messagesFrom(email);
      assert.equal(found.length, 1);
      assert.equal(imagesOf(found[0].send_key).length, 1, "one image");
      assert.equal(await sendsLeft(email), 4, "counted once");
      // The lost answer is the one failed request the page saw.
      assert.deepEqual(problems.filter((p) => !/ERR_(EMPTY_RESPONSE|CONNECTION_RESET|CONNECTION_CLOSED)/.test(p)), []);
      await context.close();
    });

    test(`${target}: the visitor's own retry after a lost answer lands the message once, and the visitor sees it sent`, async () => {
      backend = target;
      const email = newSender();
      const { page, context, problems } = await contactPage(375);
      await fill(page, email, { file: { name: "plan.png", mimeType: "image/png", buffer: PNG } });
      await sendLosingBothAnswers(page);
      assert.equal(await page.locator(".toast__title").innerText(), "Submission Failed");
      assert.match(await page.locator(".toast__description").innerText(), /connection failed/);
      assert.equal(await page.getByLabel(/^Email Address/).inputValue(), email, "every value is kept");
      assert.equal((await messagesFrom(email)).length, 1, "the first attempt reached the table");
      // The visitor presses Send again: the image stored by the first attempt
      // is the send's, and the message is the same send.
      await sendButton(page).click();
      await page.locator(".form-sent").waitFor();
      assert.equal(await page.locator(".toast__title").innerText(), "Message Sent");
      const found = await messagesFrom(email);
      assert.equal(found.length, 1);
      assert.equal(imagesOf(found[0].send_key).length, 1, "one image");
      assert.equal(await sendsLeft(email), 4, "counted once");
      assert.deepEqual(problems.filter((p) => !/ERR_(EMPTY_RESPONSE|CONNECTION_RESET|CONNECTION_CLOSED)/.test(p)), []);
      await context.close();
    });
  }

  test("a reload after a lost answer keeps the send with its words: the same words sent again are the same message", async () => {
    backend = "postgres";
    const email = newSender();
    const { page, context } = await contactPage(768);
    await fill(page, email);
    await sendLosingBothAnswers(page);
    await page.reload();
    await hydrated(page);
    await page.waitForSelector(".contact-form__submit:not([disabled])");
    // The visitor fills the form again with the same words (a browser that
    // restores a form's values over a reload does the same).
    await fill(page, email);
    await sendButton(page).click();
    await page.locator(".form-sent").waitFor();
    assert.equal((await messagesFrom(email)).length, 1);
    await context.close();
  });

  test("other words after a lost answer are a new message", async () => {
    backend = "serve";
    const email = newSender();
    const { page, context } = await contactPage(1280);
    await fill(page, email);
    await sendLosingBothAnswers(page);
    await page.getByLabel(/^Message/).fill("We would like to discuss a programme starting in March.");
    await sendButton(page).click();
    await page.locator(".form-sent").waitFor();
    const found = await messagesFrom(email);
    assert.deepEqual(found.map((m) => m.message).sort(), ["We would like to discuss a programme starting in March.", "We would like to discuss a programme starting next year."]);
    assert.notEqual(found[0].send_key, found[1].send_key);
    await context.close();
  });
});

describe("the deploy check", () => {
  test("finds the built form's settings, and passes against a table that takes messages and hides them", async () => {
    const forms = formsIn(server.out);
    assert.deepEqual(forms, [{ messages: "supabase", url: gateway.url, anonKey: KEY }]);
    for (const target of ["serve", "postgres"]) {
      backend = target;
      assert.equal(await messagesProblem(gateway.url, KEY), null, target);
    }
    const { rows } = await db.query(`select count(*)::int as n from ${TABLE} where name = 'Deploy check'`);
    assert.equal(rows[0].n, 0, "the probe wrote nothing");
  });

  test("fails, saying what to apply, when the key is refused or the table is readable or missing", async () => {
    assert.match(await messagesProblem(gateway.url, "wrong-key"), /refused the anon key \(Invalid API key\): the build's SITE_STORAGE_ANON_KEY/);
    const readable = http.createServer((req, res) => {
      res.writeHead(req.url.startsWith("/rest/v1/contact_messages") ? 200 : 404, { "content-type": "application/json" });
      res.end("[]");
    });
    await new Promise((r) => readable.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${readable.address().port}`;
    assert.match(await messagesProblem(url, KEY), /the public can read contact_messages .*apply supabase\/migrations\/20261123000000_contact_messages\.sql/);
    readable.close();
    const missing = http.createServer((req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "PGRST205", message: "Could not find the table 'public.contact_messages' in the schema cache" }));
    });
    await new Promise((r) => missing.listen(0, "127.0.0.1", r));
    assert.match(await messagesProblem(`http://127.0.0.1:${missing.address().port}`, KEY), /has no table contact_messages: apply/);
    missing.close();
  });
});
