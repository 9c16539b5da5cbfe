// The Home page in Chromium: server HTML, the Header island hydrated without a
// mismatch, its scroll and menu behaviour, and the page read with JavaScript off.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { axeViolations, hydrated, launchBrowser, openPage, reusedPage, startServer, WIDTHS } from "./support.mjs";

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

for (const width of WIDTHS) {
  describe(`Home at ${width} px`, () => {
    test("hydrates the header with no console error, hydration warning or accessibility violation", async () => {
      const { page, context, problems } = await openPage(browser, width);
      const scripts = [];
      page.on("request", (r) => {
        if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
      });
      await page.goto(server.url + "/");
      await hydrated(page);
      await page.waitForSelector("header.site-header[data-ready]");
      assert.deepEqual(problems, []);
      assert.deepEqual(await axeViolations(page), []);
      // Only the runtime, the Header island and the chunks they import load.
      const islands = scripts.filter((s) => s.startsWith("/assets/islands/")).map((s) => s.replace(/-\w+\.js$/, ""));
      assert.deepEqual(islands.sort(), ["/assets/islands/Header", "/assets/islands/runtime"]);
      await context.close();
    });

    test("the header is transparent at the top and solid once scrolled more than 10 px", async () => {
      const { page, problems } = await reusedPage(browser, width);
      await page.goto(server.url + "/");
      await hydrated(page);
      const header = page.locator("header.site-header");
      const solid = () => header.evaluate((el) => el.hasAttribute("data-solid"));
      const background = () => header.evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(await solid(), false);
      assert.equal(await background(), "rgba(0, 0, 0, 0)");
      await page.evaluate(() => window.scrollTo(0, 10));
      await page.waitForFunction(() => window.scrollY === 10);
      await page.waitForTimeout(50);
      assert.equal(await solid(), false, "10 px is not yet past the threshold");
      await page.evaluate(() => window.scrollTo(0, 11));
      await page.waitForFunction(() => document.querySelector("header.site-header").hasAttribute("data-solid"));
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForFunction(() => !document.querySelector("header.site-header").hasAttribute("data-solid"));
      assert.deepEqual(problems, []);
    });

    test("the Home link is the active one", async () => {
      const { page } = await reusedPage(browser, width);
      await page.goto(server.url + "/");
      // In the bar and in the phone menu alike.
      assert.deepEqual(await page.locator('.site-header__nav a[aria-current="page"]').allTextContents(), ["Home"]);
      assert.deepEqual(await page.locator('#site-menu a[aria-current="page"]').allTextContents(), ["Home"]);
    });

    test("reads completely with JavaScript off", async () => {
      const { page, problems } = await reusedPage(browser, width, { javaScript: false });
      await page.goto(server.url + "/");
      assert.match(await page.locator("h1").innerText(), /Reinvent your enterprise/);
      assert.equal(await page.locator(".hero .button").count(), 2);
      assert.deepEqual(await page.locator(".hero .button").allTextContents(), ["Explore Our Services", "Contact Us"]);
      assert.equal(await page.locator("#digital-core-capabilities .card").count(), 6);
      // Every navigation link is reachable without the menu script: in the bar on
      // wide screens, in the <details> menu (and with Contact Us) on small ones.
      const phone = width < 1024;
      assert.equal(await page.locator(".site-header__toggle").isVisible(), phone);
      if (phone) await page.locator(".site-header__toggle").click();
      const links = page.locator(phone ? "#site-menu a" : ".site-header__nav a");
      assert.deepEqual(await links.allInnerTexts(), [
        "Home", "About Us", "Services", "Industries", "Insights", "Careers", "Contact",
        ...(phone ? ["Search", "Contact Us"] : []),
      ]);
      for (const link of await links.all()) {
        assert.equal(await link.isVisible(), true, await link.innerText());
        const box = await link.boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= width, `${await link.innerText()} is on screen`);
      }
      assert.deepEqual(problems, []);
    });
  });
}

/** Whether the phone menu is open, once the page has settled. */
const expanded = async (page) => {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  return page.locator(".site-header__menu").evaluate((el) => el.open);
};

describe("the mobile menu at 375 px", () => {
  test("opens from the toggle and closes when a link is chosen", async () => {
    const { page, problems } = await reusedPage(browser, 375);
    await page.goto(server.url + "/");
    await hydrated(page);
    const toggle = page.locator(".site-header__toggle");
    const nav = page.locator("#site-menu");
    assert.equal(await toggle.isVisible(), true);
    assert.equal(await nav.isVisible(), false);
    assert.equal(await expanded(page), false);
    assert.equal(await toggle.getAttribute("aria-controls"), "site-menu");
    await toggle.click();
    assert.equal(await expanded(page), true);
    assert.equal(await nav.isVisible(), true);
    assert.equal(await nav.getByRole("link", { name: "Contact Us" }).isVisible(), true);
    // Stay on the page so the menu's own reaction to the choice can be seen.
    await page.evaluate(() =>
      document.addEventListener("click", (e) => e.target.closest("a") && e.preventDefault(), { capture: true }),
    );
    await nav.getByRole("link", { name: "Services" }).click();
    assert.equal(await expanded(page), false);
    assert.equal(await nav.isVisible(), false);
    assert.deepEqual(problems, []);
  });

  test("Escape closes the menu and returns focus to the toggle", async () => {
    const { page } = await reusedPage(browser, 375);
    await page.goto(server.url + "/");
    await hydrated(page);
    const toggle = page.locator(".site-header__toggle");
    await toggle.click();
    await page.keyboard.press("Escape");
    assert.equal(await expanded(page), false);
    assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
  });
});

describe("the mobile menu by keyboard alone", () => {
  test("Tab reaches the toggle, Enter opens the menu, Tab walks its links", async () => {
    const { page } = await reusedPage(browser, 375);
    await page.goto(server.url + "/");
    await hydrated(page);
    const focused = () => page.evaluate(() => document.activeElement.textContent.trim() || document.activeElement.getAttribute("aria-label"));
    await page.keyboard.press("Tab"); // skip link
    await page.keyboard.press("Tab"); // brand
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "Search");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "Menu");
    await page.keyboard.press("Enter");
    assert.equal(await expanded(page), true);
    const seen = [];
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press("Tab");
      seen.push(await focused());
    }
    assert.deepEqual(seen, ["Home", "About Us", "Services", "Industries", "Insights", "Careers", "Contact", "Search", "Contact Us"]);
    await page.keyboard.press("Escape");
    assert.equal(await focused(), "Menu");
    assert.equal(await page.locator("#site-menu").isVisible(), false);
  });
});

describe("at 1280 px", () => {
  test("the navigation is shown in the bar and there is no menu toggle", async () => {
    const { page } = await reusedPage(browser, 1280);
    await page.goto(server.url + "/");
    await hydrated(page);
    assert.equal(await page.locator(".site-header__toggle").isVisible(), false);
    assert.equal(await page.locator(".site-header__nav").isVisible(), true);
    assert.equal(await page.locator(".site-header__cta").isVisible(), true);
  });
});

describe("a missing route", () => {
  test("gets the error page with status 404", async () => {
    const response = await fetch(server.url + "/no-such-page");
    assert.equal(response.status, 404);
    const html = await response.text();
    assert.match(html, /Unexpected Application Error!/);
    assert.match(html, /404 Not Found/);
  });
});
