// The site search, measured in Chromium against `site serve`: the size of the
// index as built, the bytes a visitor's first search loads (the dialog's code,
// Pagefind's script, WebAssembly, index and fragments, as transferred), and the
// time from the first keystroke to the first results shown (Pagefind's debounce
// included). Each run is a fresh browser context, so nothing is cached. Prints JSON.
//
//   SITE_BIN=target/release/site node bench/search.mjs [runs]

import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { hydrated, launchBrowser, openPage, startServer } from "../e2e/support.mjs";

function folderBytes(dir) {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = folderBytes(full);
      files += inner.files;
      bytes += inner.bytes;
    } else {
      files += 1;
      bytes += statSync(full).size;
    }
  }
  return { files, bytes };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureSearch(runs = 5, query = "Singapore") {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const index = folderBytes(path.join(server.out, "pagefind"));
    const loaded = [];
    const toResults = [];
    for (let i = 0; i < runs; i++) {
      const { page, context } = await openPage(browser, 1280);
      const responses = [];
      page.on("requestfinished", async (request) => {
        const p = new URL(request.url()).pathname;
        if (p.startsWith("/pagefind/") || p.includes("/SearchDialog-")) {
          const sizes = await request.sizes();
          responses.push(sizes.responseBodySize + sizes.responseHeadersSize);
        }
      });
      await page.goto(server.url + "/");
      await hydrated(page);
      await page.waitForSelector("header.site-header[data-ready]");
      await page.keyboard.press("Control+k");
      const field = page.getByRole("searchbox", { name: "Search the site" });
      await field.waitFor();
      const started = await page.evaluate(() => performance.now());
      await field.pressSequentially(query);
      await page.waitForSelector(".search-result");
      const shown = await page.evaluate(() => performance.now());
      await page.waitForLoadState("networkidle");
      toResults.push(shown - started);
      loaded.push(responses.reduce((a, b) => a + b, 0));
      await context.close();
    }
    return {
      query,
      index,
      firstSearchBytes: { median: median(loaded), min: Math.min(...loaded), max: Math.max(...loaded) },
      keystrokeToResultsMs: { median: median(toResults), min: Math.min(...toResults), max: Math.max(...toResults) },
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await measureSearch(Number(process.argv[2] ?? 5))));
}
