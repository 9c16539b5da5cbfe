import { test } from "node:test";
import assert from "node:assert/strict";
import { EMPTY_FIELDS } from "./contact.ts";
import { insertMessage, messageRow, messagesEndpoint, MIN_FILL_MS, refusalMessage, waitBeforeSending } from "./messages.ts";

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
  });
  assert.equal(messageRow(fields, { attachment: null, page: "/", fillMs: 1, trap: "x" }).attachment_key, null);
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
  const row = messageRow(fields, { attachment: null, page: "/contact/", fillMs: 5000, trap: "" });
  await insertMessage({ url: "", anonKey: "k" }, row, "http://127.0.0.1:8080", answer(201, "") as typeof fetch);
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
  const offline = (async () => {
    throw new TypeError("fetch failed");
  }) as typeof fetch;
  await assert.rejects(insertMessage({ url: "", anonKey: "k" }, row, "http://x", offline), /connection failed/);
});
