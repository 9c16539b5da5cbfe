// `make screenshots`: full-page screenshots of every route at 320, 375, 768 and
// 1280 px in e2e/screenshots/ (ignored by git), and for each width one contact
// sheet, contact-sheet-<width>.png: every route side by side, to review at a glance.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sitemapPages } from "../deploy/crawl.mjs";
import { hydrated, launchBrowser, openPage, startServer, WIDTHS } from "./support.mjs";

const dir = path.join(import.meta.dirname, "screenshots");
mkdirSync(dir, { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
const escape = (s) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
try {
  const read = async (url) => (await fetch(server.url + new URL(url, server.url).pathname)).text();
  const routes = (await sitemapPages("/sitemap.xml", read)).map((url) => new URL(url).pathname);
  const sheets = [];
  for (const width of WIDTHS) {
    const shots = [];
    for (const route of routes) {
      const { page, context } = await openPage(browser, width);
      await page.goto(server.url + route);
      await hydrated(page);
      // Scroll through once so lazy images load before the capture.
      const height = await page.evaluate(() => document.body.scrollHeight);
      for (let y = 0; y < height; y += 600) await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForLoadState("networkidle");
      const name = route === "/" ? "home" : route.slice(1, -1).replaceAll("/", "-");
      const file = path.join(dir, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      shots.push({ route, file });
      await context.close();
    }
    sheets.push(await contactSheet(width, shots));
  }
  console.log(`${routes.length * WIDTHS.length} screenshots in ${path.relative(process.cwd(), dir)}/; contact sheets:`);
  for (const sheet of sheets) console.log(`  ${path.relative(process.cwd(), sheet)}`);
} finally {
  await browser.close();
  await server.stop();
}

/** Every route's screenshot at `width`, scaled down side by side in one PNG. */
async function contactSheet(width, shots) {
  const thumb = width < 768 ? 180 : 300;
  const columns = width < 768 ? 11 : 7;
  const html = `<!doctype html><meta charset="utf-8"><style>
    body { margin: 0; padding: 16px; background: #e9eef5; font: 13px/1.3 sans-serif; color: #14213d; }
    h1 { margin: 0 0 12px; font-size: 18px; }
    main { display: grid; grid-template-columns: repeat(${columns}, ${thumb}px); gap: 16px; align-items: start; }
    figure { margin: 0; }
    figcaption { margin-bottom: 4px; font-weight: 700; overflow-wrap: anywhere; }
    img { display: block; width: ${thumb}px; box-shadow: 0 1px 4px rgb(0 0 0 / 0.25); }
  </style><h1>Every route at ${width} px</h1><main>${shots
    .map((s) => `<figure><figcaption>${escape(s.route)}</figcaption><img src="${pathToFileURL(s.file)}"></figure>`)
    .join("")}</main>`;
  const htmlFile = path.join(dir, `contact-sheet-${width}.html`);
  writeFileSync(htmlFile, html);
  const { page, context } = await openPage(browser, 16 * 2 + columns * thumb + (columns - 1) * 16);
  await page.goto(pathToFileURL(htmlFile).href);
  await page.waitForLoadState("load");
  const out = path.join(dir, `contact-sheet-${width}.png`);
  await page.screenshot({ path: out, fullPage: true });
  await context.close();
  return out;
}
