// The crawl follows a sitemap index: past 50,000 URLs `site build` writes
// `sitemap.xml` as an index of `sitemap-1.xml`, `sitemap-2.xml`, …, and a page
// that only a numbered sitemap names must still be crawled. The site is served
// from a folder over HTTP on loopback, as a host serves a build.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { crawl, describe, sitemapPagesIn } from "../crawl.mjs";

const BASE_URL = "https://www.example.com";
let dist;
let server;
let origin;

const urlset = (routes) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${routes
    .map((r) => `  <url><loc>${BASE_URL}${r}</loc></url>\n`)
    .join("")}</urlset>\n`;

before(async () => {
  dist = mkdtempSync(path.join(tmpdir(), "crawl-"));
  const write = (rel, text) => {
    mkdirSync(path.dirname(path.join(dist, rel)), { recursive: true });
    writeFileSync(path.join(dist, rel), text);
  };
  const page = (title) => `<!doctype html><title>${title}</title><link rel="canonical" href="">`;
  write("index.html", `${page("Home")}<a href="/a/">A</a>`);
  write("a/index.html", page("A"));
  // Linked from nowhere: only the second sitemap names them.
  write("b/index.html", page("B"));
  write("c/index.html", page("C"));
  write("404.html", page("Not found"));
  write("robots.txt", `User-agent: *\nAllow: /\n\nSitemap: ${BASE_URL}/sitemap.xml\n`);
  write(
    "sitemap.xml",
    `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
      `  <sitemap><loc>${BASE_URL}/sitemap-1.xml</loc></sitemap>\n  <sitemap><loc>${BASE_URL}/sitemap-2.xml</loc></sitemap>\n</sitemapindex>\n`,
  );
  write("sitemap-1.xml", urlset(["/", "/a/"]));
  write("sitemap-2.xml", urlset(["/b/", "/c/"]));
  server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    let file = path.join(dist, pathname);
    if (pathname.endsWith("/")) file = path.join(file, "index.html");
    let status = 200;
    try {
      statSync(file);
    } catch {
      [file, status] = [path.join(dist, "404.html"), 404];
    }
    const type = file.endsWith(".html") ? "text/html; charset=utf-8" : file.endsWith(".xml") ? "application/xml" : "text/plain; charset=utf-8";
    res.writeHead(status, { "content-type": type });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server?.close();
  if (dist) rmSync(dist, { recursive: true, force: true });
});

test("the crawl reaches the pages that only a sitemap of the index names", async () => {
  const result = await crawl(origin, { baseUrl: BASE_URL });
  assert.deepEqual(describe(result.failures), []);
  for (const p of ["/sitemap-1.xml", "/sitemap-2.xml", "/b/", "/c/"]) assert.ok(result.responses.has(origin + p), `${p} was fetched`);
  assert.equal(result.pages, 4);
});

test("a build's sitemap pages are read through its index", async () => {
  assert.deepEqual(await sitemapPagesIn(dist), ["/", "/a/", "/b/", "/c/"].map((r) => BASE_URL + r));
});
