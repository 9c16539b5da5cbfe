// Page weight of every route, at 375 and 1280 px: what Chromium loads before the
// page is interactive (every island hydrated, the visible ones scrolled to;
// nothing clicked), by kind (HTML, CSS, JavaScript, the font), and the image
// bytes the width downloads once the page is read to the end (lazy pictures
// included, the srcset candidate the width picks), with the raw, gzip (-9) and
// brotli (q11) sizes of those files as built, and the bytes of the search (its
// dialog's code, Pagefind's script, WebAssembly and index) fetched in the whole
// visit, which must be none: they load when the search is opened. Prints JSON.

import { readFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { hydrated, launchBrowser, openPage, startServer } from "../e2e/support.mjs";

const sizes = (bytes) => ({
  raw: bytes.length,
  gzip: zlib.gzipSync(bytes, { level: 9 }).length,
  br: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
});
const add = (a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, br: a.br + b.br });
const zero = () => ({ raw: 0, gzip: 0, br: 0 });

/** What one visit at `width` requests: before it is interactive, and in all once read to the end. */
async function visit(browser, server, route, width) {
  const { page, context } = await openPage(browser, width);
  const requested = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    // The file's name, decoded: an Arabic category's address is percent-encoded.
    if (url.origin === server.url && !url.pathname.startsWith("/__site/")) requested.push({ path: decodeURIComponent(url.pathname), type: r.resourceType() });
  });
  await page.goto(server.url + route);
  await hydrated(page);
  await page.waitForLoadState("networkidle");
  const interactive = requested.length;
  // Read to the end, so every lazy picture the width shows is fetched.
  const height = await page.evaluate(() => document.body.scrollHeight);
  for (let y = 0; y < height; y += 400) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(30);
  }
  await page.waitForLoadState("networkidle");
  await context.close();
  return { requested, interactive };
}

const KIND = { document: "html", stylesheet: "css", script: "js", font: "font", image: "images" };

export async function measureWeights() {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const sitemap = await (await fetch(server.url + "/sitemap.xml")).text();
    const routes = [...sitemap.matchAll(/<loc>https?:\/\/[^/]+(\/[^<]*)<\/loc>/g)].map((m) => m[1]);
    const fileOf = (p, type) =>
      type === "document" ? path.join(server.out, p === "/" ? "index.html" : `${p.slice(1)}/index.html`) : path.join(server.out, p);
    const results = [];
    for (const route of routes) {
      const weight = { route };
      for (const width of [375, 1280]) {
        const { requested, interactive } = await visit(browser, server, route, width);
        const w = { html: zero(), css: zero(), js: zero(), font: zero(), images: zero(), search: zero(), requests: interactive };
        for (const [i, { path: p, type }] of requested.entries()) {
          if (p.startsWith("/pagefind/") || p.includes("/SearchDialog-")) {
            w.search = add(w.search, sizes(readFileSync(path.join(server.out, p))));
            continue;
          }
          const kind = KIND[type];
          // Scripts loaded later, on demand (the storage client), are not the page's weight.
          if (!kind || (kind !== "images" && i >= interactive)) continue;
          w[kind] = add(w[kind], sizes(readFileSync(fileOf(p, type))));
        }
        weight[width] = w;
      }
      results.push(weight);
    }
    return results;
  } finally {
    await browser.close();
    await server.stop();
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await measureWeights()));
}
