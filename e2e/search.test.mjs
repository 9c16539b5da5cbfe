// The site search in Chromium: nothing of it loads until it is opened, then the
// dialog finds pages as the visitor types, by mouse or keyboard alone, at phone
// widths from the menu too; without JavaScript the button leads to the sitemap.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { axeViolations, copySite, hydrated, launchBrowser, liveEvents, openPage, reusedPage, startServer } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Every request of the search: its dialog's code and Pagefind's files. */
function searchRequests(page) {
  const seen = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/pagefind/") || /SearchDialog/.test(path)) seen.push(path);
  });
  return seen;
}

async function ready(page, path = "/") {
  await page.goto(server.url + path);
  await hydrated(page);
  await page.waitForSelector("header.site-header[data-ready]");
}

/** The titles and addresses of the results shown for `query`. */
async function resultsFor(page, query) {
  const field = page.getByRole("searchbox", { name: "Search the site" });
  await field.fill(query);
  await page.waitForFunction((q) => document.querySelector(".search-dialog__summary")?.textContent.includes(`“${q}”`), query);
  return page.$$eval(".search-result", (links) => links.map((a) => ({ href: a.getAttribute("href"), title: a.querySelector(".search-result__title").textContent })));
}

describe("search", () => {
  test("nothing of the search loads before the button is pressed", async () => {
    const { page, context, problems } = await openPage(browser, 1280);
    const requests = searchRequests(page);
    await ready(page, "/services/");
    await page.mouse.wheel(0, 3000);
    await page.waitForTimeout(300);
    assert.deepEqual(requests, []);
    await page.getByRole("button", { name: "Search" }).first().click();
    await page.getByRole("dialog", { name: "Search the site" }).waitFor();
    await resultsFor(page, "cloud");
    assert.ok(requests.some((p) => p === "/pagefind/pagefind.js"), requests.join(" "));
    assert.ok(requests.some((p) => /SearchDialog/.test(p)), requests.join(" "));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("“Singapore” finds the contact page, and the word is marked in its excerpt", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    await page.getByRole("button", { name: "Search" }).first().click();
    const results = await resultsFor(page, "Singapore");
    assert.ok(results.some((r) => r.href === "/contact/"), JSON.stringify(results));
    const marked = await page.$$eval(".search-result[href='/contact/'] mark", (m) => m.map((e) => e.textContent));
    assert.ok(marked.some((m) => m.toLowerCase() === "singapore"), JSON.stringify(marked));
    assert.deepEqual(problems, []);
  });

  test("“cybersecurity” finds the cybersecurity service first", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    await page.keyboard.press("Control+k");
    const results = await resultsFor(page, "cybersecurity");
    assert.equal(results[0]?.href, "/services/cybersecurity/", JSON.stringify(results));
    assert.deepEqual(problems, []);
  });

  test("an Insights article is found by a word of its body alone", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    // A word of the body of one article, in no title, description or other page.
    await page.keyboard.press("/");
    const results = await resultsFor(page, "chatbot");
    assert.deepEqual(results.map((r) => r.href), ["/insights/ai-ready-enterprise/"]);
    assert.deepEqual(problems, []);
  });

  test("only the main content is indexed: a word of the footer alone finds nothing", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    await page.keyboard.press("Control+k");
    // "All rights reserved" is the footer's, on every page, and in no page's content.
    assert.deepEqual(await resultsFor(page, "reserved"), []);
    assert.equal(await page.locator(".search-dialog__summary").textContent(), "No pages found for “reserved”");
    assert.deepEqual(problems, []);
  });

  test("site serve indexes the site again after a saved edit", async () => {
    const copy = await startServer({ siteRoot: copySite() });
    const { page, context, problems } = await openPage(browser, 1280);
    const live = await liveEvents(copy.url);
    try {
      // The first search after the rebuild's reload indexes the pages it wrote.
      const reloaded = live.next();
      appendFileSync(path.join(copy.root, "content/pages/accessibility.md"), "\nOur new Quokkaville studio opens in spring.\n");
      assert.equal(await reloaded, "reload");
      await page.goto(copy.url + "/");
      const urls = await page.evaluate(async () => {
        const pagefind = await import("/pagefind/pagefind.js");
        const search = await pagefind.search("quokkaville");
        return Promise.all(search.results.map(async (r) => (await r.data()).url));
      });
      assert.deepEqual(urls, ["/accessibility/"]);
      assert.deepEqual(problems, []);
    } finally {
      live.close();
      await context.close();
      await copy.stop();
    }
  });

  test("the keyboard alone goes from opening the search to the page found", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    await page.keyboard.press("/");
    const field = page.getByRole("searchbox", { name: "Search the site" });
    await field.waitFor();
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, "the field has focus");
    await page.keyboard.type("cybersecurity");
    await page.waitForSelector(".search-result");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute("href")), "/services/cybersecurity/");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, "up from the first result is the field");
    await page.keyboard.press("ArrowDown");
    await Promise.all([page.waitForURL(server.url + "/services/cybersecurity/"), page.keyboard.press("Enter")]);
    assert.deepEqual(problems, []);
  });

  test("Escape closes the dialog and gives focus back to the button", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    const button = page.locator(".site-header__search");
    await button.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    // Focus comes back as the dialog unmounts, which a busy machine may show a
    // frame later.
    await page.waitForFunction(() => document.activeElement?.matches(".site-header__search"), null, { timeout: 2000 }).catch(() => {});
    assert.equal(await button.evaluate((el) => el === document.activeElement), true);
    assert.deepEqual(problems, []);
  });

  for (const width of [320, 375, 768, 1280]) {
    test(`at ${width} px the open dialog has no accessibility violation and fits the screen`, async () => {
      const { page, problems } = await reusedPage(browser, width);
      await ready(page);
      await page.keyboard.press("Control+k");
      await resultsFor(page, "data");
      assert.deepEqual(await axeViolations(page), []);
      const box = await page.locator(".search-dialog").boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= width, JSON.stringify(box));
      assert.deepEqual(problems, []);
    });
  }

  test("on a phone the menu's Search opens the dialog", async () => {
    const { page, problems } = await reusedPage(browser, 375);
    await ready(page);
    await page.locator(".site-header__toggle").click();
    await page.locator(".site-header__panel-search").click();
    const results = await resultsFor(page, "Singapore");
    assert.ok(results.some((r) => r.href === "/contact/"));
    assert.equal(await page.locator(".site-header__menu").evaluate((d) => d.open), false, "the menu closed");
    assert.deepEqual(problems, []);
  });

  // What assistive technology announces, read from Chromium's accessibility tree:
  // before hydration a link to the sitemap, once hydrated a button that opens a
  // dialog and says whether it is open.
  for (const route of ["/", "/about/", "/services/", "/industries/", "/insights/", "/contact/"]) {
    test(`on ${route} the search control is a link before hydration and a dialog button after`, async () => {
      const roles = async (page) => {
        const tree = await page.locator("header.site-header").ariaSnapshot();
        return tree.split("\n").filter((l) => /search/i.test(l)).map((l) => l.trim());
      };
      const plain = await reusedPage(browser, 375, { javaScript: false });
      await plain.page.goto(server.url + route);
      await plain.page.locator(".site-header__toggle").click();
      assert.deepEqual(await roles(plain.page), ['- link "Search":', '- link "Search":']);
      assert.deepEqual(await plain.page.getByRole("link", { name: "Search" }).evaluateAll((as) => as.map((a) => a.getAttribute("href"))), ["/sitemap/", "/sitemap/"]);

      const { page, problems } = await reusedPage(browser, 375);
      await ready(page, route);
      await page.locator(".site-header__toggle").click();
      assert.deepEqual(await roles(page), ['- button "Search"', '- button "Search"']);
      assert.equal(await page.getByRole("link", { name: "Search" }).count(), 0);
      const buttons = page.getByRole("button", { name: "Search" });
      assert.equal(await buttons.count(), 2);
      for (const b of await buttons.all()) {
        assert.equal(await b.getAttribute("aria-haspopup"), "dialog");
        assert.equal(await b.getAttribute("aria-expanded"), "false");
        assert.equal(await b.getAttribute("type"), "button");
      }
      await buttons.last().click();
      await page.getByRole("dialog", { name: "Search the site" }).waitFor();
      assert.equal(await page.locator(".site-header__search").getAttribute("aria-expanded"), "true");
      assert.deepEqual(problems, []);
    });
  }

  test("the dialog has one way to clear the field and one to close, each its own look", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await ready(page);
    await page.keyboard.press("Control+k");
    await resultsFor(page, "cloud");
    const field = page.getByRole("searchbox", { name: "Search the site" });
    // The browser's own clear cross (at the field's right end) is not there.
    const box = await field.boundingBox();
    const padding = await field.evaluate((el) => parseFloat(getComputedStyle(el).paddingRight));
    await page.mouse.click(box.x + box.width - padding - 7, box.y + box.height / 2);
    assert.equal(await field.inputValue(), "cloud", "nothing at the field's end clears it");
    const buttons = await page.locator(".search-dialog__bar").getByRole("button").evaluateAll((bs) =>
      bs.map((b) => ({ name: b.getAttribute("aria-label") ?? b.textContent.trim(), text: b.textContent.trim() })),
    );
    assert.deepEqual(buttons, [{ name: "Clear", text: "Clear" }, { name: "Close search", text: "" }]);
    await page.getByRole("button", { name: "Clear" }).click();
    assert.equal(await field.inputValue(), "");
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, "focus stays in the field");
    assert.equal(await page.getByRole("button", { name: "Clear" }).count(), 0, "nothing to clear");
    assert.deepEqual(problems, []);
  });

  test("without JavaScript the search button leads to the sitemap page", async () => {
    const { page } = await reusedPage(browser, 1280, { javaScript: false });
    await page.goto(server.url + "/");
    await Promise.all([page.waitForURL(server.url + "/sitemap/"), page.locator(".site-header__search").click()]);
  });
});
