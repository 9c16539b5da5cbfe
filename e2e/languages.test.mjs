// The site in German and Arabic beside English, in Chromium: each address serves
// one language whatever the browser asks for; the switcher is real links that
// lead to the same page in each language (or its home) with and without
// JavaScript; Arabic pages are laid out right to left (logo, menu button and a
// card's arrow mirrored against the English page); the contact form validates
// and sends in German and Arabic with its toasts in that language. Every
// translated page is also in the sitemap, so routes.test.mjs checks it at every
// width (overflow, console, hydration, axe; fully on the cover, which holds a
// page of each language and each direction). Each section exists in each
// language whose list page is translated: /de/insights/ lists the German
// articles, the header leads there, previous and next stay German, and an
// English entry a German list shows says so; an unknown address under /de/
// gets the German 404 page.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { hydrated, launchBrowser, reusedPage, startServer } from "./support.mjs";

const root = path.join(import.meta.dirname, "..");
const strings = (code) => parse(readFileSync(path.join(root, "content", "strings", `${code}.yaml`), "utf8"));

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

const TRANSLATED = ["/", "/about/", "/services/", "/services/cloud/", "/contact/", "/privacy-policy/", "/insights/ai-ready-enterprise/"];

describe("each address serves one language", () => {
  test("lang and dir on <html>, whatever Accept-Language says, with no redirect", async () => {
    for (const [prefix, lang, dir] of [["", "en", "ltr"], ["/de", "de", "ltr"], ["/ar", "ar", "rtl"]]) {
      for (const route of TRANSLATED) {
        for (const asked of ["de-DE,de;q=0.9", "ar", "en-US", "fr"]) {
          const response = await fetch(server.url + prefix + route, { redirect: "manual", headers: { "accept-language": asked } });
          assert.equal(response.status, 200, `${prefix}${route} asked for ${asked}`);
          const html = await response.text();
          assert.match(html, new RegExp(`<html lang="${lang}" dir="${dir}">`), `${prefix}${route}`);
        }
      }
    }
  });
});

describe("the language switcher", () => {
  const switchTo = async (page, name) => {
    await page.locator(".language-switcher summary").click();
    await page.locator(".language-switcher__panel").getByText(name, { exact: true }).click();
    await page.waitForLoadState("domcontentloaded");
  };

  for (const javaScript of [true, false]) {
    test(`leads to the same page in each language, or to its home${javaScript ? "" : ", without JavaScript"}`, async () => {
      const { page, problems } = await reusedPage(browser, 1280, { javaScript });
      await page.goto(server.url + "/about/");
      if (javaScript) await hydrated(page);
      await switchTo(page, "Deutsch");
      assert.equal(new URL(page.url()).pathname, "/de/about/");
      assert.equal(await page.locator("html").getAttribute("lang"), "de");
      await switchTo(page, "العربية");
      assert.equal(new URL(page.url()).pathname, "/ar/about/");
      await switchTo(page, "English");
      assert.equal(new URL(page.url()).pathname, "/about/");
      // Industries is in English only: German leads to the German home.
      await page.goto(server.url + "/industries/");
      await switchTo(page, "Deutsch");
      assert.equal(new URL(page.url()).pathname, "/de/");
      // Leaving a page cancels its lazy pictures' requests: not a problem.
      assert.deepEqual(problems.filter((p) => !p.endsWith("net::ERR_ABORTED")), []);
    });
  }

  test("each language's name is marked with its language and where it leads", async () => {
    const { page } = await reusedPage(browser, 375);
    await page.goto(server.url + "/de/services/");
    await hydrated(page);
    const links = await page.locator(".language-switcher__panel a").evaluateAll((as) =>
      as.map((a) => [a.getAttribute("lang"), a.getAttribute("hreflang"), a.getAttribute("href"), a.getAttribute("aria-current")]),
    );
    assert.deepEqual(links, [
      ["en", "en", "/services/", null],
      ["de", "de", "/de/services/", "true"],
      ["ar", "ar", "/ar/services/", null],
    ]);
    // What a screen reader announces for the toggle, as Chromium's accessibility tree has it.
    const name = strings("de").header.languages.replace("{name}", "Deutsch");
    const snapshot = await page.locator(".language-switcher").ariaSnapshot();
    assert.ok(snapshot.includes(`"${name}"`), snapshot);
  });
});

describe("every section in every language", () => {
  const hrefs = (page, selector) => page.locator(selector).evaluateAll((as) => as.map((a) => a.getAttribute("href")));

  for (const code of ["de", "ar"]) {
    test(`/${code}/insights/ lists the ${code} articles and names its translations`, async () => {
      const { page, problems } = await reusedPage(browser, 1280);
      await page.goto(server.url + `/${code}/insights/`);
      await hydrated(page);
      const featured = await hrefs(page, ".hero--media .button");
      const cards = await hrefs(page, "#latest-articles .card__link");
      const all = [...featured, ...cards];
      assert.equal(all.length, 3, all.join(", "));
      assert.ok(all.every((href) => href.startsWith(`/${code}/insights/`)), all.join(", "));
      const alternates = await page.locator('link[rel="alternate"][hreflang]').evaluateAll((ls) => ls.map((l) => [l.hreflang, new URL(l.href).pathname]));
      assert.deepEqual(alternates, [["en", "/insights/"], ["de", "/de/insights/"], ["ar", "/ar/insights/"], ["x-default", "/insights/"]]);
      // The words the templates write are the language's own.
      const { listing } = strings(code);
      assert.ok((await page.locator(".hero--media .eyebrow").textContent()).trim().startsWith(listing.featured), "featured");
      assert.equal((await page.locator("#latest-articles .facets__heading").textContent()).trim(), listing.topics);
      // A category leads to the language's own list of it.
      const topics = await hrefs(page, "#latest-articles .facets__link");
      assert.ok(topics.length > 0 && topics.every((href) => href.startsWith(`/${code}/insights/category/`)), topics.join(", "));
      assert.deepEqual(problems, []);
    });
  }

  test("the header leads to the section in the page's language, else to the default's", async () => {
    const { page } = await reusedPage(browser, 1280);
    await page.goto(server.url + "/de/insights/cfo-guide-funding-by-value/");
    await hydrated(page);
    const nav = await hrefs(page, ".site-header__nav a");
    assert.ok(nav.includes("/de/insights/") && nav.includes("/de/careers/"), nav.join(", "));
    // Previous and next stay German.
    const around = await hrefs(page, ".article__around a");
    assert.ok(around.length > 0 && around.every((href) => href.startsWith("/de/insights/")), around.join(", "));
    // Arabic has no careers page: its header leads to the English one.
    await page.goto(server.url + "/ar/insights/");
    await hydrated(page);
    const arabic = await hrefs(page, ".site-header__nav a");
    assert.ok(arabic.includes("/ar/insights/") && arabic.includes("/careers/"), arabic.join(", "));
  });

  test("/de/careers/ lists the English postings, each marked as English and saying so in German", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await page.goto(server.url + "/de/careers/");
    await hydrated(page);
    const cards = page.locator("#open-positions .entry");
    assert.ok((await cards.count()) > 0);
    for (const card of await cards.all()) {
      assert.equal(await card.getAttribute("lang"), "en");
      assert.equal((await card.locator(".card__language").innerText()).trim(), "Auf Englisch");
      assert.equal(await card.locator(".card__language").getAttribute("lang"), "de");
    }
    const offices = await hrefs(page, "#open-positions .facets__link");
    assert.ok(offices.every((href) => href.startsWith("/de/careers/")), offices.join(", "));
    assert.deepEqual(problems, []);
  });

  test("a remote posting names its countries in the page's language, and hydration changes none", async () => {
    const { page, problems } = await reusedPage(browser, 1280);
    await page.goto(server.url + "/careers/senior-cloud-engineer-remote-europe/");
    const facts = await page.locator(".facts").innerText();
    assert.match(facts, /United Kingdom, Ireland, Netherlands/);
    const options = () => page.locator("#apply-country option").allInnerTexts();
    const before = await options();
    assert.ok(before.length > 240, `${before.length} countries`);
    await page.locator("#apply-country").scrollIntoViewIfNeeded();
    await page.waitForSelector(".application-form .contact-form__submit:not([disabled])");
    assert.deepEqual(await options(), before);
    assert.deepEqual(problems, []);
  });

  test("an unknown address under /de/ gets the German 404 page, with 404", async () => {
    const response = await fetch(server.url + "/de/no-such-page/");
    assert.equal(response.status, 404);
    const html = await response.text();
    assert.match(html, /<html lang="de"/);
    assert.ok(html.includes(strings("de").not_found.heading));
    assert.doesNotMatch(html, /404\.html/);
  });
});

describe("Arabic is laid out right to left", () => {
  const box = async (page, selector) => {
    const b = await page.locator(selector).first().boundingBox();
    assert.ok(b, selector);
    return b;
  };

  test("the logo, the menu button and a card's arrow are mirrored against the English page", async () => {
    const seen = {};
    for (const [lang, route] of [["en", "/"], ["ar", "/ar/"]]) {
      const { page, problems } = await reusedPage(browser, 375);
      await page.goto(server.url + route);
      await hydrated(page);
      const brand = await box(page, ".site-header__brand");
      const toggle = await box(page, ".site-header__toggle");
      seen[lang] = { brandLeft: brand.x < 375 / 2, toggleLeft: toggle.x < 375 / 2 };
      await page.setViewportSize({ width: 1280, height: 800 });
      const arrow = page.locator(".card__link .icon--directional").first();
      await arrow.scrollIntoViewIfNeeded();
      seen[lang].arrow = await arrow.evaluate((el) => getComputedStyle(el).transform);
      // The arrow follows the words in reading order: at their right in English, their left in Arabic.
      seen[lang].arrowAfterWords = await arrow.evaluate((icon, rtl) => {
        const words = document.createRange();
        words.selectNodeContents(icon.parentElement.firstChild);
        const text = words.getBoundingClientRect();
        const at = icon.getBoundingClientRect();
        return rtl ? at.right <= text.left + 1 : at.left >= text.right - 1;
      }, lang === "ar");
      assert.deepEqual(problems, [], route);
    }
    assert.deepEqual(seen.en, { brandLeft: true, toggleLeft: false, arrow: "none", arrowAfterWords: true });
    assert.deepEqual(seen.ar, { brandLeft: false, toggleLeft: true, arrow: "matrix(-1, 0, 0, 1, 0, 0)", arrowAfterWords: true });
  });

  test("Arabic text is set in the Arabic face, preloaded on Arabic pages only", async () => {
    const { page } = await reusedPage(browser, 1280);
    await page.goto(server.url + "/ar/");
    await hydrated(page);
    await page.evaluate(() => document.fonts.ready);
    const faces = await page.evaluate(() =>
      Array.from(document.fonts).filter((f) => f.status === "loaded").map((f) => f.family.replaceAll('"', "")),
    );
    assert.ok(faces.includes("Readex Pro"), faces.join(", "));
    const preloads = async () =>
      page.locator('link[rel="preload"][as="font"]').evaluateAll((ls) => ls.map((l) => l.getAttribute("href")));
    assert.ok((await preloads()).every((href) => href.includes("arabic")), (await preloads()).join(", "));
    await page.goto(server.url + "/de/");
    assert.ok((await preloads()).every((href) => !href.includes("arabic")), (await preloads()).join(", "));
  });
});

describe("search finds the visitor's language only", () => {
  for (const [code, query] of [["de", "Cloud"], ["ar", "السحابية"]]) {
    test(`on /${code}/, “${query}” finds ${code} pages, each in its own words`, async () => {
      const { search } = strings(code);
      const { page, problems } = await reusedPage(browser, 1280);
      await page.goto(server.url + `/${code}/`);
      await hydrated(page);
      await page.waitForSelector("header.site-header[data-ready]");
      await page.keyboard.press("Control+k");
      const field = page.getByRole("searchbox", { name: search.title });
      await field.fill(query);
      await page.waitForFunction((q) => document.querySelector(".search-dialog__summary")?.textContent.includes(q), query);
      const hrefs = await page.$$eval(".search-result", (links) => links.map((a) => a.getAttribute("href")));
      assert.ok(hrefs.length > 0, `results for ${query}`);
      assert.ok(hrefs.every((href) => href.startsWith(`/${code}/`)), hrefs.join(", "));
      assert.equal(await field.getAttribute("placeholder"), search.placeholder);
      assert.deepEqual(problems, []);
    });
  }
});

describe("the contact form in German and Arabic", () => {
  for (const code of ["de", "ar"]) {
    test(`/${code}/contact/ validates and sends, its toasts in ${code}`, async () => {
      const { form, toast } = strings(code);
      const { page, problems } = await reusedPage(browser, 375);
      await page.goto(server.url + `/${code}/contact/`);
      await hydrated(page);
      const submit = page.locator(".contact-form__submit");
      assert.equal((await submit.innerText()).trim(), form.send);
      await submit.click();
      assert.equal(await page.locator("#contact-name-error").innerText(), form.required_name);
      await page.getByLabel(new RegExp(`^${form.name}`)).fill("Asha Patel");
      await page.getByLabel(new RegExp(`^${form.email}`)).fill("asha@example.com");
      await page.getByLabel(new RegExp(`^${form.subject}`)).fill("Core banking");
      await page.getByLabel(new RegExp(`^${form.message}`)).fill("Wir möchten sprechen. نود التحدث.");
      await page.locator("#contact-agree").check();
      // A wrong type first: the toast in the page's language, every value kept.
      await page.locator("#contact-attachment").setInputFiles({ name: "cv.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4") });
      await page.locator(".toast").waitFor();
      assert.equal(await page.locator(".toast__title").innerText(), toast.invalid_type_title);
      assert.equal(await page.getByLabel(new RegExp(`^${form.name}`)).inputValue(), "Asha Patel");
      await submit.click();
      await page.locator(".form-sent").waitFor({ timeout: 15_000 });
      assert.equal(await page.locator(".form-sent__title").innerText(), form.sent_title);
      await page.locator(".toast__title", { hasText: toast.sent_title }).waitFor();
      assert.equal(await page.locator(".toast__description").innerText(), toast.sent_text);
      assert.deepEqual(problems, []);
    });
  }
});
