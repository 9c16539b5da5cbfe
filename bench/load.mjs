// A bounded load test of `site serve` on loopback: static pages and assets and
// image uploads together, for a fixed time, then every uploaded object is read
// back and compared. Used by e2e/load.test.mjs and `make bench`.
//
//   node bench/load.mjs [seconds] [concurrency]

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StorageClient } from "@supabase/storage-js";

const PNG_HEAD = Buffer.from("89504e470d0a1a0a", "hex");

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Runs the load against `url` for `seconds` with `concurrency` workers; one in
 * `uploadEvery` requests is an upload of 10-300 KB. Returns the figures.
 */
export async function runLoad({ url, key = "", seconds = 5, concurrency = 16, uploadEvery = 4 }) {
  const storage = new StorageClient(`${url}/storage/v1`, { apikey: key, Authorization: `Bearer ${key}` });
  const bucket = storage.from("contact-attachments");
  const home = await (await fetch(url + "/")).text();
  const assets = [...home.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const pages = ["/", "/sitemap.xml", "/robots.txt", "/favicon.svg", "/no-such-page", ...assets];

  const latencies = { page: [], upload: [] };
  const errors = [];
  const uploaded = new Map();
  let requests = 0;
  let bytesIn = 0;
  let n = 0;
  const deadline = Date.now() + seconds * 1000;

  async function one(i) {
    const started = performance.now();
    if (i % uploadEvery === 0) {
      const size = 10_000 + ((i * 7919) % 290_000);
      const body = Buffer.concat([PNG_HEAD, Buffer.alloc(size, i % 251)]);
      body.writeUInt32BE(i, 8);
      // The key form the production policy allows: 13 digits, `_`, a safe name.
      const key = `public/${String(1_700_000_000_000 + i)}_load_${process.pid}.png`;
      const { error } = await bucket.upload(key, new File([body], "load.png", { type: "image/png" }), {
        cacheControl: "3600",
        upsert: false,
      });
      if (error) errors.push(`upload ${key}: ${error.statusCode} ${error.message}`);
      else uploaded.set(key, createHash("sha256").update(body).digest("hex"));
      latencies.upload.push(performance.now() - started);
    } else {
      const p = pages[i % pages.length];
      const response = await fetch(url + p, { headers: { "Accept-Encoding": "br, gzip" } });
      const body = await response.arrayBuffer();
      bytesIn += body.byteLength;
      const expected = p === "/no-such-page" ? 404 : 200;
      if (response.status !== expected) errors.push(`GET ${p}: ${response.status}`);
      latencies.page.push(performance.now() - started);
    }
    requests++;
  }

  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        try {
          await one(n++);
        } catch (e) {
          errors.push(String(e));
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;

  // Every object that was accepted must read back whole.
  let lost = 0;
  let corrupted = 0;
  for (const [key, hash] of uploaded) {
    const response = await fetch(bucket.getPublicUrl(key).data.publicUrl);
    if (response.status !== 200) {
      lost++;
      continue;
    }
    const got = createHash("sha256").update(Buffer.from(await response.arrayBuffer())).digest("hex");
    if (got !== hash) corrupted++;
  }

  for (const list of Object.values(latencies)) list.sort((a, b) => a - b);
  return {
    seconds: Number(elapsed.toFixed(2)),
    concurrency,
    requests,
    requestsPerSecond: Math.round(requests / elapsed),
    pages: latencies.page.length,
    uploads: latencies.upload.length,
    accepted: uploaded.size,
    pageP50ms: Number(percentile(latencies.page, 50).toFixed(1)),
    pageP95ms: Number(percentile(latencies.page, 95).toFixed(1)),
    uploadP50ms: Number(percentile(latencies.upload, 50).toFixed(1)),
    uploadP95ms: Number(percentile(latencies.upload, 95).toFixed(1)),
    errors,
    lost,
    corrupted,
  };
}

if (import.meta.main) {
  const { copySite, startServer } = await import("../e2e/support.mjs");
  const seconds = Number(process.argv[2] ?? 20);
  const concurrency = Number(process.argv[3] ?? 32);
  const site = copySite();
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, 'anon_key: "bench-key"'));
  const server = await startServer({ siteRoot: site });
  try {
    const result = await runLoad({ url: server.url, key: "bench-key", seconds, concurrency });
    console.log(JSON.stringify({ ...result, errors: result.errors.slice(0, 10), errorCount: result.errors.length }, null, 2));
  } finally {
    await server.stop();
  }
}
