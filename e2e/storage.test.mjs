// Contract test: the real @supabase/storage-js client, in Node, against the storage
// API of a running `site serve`. Checks the results the contact form relies on.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { StorageClient } from "@supabase/storage-js";
import { bucketProblem } from "../deploy/check-storage.mjs";
import { copySite, freePort, startServer } from "./support.mjs";

const KEY = "test-anon-key";
const BUCKET = "contact-attachments";
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d5d3a1a10000000049454e44ae426082", "hex");

let server;
let storage;
let bucketDir;

function png(bytes = PNG) {
  return new File([bytes], "photo.png", { type: "image/png" });
}

function uniqueKey(name) {
  return `public/${Date.now()}_${Math.random().toString(36).slice(2)}_${name}`;
}

before(async () => {
  const site = copySite();
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, `anon_key: "${KEY}"`));
  server = await startServer({ siteRoot: site });
  storage = new StorageClient(`${server.url}/storage/v1`, { apikey: KEY, Authorization: `Bearer ${KEY}` });
  bucketDir = path.join(site, ".site/storage", BUCKET);
});

after(async () => {
  await server?.stop();
});

describe("upload", () => {
  test("succeeds with the path and full path of the object", async () => {
    const key = uniqueKey("photo.png");
    const { data, error } = await storage.from(BUCKET).upload(key, png(), { cacheControl: "3600", upsert: false });
    assert.equal(error, null);
    assert.equal(data.path, key);
    assert.equal(data.fullPath, `${BUCKET}/${key}`);
    assert.match(data.id, /^[0-9a-f-]{36}$/);
  });

  test("the public URL returns the same bytes with the cache control of the upload", async () => {
    const key = uniqueKey("map.png");
    await storage.from(BUCKET).upload(key, png(), { cacheControl: "3600", upsert: false });
    const { data } = storage.from(BUCKET).getPublicUrl(key);
    assert.equal(data.publicUrl, `${server.url}/storage/v1/object/public/${BUCKET}/${key}`);
    const response = await fetch(data.publicUrl);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "max-age=3600");
    assert.equal(response.headers.get("content-type"), "image/png");
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), PNG);
    const etag = response.headers.get("etag");
    assert.equal((await fetch(data.publicUrl, { headers: { "If-None-Match": etag } })).status, 304);
  });

  test("a key that exists is refused with 409 and never overwritten", async () => {
    const key = uniqueKey("same.png");
    await storage.from(BUCKET).upload(key, png(), { cacheControl: "3600", upsert: false });
    const other = Buffer.concat([PNG, Buffer.from("different")]);
    const { data, error } = await storage.from(BUCKET).upload(key, png(other), { cacheControl: "3600", upsert: false });
    assert.equal(data, null);
    assert.equal(error.name, "StorageApiError");
    assert.equal(error.statusCode, "409");
    assert.equal(error.message, "The resource already exists");
    const stored = await fetch(storage.from(BUCKET).getPublicUrl(key).data.publicUrl);
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), PNG);
  });

  test("of two uploads racing for one key, exactly one wins", async () => {
    const key = uniqueKey("race.png");
    const bodies = Array.from({ length: 8 }, (_, i) => Buffer.concat([PNG, Buffer.alloc(50_000, i)]));
    const results = await Promise.all(
      bodies.map((b) => storage.from(BUCKET).upload(key, png(b), { cacheControl: "3600", upsert: false })),
    );
    const winners = results.filter((r) => r.error === null);
    assert.equal(winners.length, 1);
    assert.ok(results.filter((r) => r.error).every((r) => r.error.statusCode === "409"));
    const stored = Buffer.from(await (await fetch(storage.from(BUCKET).getPublicUrl(key).data.publicUrl)).arrayBuffer());
    assert.ok(bodies.some((b) => b.equals(stored)), "the stored object is one whole upload");
  });

  test("a file over 5 MiB is refused with 413 and leaves nothing behind", async () => {
    const key = uniqueKey("huge.png");
    const big = Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024, 7)]);
    const { error } = await storage.from(BUCKET).upload(key, png(big), { cacheControl: "3600", upsert: false });
    assert.equal(error.statusCode, "413");
    assert.equal(error.message, "The object exceeded the maximum allowed size");
    assert.equal(existsSync(path.join(bucketDir, `${key}~object`)), false);
    assert.deepEqual(readdirSync(path.join(bucketDir, "..", ".tmp")), []);
  });

  test("exactly 5 MiB is accepted", async () => {
    const body = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length, 1)]);
    const { error } = await storage.from(BUCKET).upload(uniqueKey("limit.png"), png(body), { cacheControl: "3600" });
    assert.equal(error, null);
  });

  test("a type other than JPEG, PNG or GIF is refused with 415", async () => {
    const pdf = new File([Buffer.from("%PDF-1.7\n")], "doc.pdf", { type: "application/pdf" });
    const { error } = await storage.from(BUCKET).upload(uniqueKey("doc.pdf"), pdf, { cacheControl: "3600" });
    assert.equal(error.statusCode, "415");
    assert.equal(error.message, "mime type application/pdf is not supported");
  });

  test("content that is not what its type claims is refused with 415", async () => {
    const fake = new File([Buffer.from("%PDF-1.7 pretending")], "fake.png", { type: "image/png" });
    const { error } = await storage.from(BUCKET).upload(uniqueKey("fake.png"), fake, { cacheControl: "3600" });
    assert.equal(error.statusCode, "415");
  });

  test("a key the real server rejects is refused with 400 InvalidKey", async () => {
    const { error } = await storage.from(BUCKET).upload("public/café.png", png(), { cacheControl: "3600" });
    assert.equal(error.statusCode, "400");
    assert.equal(error.message, "Invalid key: public/café.png");
  });

  test("a key outside public/ is refused with 403, as the production policy refuses it", async () => {
    for (const key of [`private/${Date.now()}_photo.png`, "public/photo.png", `${Date.now()}_photo.png`]) {
      const { error } = await storage.from(BUCKET).upload(key, png(), { cacheControl: "3600" });
      assert.equal(error?.statusCode, "403", key);
      assert.equal(error.message, "new row violates row-level security policy");
    }
  });

  test("an upsert is refused with 403: the public may insert, never update", async () => {
    const key = uniqueKey("upsert.png");
    const { error } = await storage.from(BUCKET).upload(key, png(), { cacheControl: "3600", upsert: true });
    assert.equal(error?.statusCode, "403");
    assert.equal(error.message, "new row violates row-level security policy");
    assert.equal(existsSync(path.join(bucketDir, `${key}~object`)), false);
  });

  test("a declared type with parameters is stored as the bare type", async () => {
    const key = uniqueKey("charset.png");
    const file = new File([PNG], "charset.png", { type: "image/png;charset=utf-8" });
    const { error } = await storage.from(BUCKET).upload(key, file, { cacheControl: "3600" });
    assert.equal(error, null);
    const response = await fetch(storage.from(BUCKET).getPublicUrl(key).data.publicUrl);
    assert.equal(response.headers.get("content-type"), "image/png");
  });

  test("a missing bucket is refused with 404", async () => {
    const { error } = await storage.from("no-such-bucket").upload(uniqueKey("a.png"), png(), { cacheControl: "3600" });
    assert.equal(error.statusCode, "404");
    assert.equal(error.message, "Bucket not found");
  });

  test("a wrong key is refused with 403", async () => {
    const stranger = new StorageClient(`${server.url}/storage/v1`, { apikey: "nope", Authorization: "Bearer nope" });
    const { error } = await stranger.from(BUCKET).upload(uniqueKey("a.png"), png(), { cacheControl: "3600" });
    assert.equal(error.statusCode, "403");
  });

  test("errors come as HTTP 400 with the real status in the JSON body", async () => {
    const response = await fetch(`${server.url}/storage/v1/object/public/${BUCKET}/public/missing.png`);
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(
      await response.text(),
      '{"statusCode":"404","error":"not_found","message":"Object not found","code":"NoSuchKey"}',
    );
  });
});

/** A multipart upload as storage-js sends it, with extra text fields first. */
function form(fields, file = PNG, boundary = "----hostile") {
  const parts = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), Buffer.from(value), Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=""; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`), file, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

async function post(key, { body, type }, { authorization = `Bearer ${KEY}`, stream = false } = {}) {
  const url = `${server.url}/storage/v1/object/${BUCKET}/${key}`;
  const chunks = [];
  for (let i = 0; i < body.length; i += 1 << 20) chunks.push(body.subarray(i, i + (1 << 20)));
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: authorization, "Content-Type": type },
    // A stream has no Content-Length: the server learns the size only by reading.
    body: stream ? new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) }) : body,
    duplex: "half",
  });
  return { status: response.status, json: await response.json() };
}

describe("hostile clients", () => {
  const tooLarge = { statusCode: "413", error: "Payload too large", message: "The object exceeded the maximum allowed size", code: "EntityTooLarge" };

  test("a body far over the limit gets the 413 answer, with or without a Content-Length", async () => {
    const huge = form([], Buffer.concat([PNG, Buffer.alloc(64 << 20)]));
    for (const stream of [false, true]) {
      const key = uniqueKey("huge.png");
      const { status, json } = await post(key, huge, { stream });
      assert.equal(status, 400, `stream: ${stream}`);
      assert.deepEqual(json, tooLarge);
      assert.equal(existsSync(path.join(bucketDir, `${key}~object`)), false);
    }
  });

  test("a text field over 16 KiB is refused with 413, whatever its name", async () => {
    for (const name of ["cacheControl", "metadata", "anything"]) {
      const { status, json } = await post(uniqueKey("a.png"), form([[name, "9".repeat(16 * 1024 + 1)]]));
      assert.equal(status, 400);
      assert.equal(json.statusCode, "413");
      assert.equal(json.message, `the form field \`${name}\` is longer than 16384 bytes`);
    }
  });

  test("a cacheControl that is not a number of seconds is refused with 400 and stores nothing", async () => {
    for (const bad of ["3600\r\nSet-Cookie: a=b", "max-age=3600", "-1"]) {
      const key = uniqueKey("a.png");
      const { status, json } = await post(key, form([["cacheControl", bad]]));
      assert.equal(status, 400);
      assert.equal(json.statusCode, "400");
      assert.match(json.message, /^cacheControl must be a number of seconds/);
      assert.equal(existsSync(path.join(bucketDir, `${key}~object`)), false);
    }
  });

  test("the key must come as `Bearer <key>`, with the space", async () => {
    for (const authorization of [`Bearer${KEY}`, `bearer ${KEY}`, `Bearer  ${KEY}`, KEY]) {
      const { json } = await post(uniqueKey("a.png"), form([]), { authorization });
      assert.equal(json.statusCode, "403", authorization);
    }
  });

  test("objects are served so a browser never runs them: nosniff, a sandbox and a download name", async () => {
    // A real PNG header with a page behind it.
    const polyglot = Buffer.concat([PNG, Buffer.from("<html><script>alert(1)</script></html>")]);
    const key = uniqueKey("photo.png");
    const { status } = await post(key, form([["cacheControl", "60"]], polyglot));
    assert.equal(status, 200);
    const response = await fetch(`${server.url}/storage/v1/object/public/${BUCKET}/${key}`);
    assert.equal(response.headers.get("content-type"), "image/png");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("content-security-policy"), "default-src 'none'; sandbox");
    assert.equal(response.headers.get("content-disposition"), `inline; filename="${key.split("/")[1]}"`);
    assert.equal(response.headers.get("cache-control"), "max-age=60");
  });

  test("a connection that never finishes its request headers is closed", async () => {
    const { hostname, port } = new URL(server.url);
    const closed = await new Promise((resolve) => {
      const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "));
      socket.on("error", () => {});
      socket.on("close", () => resolve(true));
      // Far longer than the server's limit: a kept connection fails the test.
      setTimeout(() => {
        socket.destroy();
        resolve(false);
      }, 40_000).unref();
    });
    assert.equal(closed, true);
  });
});

/**
 * `bytes` of `type` sent as storage-js sends them: as a File (a form with its
 * cacheControl field), or as an ArrayBuffer (the bytes as the whole body, the
 * type and cache control in headers), that one streamed without a Content-Length
 * when `stream`.
 */
async function send(as, key, bytes, type, { upsert = false, stream = false } = {}) {
  const headers = { Authorization: `Bearer ${KEY}`, apikey: KEY, "x-upsert": String(upsert) };
  let body;
  if (as === "form") {
    body = new FormData();
    body.append("cacheControl", "3600");
    body.append("", new File([bytes], "photo.png", { type }));
  } else {
    headers["content-type"] = type;
    headers["cache-control"] = "max-age=3600";
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 1 << 20) chunks.push(bytes.subarray(i, i + (1 << 20)));
    body = stream ? new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) }) : bytes;
  }
  const response = await fetch(`${server.url}/storage/v1/object/${BUCKET}/${key}`, { method: "POST", headers, body, duplex: "half" });
  return { status: response.status, json: await response.json() };
}

async function stored(key) {
  const response = await fetch(storage.from(BUCKET).getPublicUrl(key).data.publicUrl);
  return { type: response.headers.get("content-type"), cacheControl: response.headers.get("cache-control"), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("raw bodies: the file's bytes as the whole body, as storage-js sends an ArrayBuffer or a typed array", () => {
  for (const [name, body] of [
    ["an ArrayBuffer", () => PNG.buffer.slice(PNG.byteOffset, PNG.byteOffset + PNG.length)],
    ["a Uint8Array", () => new Uint8Array(PNG)],
    ["a stream, without a Content-Length", () => new Blob([PNG]).stream()],
  ]) {
    test(`storage-js's upload of ${name} is stored and reads back byte for byte, with its type and cache control`, async () => {
      const key = uniqueKey("raw.png");
      const { data, error } = await storage.from(BUCKET).upload(key, body(), { contentType: "image/png", cacheControl: "600", upsert: false });
      assert.equal(error, null);
      assert.equal(data.fullPath, `${BUCKET}/${key}`);
      assert.match(data.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(await stored(key), { type: "image/png", cacheControl: "max-age=600", bytes: PNG });
    });
  }

  test("without a contentType storage-js sends text/plain;charset=UTF-8, refused whole as the real server refuses it", async () => {
    const { error } = await storage.from(BUCKET).upload(uniqueKey("raw.png"), new Uint8Array(PNG));
    assert.equal(error.statusCode, "415");
    assert.equal(error.message, "mime type text/plain;charset=UTF-8 is not supported");
  });

  test("a refused type, bytes that are not their type's, a refused key, an invalid key: the form's answer", async () => {
    for (const [name, key, bytes, type, statusCode] of [
      ["another type", () => uniqueKey("doc.pdf"), Buffer.from("%PDF-1.7\n"), "application/pdf", "415"],
      ["not a PNG", () => uniqueKey("fake.png"), Buffer.from("%PDF-1.7 pretending"), "image/png", "415"],
      ["outside public/", () => `private/${Date.now()}_photo.png`, PNG, "image/png", "403"],
      ["no timestamp", () => "public/photo.png", PNG, "image/png", "403"],
      ["not ASCII", () => "public/café.png", PNG, "image/png", "400"],
    ]) {
      const [form, raw] = [await send("form", key(), bytes, type), await send("raw", key(), bytes, type)];
      assert.equal(raw.status, 400, name);
      assert.equal(raw.json.statusCode, statusCode, name);
      assert.deepEqual(raw, form, name);
    }
    assert.deepEqual(readdirSync(path.join(bucketDir, "..", ".tmp")), []);
  });

  test("a byte over 5 MiB, with or without a Content-Length, gets the form's 413 and leaves nothing behind", async () => {
    const tooLarge = { status: 400, json: { statusCode: "413", error: "Payload too large", message: "The object exceeded the maximum allowed size", code: "EntityTooLarge" } };
    for (const [over, stream] of [[Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length, 1), false], [Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length, 1), true], [Buffer.alloc(64 << 20), true]]) {
      const big = Buffer.concat([PNG, over]);
      const key = uniqueKey("huge.png");
      assert.deepEqual(await send("raw", key, big, "image/png", { stream }), tooLarge, `${big.length} bytes, stream: ${stream}`);
      assert.deepEqual(await send("form", uniqueKey("huge.png"), big, "image/png"), tooLarge);
      assert.equal(existsSync(path.join(bucketDir, `${key}~object`)), false);
    }
    assert.deepEqual(readdirSync(path.join(bucketDir, "..", ".tmp")), []);
    const exact = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length, 1)]);
    for (const stream of [false, true]) assert.equal((await send("raw", uniqueKey("limit.png"), exact, "image/png", { stream })).status, 200);
  });

  test("a key that exists, or an upsert, is refused as a form's, and the object stays as it was", async () => {
    const key = uniqueKey("same.png");
    assert.equal((await send("raw", key, PNG, "image/png")).status, 200);
    const other = Buffer.concat([PNG, Buffer.from("different")]);
    for (const upsert of [false, true]) {
      const [form, raw] = [await send("form", key, other, "image/png", { upsert }), await send("raw", key, other, "image/png", { upsert })];
      assert.equal(raw.json.statusCode, upsert ? "403" : "409");
      assert.deepEqual(raw, form, `upsert: ${upsert}`);
    }
    assert.deepEqual((await stored(key)).bytes, PNG);
    // storage-js words it as for a File.
    const { error } = await storage.from(BUCKET).upload(key, new Uint8Array(other), { contentType: "image/png" });
    assert.equal(error.statusCode, "409");
    assert.equal(error.message, "The resource already exists");
  });
});

describe("the deploy's storage check", () => {
  test("passes when the bucket exists and fails, saying why, when it does not", async () => {
    assert.equal(await bucketProblem(server.url, BUCKET), null);
    assert.match(await bucketProblem(server.url, "avatars"), /the bucket avatars does not exist in .*apply supabase\/migrations/);
    assert.match(await bucketProblem(`http://127.0.0.1:${await freePort()}`, BUCKET), /cannot be reached/);
  });
});
