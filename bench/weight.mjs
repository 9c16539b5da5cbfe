// Page weight of every route: what Chromium loads before the page is interactive
// (every island hydrated, the visible ones scrolled to; nothing clicked), with the
// raw, gzip (-9) and brotli (q11) sizes of those files as built. Prints JSON.

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

export async function measureWeights() {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const sitemap = await (await fetch(server.url + "/sitemap.xml")).text();
    const routes = [...sitemap.matchAll(/<loc>https?:\/\/[^/]+(\/[^<]*)<\/loc>/g)].map((m) => m[1]);
    const results = [];
    for (const route of routes) {
      const { page, context } = await openPage(browser, 375);
      const requested = [];
      page.on("request", (r) => {
        const url = new URL(r.url());
        if (url.origin === server.url && !url.pathname.startsWith("/__site/")) requested.push({ path: url.pathname, type: r.resourceType() });
      });
      await page.goto(server.url + route);
      await hydrated(page);
      await page.waitForLoadState("networkidle");
      const weight = { route, html: zero(), css: zero(), js: zero(), requests: requested.length };
      for (const { path: p, type } of requested) {
        const kind = type === "document" ? "html" : type === "stylesheet" ? "css" : type === "script" ? "js" : null;
        if (!kind) continue;
        const file = type === "document" ? path.join(server.out, p === "/" ? "index.html" : `${p.slice(1)}/index.html`) : path.join(server.out, p);
        weight[kind] = add(weight[kind], sizes(readFileSync(file)));
      }
      results.push(weight);
      await context.close();
    }
    return results;
  } finally {
    await browser.close();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureWeights()));
}
