// `make screenshots`: full-page screenshots of every route at 375 and 1280 px, for
// review, in e2e/screenshots/ (ignored by git).

import { mkdirSync } from "node:fs";
import path from "node:path";
import { hydrated, launchBrowser, openPage, startServer, WIDTHS } from "./support.mjs";

const dir = path.join(import.meta.dirname, "screenshots");
mkdirSync(dir, { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
try {
  const sitemap = await (await fetch(server.url + "/sitemap.xml")).text();
  const routes = [...sitemap.matchAll(/<loc>https?:\/\/[^/]+(\/[^<]*)<\/loc>/g)].map((m) => m[1]);
  for (const route of routes) {
    for (const width of WIDTHS) {
      const { page, context } = await openPage(browser, width);
      await page.goto(server.url + route);
      await hydrated(page);
      // Scroll through once so lazy images load before the capture.
      const height = await page.evaluate(() => document.body.scrollHeight);
      for (let y = 0; y < height; y += 600) await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForLoadState("networkidle");
      const name = route === "/" ? "home" : route.slice(1, -1).replaceAll("/", "-");
      await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
      await context.close();
    }
  }
  console.log(`${routes.length * WIDTHS.length} screenshots in ${path.relative(process.cwd(), dir)}/`);
} finally {
  await browser.close();
  await server.stop();
}
