// The editors' guide's pictures of the editor at /admin/, at 1280 px, on a copy
// of the site under `site serve`: a page of blocks (Home) and an article.
// `make screenshots` writes them to docs/images/.

import path from "node:path";
import { copySite, HOME_ENTRY, launchBrowser, openPage, signInLocally, startServer } from "./support.mjs";

const out = path.join(import.meta.dirname, "..", "docs", "images");
const server = await startServer({ siteRoot: copySite() });
const browser = await launchBrowser();
try {
  const { page, context } = await openPage(browser, 1280);
  await page.goto(`${server.url}/admin/`);
  await signInLocally(page, page.getByText(HOME_ENTRY));
  const shot = async (name, entry, ready) => {
    await page.goto(`${server.url}/admin/#/collections/${entry}`);
    await ready.waitFor();
    // The preview shows the page as served once it has loaded.
    await page.waitForFunction(() => [...document.querySelectorAll("iframe")].length > 0);
    await page.waitForTimeout(2500);
    await page.screenshot({ path: path.join(out, name) });
    console.log(`wrote docs/images/${name}`);
  };
  await shot("editor-page.png", "pages/entries/index", page.getByRole("textbox", { name: "Heading" }).first());
  await shot("editor-article.png", "insights/entries/ai-ready-enterprise", page.getByRole("textbox", { name: "Author" }));
  await context.close();
} finally {
  await browser.close();
  await server.stop();
}
