// The pages of collections as a visitor meets them in Chromium, at 375 and 1280
// px: a listing and its numbered pages, a category's page, the events to come
// and the archive, an event with its calendar file, the jobs filtered by office
// and team without JavaScript, and a posting whose Apply leads to its own
// application form. Each page type is also kept as a screenshot in
// e2e/screenshots/ (ignored by git). Hydration, overflow and axe of every page
// are checked by routes.test.mjs (fully on the pages its cover chooses).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { hydrated, launchBrowser, ON_BUILD_DAY, reusedPage, startServer } from "./support.mjs";

let server;
let browser;
const shots = path.join(import.meta.dirname, "screenshots");

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens `route` at `width`, hydrated, and keeps its screenshot as `name`. */
async function visit(width, route, name, { javaScript = true } = {}) {
  // A posting's form closes by the page's clock: the build's day.
  const opened = await reusedPage(browser, width, { javaScript, at: ON_BUILD_DAY });
  await opened.page.goto(server.url + route);
  if (javaScript) await hydrated(opened.page);
  await opened.page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  return opened;
}

const titles = (page, selector) => page.locator(`${selector} .card__title`).allInnerTexts();

for (const width of [375, 1280]) {
  describe(`collections at ${width} px`, () => {
    test("a news item's category leads to its category's page, with its own feed", async () => {
      const { page, problems } = await visit(width, "/news/", "listing");
      const cards = await titles(page, "#all-news");
      assert.ok(cards.length >= 5, `${cards.length} news items`);
      const category = page.locator("#all-news .card__label a").first();
      const name = (await category.textContent()).trim();
      await Promise.all([page.waitForURL(/\/news\/category\/[a-z0-9-]+\/$/), category.click()]);
      await hydrated(page);
      assert.equal((await page.locator("h1").innerText()).trim(), `${name} · News`);
      const feed = await page.locator('link[rel="alternate"][type="application/atom+xml"]').getAttribute("href");
      assert.equal(feed, new URL(page.url()).pathname + "feed.xml");
      const atom = await (await fetch(server.url + feed)).text();
      assert.match(atom, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"/);
      await page.screenshot({ path: path.join(shots, `category-${width}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    });

    test("events to come are listed soonest first, and past ones are in the archive", async () => {
      const { page, problems } = await visit(width, "/events/", "events");
      const times = await page.locator("#upcoming .card time").evaluateAll((ts) => ts.filter((_, i) => i % 2 === 0).map((t) => t.getAttribute("datetime")));
      assert.ok(times.length >= 3, `${times.length} upcoming events`);
      assert.deepEqual([...times].sort((a, b) => Date.parse(a) - Date.parse(b)), times, "soonest first");
      assert.ok(!(await titles(page, "#upcoming")).includes("Banking AI Forum Hyderabad 2026"), "a past event is not upcoming");
      await Promise.all([page.waitForURL(/\/events\/archive\/$/), page.getByRole("link", { name: "Past events" }).click()]);
      assert.deepEqual(await page.locator("main .card__title").allInnerTexts(), ["Banking AI Forum Hyderabad 2026"]);
      await page.screenshot({ path: path.join(shots, `archive-${width}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    });

    test("an event offers its calendar file and carries Event data", async () => {
      const route = "/events/ai-in-production-executive-briefing-london-2027/";
      const { page, problems } = await visit(width, route, "event");
      const data = JSON.parse(await page.locator('script[type="application/ld+json"]').innerText());
      assert.equal(data["@type"], "Event");
      assert.ok(await page.getByRole("link", { name: /^Register/ }).isVisible());
      const calendar = page.getByRole("link", { name: "Add to calendar" });
      const [download] = await Promise.all([page.waitForEvent("download"), calendar.click()]);
      const ics = await (await fetch(server.url + (await calendar.getAttribute("href")))).text();
      assert.match(ics, /^BEGIN:VCALENDAR\r\n/);
      assert.match(ics, new RegExp(`DTSTART:${data.startDate.slice(0, 10).replaceAll("-", "")}T\\d{6}Z`));
      assert.match(download.suggestedFilename(), /\.ics$/);
      assert.deepEqual(problems, []);
    });

    test("jobs are filtered by office and by team without JavaScript", async () => {
      const { page } = await visit(width, "/careers/", "jobs", { javaScript: false });
      const all = await titles(page, "#open-positions");
      assert.ok(all.length >= 6, `${all.length} postings`);
      await Promise.all([page.waitForURL(/\/careers\/office\/london\/$/), page.locator(".facets").first().getByRole("link", { name: /^London/ }).click()]);
      assert.deepEqual(await page.locator("main .card__title").allInnerTexts(), ["Security Consultant"]);
      assert.equal(await page.locator('.facets__link[aria-current="page"]').innerText().then((t) => t.split(/\s/)[0]), "London");
      await page.screenshot({ path: path.join(shots, `office-${width}.png`), fullPage: true });
      await page.goto(server.url + "/careers/team/data-ai/");
      assert.equal((await page.locator("main .card__title").allInnerTexts()).length, 2);
    });

    test("Apply on a posting leads to its own application form, and its data says so", async () => {
      const { page, problems } = await visit(width, "/careers/security-consultant-london/", "job");
      const data = JSON.parse(await page.locator('script[type="application/ld+json"]').innerText());
      assert.equal(data["@type"], "JobPosting");
      assert.equal(data.directApply, true, "the whole application is made on the page");
      await page.getByRole("link", { name: /^Apply/ }).click();
      await page.waitForURL(/#apply$/);
      // The page scrolls there (smoothly, unless the visitor asks for less motion).
      await page.waitForFunction(() => {
        const top = document.getElementById("apply-heading")?.getBoundingClientRect().top ?? -1;
        return top >= 0 && top < window.innerHeight / 2;
      });
      await hydrated(page);
      assert.equal(await page.getByRole("form", { name: "Job application" }).count(), 1);
      assert.deepEqual(problems, []);
    });
  });
}
