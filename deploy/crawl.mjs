// Crawls a served site the way a visitor and a search engine meet it, and reports
// every internal URL that does not answer 200 at once: a redirect (3xx) costs a
// round trip on every click, and anything else is broken. It starts from `/`, the
// sitemap and robots.txt, and follows every link, stylesheet, script, image,
// canonical URL and og:url of every page.
//
//   node deploy/crawl.mjs https://www.example.com            (a live deployment)
//   node deploy/crawl.mjs http://127.0.0.1:8080 --base-url https://www.example.com
//
// The second form crawls a local server while treating links to the public
// address as internal. Exit status 1 when any URL fails.

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
 * Crawls `origin`. Links to `baseUrl` (the public address) count as internal and
 * are fetched from `origin`. Resolves to `{ pages, urls, failures, responses }`:
 * `urls` internal URLs fetched, `failures` `{ url, status, location, from }`.
 */
export async function crawl(origin, { baseUrl = origin, headers = {} } = {}) {
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

  const failures = [];
  const responses = new Map();
  let pages = 0;
  while (queue.length > 0) {
    const url = queue.shift();
    const response = await fetch(url, { redirect: "manual", headers });
    const body = await response.arrayBuffer();
    responses.set(url, { status: response.status, headers: response.headers });
    if (response.status !== 200) {
      failures.push({ url, status: response.status, location: response.headers.get("location"), from: seen.get(url) });
      continue;
    }
    const type = response.headers.get("content-type") ?? "";
    const text = () => new TextDecoder().decode(body);
    const path = new URL(url).pathname;
    if (type.startsWith("text/html")) {
      pages += 1;
      for (const { url: ref, where } of references(text())) enqueue(ref, url, `${where} on ${path}`);
    } else if (path === "/sitemap.xml") {
      for (const m of text().matchAll(/<loc>([^<]+)<\/loc>/g)) enqueue(m[1].replaceAll("&amp;", "&"), url, "sitemap.xml");
    } else if (path === "/robots.txt") {
      for (const m of text().matchAll(/^Sitemap:\s*(\S+)/gim)) enqueue(m[1], url, "robots.txt");
    }
  }
  return { pages, urls: seen.size, failures, responses };
}

/** One line per failure. */
export function describe(failures) {
  return failures.map((f) => `${f.status}${f.location ? ` → ${f.location}` : ""}  ${f.url}  (from ${f.from})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [origin, ...rest] = process.argv.slice(2);
  if (!origin) {
    console.error("usage: node deploy/crawl.mjs ORIGIN [--base-url URL]");
    process.exit(2);
  }
  const i = rest.indexOf("--base-url");
  const baseUrl = i >= 0 ? rest[i + 1] : origin;
  const { pages, urls, failures } = await crawl(origin, { baseUrl });
  for (const line of describe(failures)) console.log(line);
  console.log(`Crawled ${pages} pages and ${urls} internal URLs of ${origin}: ${failures.length === 0 ? "every one answered 200" : `${failures.length} did not answer 200`}`);
  process.exit(failures.length === 0 ? 0 : 1);
}
