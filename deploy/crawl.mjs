// Crawls a served site the way a visitor and a search engine meet it, and reports
// every internal URL that does not answer 200 at once: a redirect (3xx) costs a
// round trip on every click, and anything else is broken. It starts from `/`, the
// sitemap (and, when it is an index, each sitemap it lists) and robots.txt, and
// follows every link, stylesheet, script, image, island script (`data-component`),
// canonical URL and og:url of every page. An address that is no page must answer
// 404 with the site's 404 page.
//
//   node deploy/crawl.mjs https://www.meridiandigital.com          (a live deployment)
//   node deploy/crawl.mjs http://127.0.0.1:8080 --base-url https://www.meridiandigital.com
//   node deploy/crawl.mjs https://<id>.<project>.pages.dev --dist dist
//
// `--base-url` treats links to the public address as internal (for a preview or a
// local server). `--dist` also fetches every file of the build that was published,
// at the address its host serves it from, so files no page links to (the search
// index's, say) are proven too. Exit status 1 when any URL fails.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Parser } from "htmlparser2";

/** Every URL a page refers to, as written, with where it was found. */
export function references(html) {
  const found = [];
  const add = (url, where) => {
    if (url && url.trim()) found.push({ url: url.trim(), where });
  };
  const srcset = (value, where) => {
    for (const part of (value ?? "").split(",")) add(part.trim().split(/\s+/)[0], where);
  };
  const parser = new Parser({
    onopentag(name, a) {
      if ((name === "a" || name === "area") && a.href !== undefined) add(a.href, `<${name} href>`);
      if (name === "link" && a.href !== undefined) add(a.href, `<link rel="${a.rel ?? ""}">`);
      if ((name === "script" || name === "img" || name === "source" || name === "iframe") && a.src) add(a.src, `<${name} src>`);
      if (a["data-component"]) add(a["data-component"], `<${name} data-component>`);
      if (name === "img" || name === "source") srcset(a.srcset, `<${name} srcset>`);
      if (name === "meta" && a.content && /^(og:url|og:image|twitter:image)$/.test(a.property ?? a.name ?? "")) {
        add(a.content, `<meta ${a.property ? "property" : "name"}="${a.property ?? a.name}">`);
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}

/**
 * The `<loc>`s of a sitemap, as written (unescaped), and whether it is a sitemap
 * index (whose `<loc>`s are sitemaps) rather than a list of pages.
 */
export function sitemapLocs(xml) {
  const unescape = (s) => s.trim().replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&apos;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  return {
    index: /<sitemapindex[\s>]/.test(xml),
    locs: [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => unescape(m[1])),
  };
}

/**
 * The page URLs of the sitemap at `url`: its own, or those of each sitemap it
 * lists when it is an index (`sitemap.xml` past 50,000 URLs). `read(url)` gives
 * (or resolves to) a sitemap's text.
 */
export async function sitemapPages(url, read) {
  const { index, locs } = sitemapLocs(await read(url));
  if (!index) return locs;
  const pages = [];
  for (const sitemap of locs) pages.push(...sitemapLocs(await read(sitemap)).locs);
  return pages;
}

/** The page URLs of a build's `sitemap.xml`, read from the folder `dist`. */
export function sitemapPagesIn(dist) {
  return sitemapPages("/sitemap.xml", (url) => readFileSync(path.join(dist, new URL(url, "http://localhost").pathname), "utf8"));
}

/** Files a host reads as its configuration and never serves. */
const HOST_FILES = new Set(["_headers", "_redirects", "_routes.json", "_nginx.conf", ".nojekyll"]);

/**
 * The address each file of a build is served at: `about/index.html` at `/about/`,
 * anything else at its path. Host files, precompressed twins (`x.br` beside `x`)
 * and each `404.html` (the answer to an unknown address, in its folder) have none.
 */
export function servedPaths(dist) {
  const files = [];
  const walk = (dir, prefix) => {
    for (const name of readdirSync(dir).sort()) {
      const rel = prefix + name;
      if (statSync(path.join(dir, name)).isDirectory()) walk(path.join(dir, name), `${rel}/`);
      else files.push(rel);
    }
  };
  walk(dist, "");
  const all = new Set(files);
  return files
    .filter((f) => !HOST_FILES.has(f) && f !== "404.html" && !f.endsWith("/404.html"))
    .filter((f) => !(/\.(br|gz)$/.test(f) && all.has(f.replace(/\.(br|gz)$/, ""))))
    .map((f) => (f === "index.html" || f.endsWith("/index.html") ? `/${f.slice(0, -"index.html".length)}` : `/${f}`));
}

/**
 * Waits until `origin` answers `/` with 200, for at most `timeoutMs`: a new
 * deployment's address can take a moment to answer. Never throws.
 */
async function ready(origin, { headers, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 500; ; wait = Math.min(wait * 2, 8000)) {
    try {
      const r = await fetch(new URL("/", origin), { redirect: "manual", headers });
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // Not answering yet.
    }
    if (Date.now() + wait > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * Crawls `origin`. Links to `baseUrl` (the public address) count as internal and
 * are fetched from `origin`; with `dist`, so is every file of that build. With
 * `readyTimeoutMs`, it first waits that long at most for `/` to answer 200.
 * Resolves to `{ pages, urls, failures, responses }`: `urls` internal URLs
 * fetched, `failures` `{ url, status, location, from }`.
 */
export async function crawl(origin, { baseUrl = origin, headers = {}, dist, readyTimeoutMs = 0 } = {}) {
  const local = new URL(origin);
  const bases = new Set([local.origin, new URL(baseUrl).origin]);
  const toLocal = (url) => {
    const u = new URL(url);
    return new URL(u.pathname + u.search, local).href;
  };
  const queue = [];
  const seen = new Map(); // URL → first place it was found
  const enqueue = (raw, base, from) => {
    let url;
    try {
      url = new URL(raw, base);
    } catch {
      return;
    }
    if (!/^https?:$/.test(url.protocol) || !bases.has(url.origin)) return;
    url.hash = "";
    const href = toLocal(url.href);
    if (!seen.has(href)) {
      seen.set(href, from);
      queue.push(href);
    }
  };

  enqueue("/", origin, "the start");
  enqueue("/robots.txt", origin, "the start");
  enqueue("/sitemap.xml", origin, "robots.txt");
  if (dist) for (const p of servedPaths(dist)) enqueue(p, origin, "a file of the build");

  const failures = [];
  const responses = new Map();
  // Pages by address: `/contact/?subject=…` is the contact page again.
  const pages = new Set();
  await ready(origin, { headers, timeoutMs: readyTimeoutMs });
  while (queue.length > 0) {
    const url = queue.shift();
    let response;
    let body;
    try {
      response = await fetch(url, { redirect: "manual", headers });
      body = await response.arrayBuffer();
    } catch (e) {
      failures.push({ url, status: `no answer (${e.cause?.code ?? e.message})`, location: null, from: seen.get(url) });
      continue;
    }
    responses.set(url, { status: response.status, headers: response.headers });
    if (response.status !== 200) {
      failures.push({ url, status: response.status, location: response.headers.get("location"), from: seen.get(url) });
      continue;
    }
    const type = response.headers.get("content-type") ?? "";
    const text = () => new TextDecoder().decode(body);
    const path = new URL(url).pathname;
    let xml;
    if (type.startsWith("text/html")) {
      pages.add(path);
      for (const { url: ref, where } of references(text())) enqueue(ref, url, `${where} on ${path}`);
    } else if ((/xml/.test(type) || path.endsWith(".xml")) && /<(urlset|sitemapindex)[\s>]/.test((xml = text()))) {
      // A sitemap, or a sitemap index: its sitemaps are crawled in turn.
      for (const loc of sitemapLocs(xml).locs) enqueue(loc, url, path.slice(1));
    } else if (path === "/robots.txt") {
      for (const m of text().matchAll(/^Sitemap:\s*(\S+)/gim)) enqueue(m[1], url, "robots.txt");
    }
  }

  // An address that is no page gets the site's 404 page, with status 404.
  const missing = new URL(`/no-such-page-${Date.now().toString(36)}/`, local).href;
  const title = dist ? readFileSync(path.join(dist, "404.html"), "utf8").match(/<title>[^<]*<\/title>/)?.[0] : undefined;
  const from = title ? `the 404 page, expected with ${title}` : "the 404 page";
  try {
    const response = await fetch(missing, { redirect: "manual", headers });
    const body = await response.text();
    responses.set(missing, { status: response.status, headers: response.headers });
    if (response.status !== 404 || (title && !body.includes(title))) {
      failures.push({ url: missing, status: response.status, location: response.headers.get("location"), from });
    }
  } catch (e) {
    failures.push({ url: missing, status: `no answer (${e.cause?.code ?? e.message})`, location: null, from });
  }
  return { pages: pages.size, urls: seen.size + 1, failures, responses, notFound: missing };
}

/** One line per failure. */
export function describe(failures) {
  return failures.map((f) => `${f.status}${f.location ? ` → ${f.location}` : ""}  ${f.url}  (from ${f.from})`);
}

if (import.meta.main) {
  const [origin, ...rest] = process.argv.slice(2);
  if (!origin) {
    console.error("usage: node deploy/crawl.mjs ORIGIN [--base-url URL] [--dist DIR]");
    process.exit(2);
  }
  const option = (name) => (rest.indexOf(name) >= 0 ? rest[rest.indexOf(name) + 1] : undefined);
  const baseUrl = option("--base-url") ?? origin;
  // A deployment that has just been published may take a moment to answer.
  const { pages, urls, failures } = await crawl(origin, { baseUrl, dist: option("--dist"), readyTimeoutMs: 120_000 });
  for (const line of describe(failures)) console.log(line);
  console.log(`Crawled ${pages} pages and ${urls} internal URLs of ${origin}: ${failures.length === 0 ? "every one answered as it should" : `${failures.length} did not`}`);
  process.exit(failures.length === 0 ? 0 : 1);
}
