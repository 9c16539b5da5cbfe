import { test } from "node:test";
import assert from "node:assert/strict";
import { EMPTY_FIELDS } from "./contact.ts";
import { insertMessage, insertRow, messageRow, messagesEndpoint, MIN_FILL_MS, refusalMessage, waitBeforeSending } from "./messages.ts";
import { RETRY_AFTER_MS } from "./contact.ts";

const KEY = "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b";

const fields = {
  ...EMPTY_FIELDS,
  name: "  Asha Patel ",
  email: " asha@example.com",
  subject: "Cloud migration",
  message: "We would like to talk.\n",
  agree: true,
};

test("the row is the fields trimmed, with the attachment, the page, the pace and the trap", () => {
  const row = messageRow(fields, {
    attachment: { key: "public/1_a.png", url: "https://x.supabase.co/storage/v1/object/public/contact-attachments/public/1_a.png" },
    page: "/contact/",
    fillMs: 4200.7,
    trap: "",
    sendKey: KEY,
  });
  assert.deepEqual(row, {
    name: "Asha Patel",
    email: "asha@example.com",
    phone: "",
    company: "",
    subject: "Cloud migration",
    message: "We would like to talk.",
    privacy: true,
    attachment_key: "public/1_a.png",
    attachment_url: "https://x.supabase.co/storage/v1/object/public/contact-attachments/public/1_a.png",
    page: "/contact/",
    fill_ms: 4201,
    website: "",
    send_key: KEY,
  });
  assert.equal(messageRow(fields, { attachment: null, page: "/", fillMs: 1, trap: "x", sendKey: KEY }).attachment_key, null);
});

test("the table is the project's, or this origin's for site serve", () => {
  assert.equal(messagesEndpoint("https://abc.supabase.co/", "http://127.0.0.1:8080"), "https://abc.supabase.co/rest/v1/contact_messages");
  assert.equal(messagesEndpoint(" ", "http://127.0.0.1:8080"), "http://127.0.0.1:8080/rest/v1/contact_messages");
});

test("a quick visitor waits out the minimum; a slower one does not wait", () => {
  assert.ok(waitBeforeSending(1000) >= MIN_FILL_MS - 1000);
  assert.equal(waitBeforeSending(60_000), 0);
});

test("a refusal shows the server's message, or says what happened", () => {
  assert.equal(refusalMessage(429, '{"code":"PT429","message":"Too many."}'), "Too many.");
  assert.match(refusalMessage(502, "<html>Bad gateway</html>"), /HTTP 502/);
});

test("the insert is one POST with the key, JSON and return=minimal; a refusal throws its message", async () => {
  const calls: { url: string; init: RequestInit }[] = [];
  const answer = (status: number, body: string) => async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return new Response(body || null, { status });
  };
  const row = messageRow(fields, { attachment: null, page: "/contact/", fillMs: 5000, trap: "", sendKey: KEY });
  await insertMessage({ url: "", anonKey: "k" }, row, "http://127.0.0.1:8080", answer(201, "") as typeof fetch);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].url, "http://127.0.0.1:8080/rest/v1/contact_messages");
  assert.equal(calls[0].init.method, "POST");
  const headers = calls[0].init.headers as Record<string, string>;
  assert.equal(headers.apikey, "k");
  assert.equal(headers.Prefer, "return=minimal");
  assert.deepEqual(JSON.parse(String(calls[0].init.body)), row);
  await assert.rejects(
    insertMessage({ url: "", anonKey: "k" }, row, "http://x", answer(400, '{"code":"23514","message":"new row violates"}') as typeof fetch),
    /new row violates/,
  );
});

/** A fetch that fails on the network `failures` times, then answers 201; and what it was sent. */
function flaky(failures: number) {
  const bodies: string[] = [];
  const impl = (async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(String(init?.body));
    if (bodies.length <= failures) throw new TypeError("fetch failed");
    return new Response(null, { status: 201 });
  }) as typeof fetch;
  return { impl, bodies };
}

test("a send that fails on the network is sent once more by itself, with the same key, after a pause", async () => {
  const row = messageRow(fields, { attachment: null, page: "/contact/", fillMs: 5000, trap: "", sendKey: KEY });
  const waits: number[] = [];
  const { impl, bodies } = flaky(1);
  await insertRow({ url: "", anonKey: "k" }, "contact_messages", row, "http://x", impl, async (ms) => void waits.push(ms));
  assert.equal(bodies.length, 2);
  assert.equal(bodies[0], bodies[1], "the same row, key and all");
  assert.deepEqual(waits, [RETRY_AFTER_MS]);
});

test("a second failure of the network in a row is the visitor's to retry: no third attempt", async () => {
  const row = messageRow(fields, { attachment: null, page: "/contact/", fillMs: 5000, trap: "", sendKey: KEY });
  const { impl, bodies } = flaky(2);
  await assert.rejects(insertRow({ url: "", anonKey: "k" }, "contact_messages", row, "http://x", impl, async () => {}), /connection failed/);
  assert.equal(bodies.length, 2);
});

test("a refusal from the server is not sent again", async () => {
  const row = messageRow(fields, { attachment: null, page: "/contact/", fillMs: 5000, trap: "", sendKey: KEY });
  let calls = 0;
  const refusing = (async () => {
    calls++;
    return new Response('{"code":"PT429","message":"Too many."}', { status: 429 });
  }) as typeof fetch;
  await assert.rejects(insertRow({ url: "", anonKey: "k" }, "contact_messages", row, "http://x", refusing, async () => {}), /Too many/);
  assert.equal(calls, 1);
});
