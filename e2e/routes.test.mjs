// Every page of the site in Chromium. What a page's words can break is checked
// on every page, cheaply: one load, no console error, hydration mismatch or CSP
// refusal, one h1 and a title, axe-core's rules but contrast, nothing wider than
// the screen and no clipped text at 320, 375, 768 and 1280 px. What the templates
// and styles can break (every axe-core rule at every width, the controls in the
// brand face) is checked on the pages the build chooses to hold every part of
// the site: each layout, block type, island, element and class, in each
// direction (`site serve`'s /__site/parts.json, made by render/parts.rs). The
// six main pages have their hero picture and every section of the spec, in
// order, with the spec's counts.
//
// ROUTES=every checks every page fully, as this file did before the cover
// (e2e/mutations.mjs compares the two); SITE_ROOT is another copy of the
// site to serve. ROUTES=<file> checks only the pages it lists, one route a line
// (as `node deploy/changes.mjs pages` prints those a change touched), each
// fully, and nothing else of this file.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { sitemapPages } from "../deploy/crawl.mjs";
import { checkPage } from "./checks.mjs";
import { BUILT_AT, launchBrowser, reusedPage, startServer, WIDTHS } from "./support.mjs";

/** ROUTES=<file>: the only pages to check, each fully. */
const only =
  process.env.ROUTES && process.env.ROUTES !== "every"
    ? readFileSync(process.env.ROUTES, "utf8").split("\n").map((l) => l.trim()).filter(Boolean)
    : null;
/** The tests that check more than the pages listed are left out under ROUTES=<file>. */
const skip = only !== null;

let server;
let browser;
let routes;
/** The build's parts of each page and its cover (render/parts.rs). */
let parts;

before(async () => {
  // SITE_ROOT: another copy of the site, such as e2e/mutations.mjs's.
  // The pages as a visitor gets them: without the preview's live reload.
  const args = ["--no-live-reload"];
  server = await startServer(process.env.SITE_ROOT ? { siteRoot: process.env.SITE_ROOT, keepRoot: true, args } : { args });
  browser = await launchBrowser();
  const read = async (url) => (await fetch(server.url + new URL(url, server.url).pathname)).text();
  routes = (await sitemapPages("/sitemap.xml", read)).map((url) => new URL(url).pathname);
  parts = await (await fetch(server.url + "/__site/parts.json")).json();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const texts = (page, selector) => page.locator(selector).allInnerTexts().then((t) => t.map((s) => s.trim()));
const count = (page, selector) => page.locator(selector).count();

/** The spec, page by page: the h1, the h2 headings of `main` in order, and counts. */
const PAGES = {
  "/": {
    h1: "Reinvent your enterprise around a digital core",
    h2: [
      "Digital Core Capabilities",
      "Digital Operating Model",
      "Talent Transformations",
      "Technologies shaping the next decade",
      "Get Started",
      "Our Purpose",
      "About Us",
      "Investors",
    ],
    async more(page) {
      assert.deepEqual(await texts(page, ".hero .actions .button"), ["Explore Our Services", "Contact Us"]);
      assert.equal(await count(page, "#digital-core-capabilities .card"), 6);
      assert.equal(await count(page, "#future-technologies .card"), 4);
      assert.equal(await count(page, "#about-us .stat"), 3);
      assert.equal(await count(page, "#about-us .card"), 3);
    },
  },
  "/about/": {
    h2: [
      "Our Story",
      "Our Values",
      "Leadership Team",
      "Global Presence",
      "Corporate Social Responsibility",
      "Join Our Journey",
    ],
    async more(page) {
      const hrefs = await page.locator(".hero .actions a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      assert.deepEqual(hrefs, ["/contact/", "/about/#leadership-team"]);
      assert.equal(await count(page, "#our-values .card"), 4);
      assert.equal(await count(page, "#leadership-team .person"), 6);
      for (const person of await page.locator("#leadership-team .person").all()) {
        assert.equal(await person.locator(".card__title").count(), 1);
        assert.equal(await person.locator(".person__position").count(), 1);
        assert.ok((await person.locator(".card__text").innerText()).length > 40);
      }
      assert.equal(await count(page, "#global-presence .region"), 4);
      assert.equal(await count(page, "#global-presence .region dd"), 8, "offices and clients per region");
      assert.ok((await count(page, "#corporate-social-responsibility .stat")) >= 1);
    },
  },
  "/services/": {
    h2: [
      "Our Service Offerings",
      "Digital Transformation",
      "Industry Solutions",
      "Our Delivery Approach",
      "Success Stories",
      "Ready to start your transformation?",
    ],
    async more(page) {
      assert.deepEqual(await texts(page, ".hero .actions .button"), ["Schedule a Consultation"]);
      assert.equal(await count(page, "#service-offerings .card"), 6);
      assert.equal(await count(page, "#industry-solutions .card"), 6);
      assert.deepEqual(await texts(page, "#delivery-approach .step__title"), ["Discover", "Design", "Develop", "Deploy", "Optimize"]);
      for (const step of await page.locator("#delivery-approach .step").all()) {
        assert.ok((await step.locator(".checklist li").count()) >= 2, "each phase has activities");
      }
      const industries = await texts(page, "#success-stories .card__label");
      assert.deepEqual(industries.slice(0, 3), ["BANKING", "HEALTHCARE", "RETAIL"].map((s) => s), "begins with a bank, a healthcare and a retail case");
      assert.equal(await count(page, "#success-stories .card img"), industries.length);
      assert.deepEqual(await texts(page, ".cta .button"), ["Schedule a Consultation", "View Our Portfolio"]);
    },
  },
  "/industries/": {
    h1: "Industries We Serve",
    h2: ["Expertise where it counts", "Learn more by industry", "Partner With Us"],
    async more(page) {
      assert.deepEqual(await texts(page, "#learn-more-by-industry .card__title"), [
        "Aerospace and Defense", "Automotive", "Banking and Capital Markets", "Consumer Products",
        "Energy and Utilities", "Healthcare", "High-Tech", "Hospitality and Travel", "Insurance",
        "Life Sciences", "Manufacturing", "Media and Entertainment", "Public Sector", "Retail", "Telecoms",
      ]);
      assert.equal(await count(page, "#learn-more-by-industry .card__link--inert"), 15, "Learn more is inert");
      assert.equal(await count(page, "#learn-more-by-industry a"), 0);
    },
  },
  "/insights/ai-ready-enterprise/": {
    h1: "The AI-ready enterprise — what leaders are doing differently in 2026",
    h2: ["Three habits of the leaders", "Where the value is coming from", "What to do this quarter"],
    async more(page) {
      assert.match(await page.locator(".article__byline").innerText(), /By Priya Menon · November 14, 2026 · \d+ min read/);
      assert.equal(await page.locator(".article__byline time").getAttribute("datetime"), "2026-11-14");
      assert.equal(await count(page, ".prose table tbody tr"), 4);
      assert.equal(await count(page, ".prose blockquote"), 1);
      // The newest article links only to the previous one.
      assert.equal(await page.locator('a[rel="prev"]').getAttribute("href"), "/insights/cfo-guide-funding-by-value/");
      assert.equal(await count(page, 'a[rel="next"]'), 0);
    },
  },
  "/insights/": {
    h2: [
      "Latest Articles",
      "Spotlight",
      "Generational dynamics in the workplace",
      "Insights for the C-suite",
      "Case Studies",
      "Seven drivers of growth",
    ],
    async more(page) {
      // The featured article fills the hero, and "Read Full Article" leads to it.
      const read = page.locator(".hero a.button", { hasText: "Read Full Article" });
      assert.equal(await read.getAttribute("href"), "/insights/ai-ready-enterprise/");
      assert.equal(await count(page, 'link[rel="alternate"][type="application/atom+xml"][href="/insights/feed.xml"]'), 1);
      // The latest articles, newest first, each a real link to its article.
      assert.deepEqual(await texts(page, "#latest-articles .card__title"), [
        "The CFO's guide to funding transformation by value",
        "Building supply chains that bend instead of break",
      ]);
      assert.deepEqual(
        await page.locator("#latest-articles .card__link").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
        ["/insights/cfo-guide-funding-by-value/", "/insights/supply-chains-that-bend/"],
      );
      assert.equal(await count(page, "#spotlight .card"), 2);
      for (const card of await page.locator("#spotlight .card").all()) {
        assert.equal(await card.locator(".entries li").count(), 3);
      }
      assert.equal(await count(page, "#generational-dynamics .play-overlay"), 1);
      assert.deepEqual(await texts(page, "#c-suite .role"), [
        "CEO", "CFO", "COO", "CHRO", "CISO", "CMO", "CTO", "CRO", "Tax leader", "GCO", "Board executive",
      ]);
      assert.deepEqual(await texts(page, "#c-suite .role--selected"), ["CEO"]);
      assert.equal(await count(page, "#case-studies .card"), 3);
      assert.equal(await count(page, "#seven-drivers-of-growth .card"), 7);
      for (const card of await page.locator("#latest-articles .card, #case-studies .card").all()) {
        assert.equal(await card.locator(".card__label").count(), 1, "category");
        assert.equal(await card.locator(".meta").count(), 1, "date and author or company");
        assert.equal(await card.locator("img").count(), 1);
      }
      assert.equal(await count(page, "#case-studies .card__link--inert"), 3, "case studies are not published yet");
    },
  },
  "/contact/": {
    h2: [
      "Send Us a Message",
      "Get in Touch",
      "Our Global Offices",
      "Find Us",
      "Frequently Asked Questions",
      "Ready to Transform Your Business?",
    ],
    async more(page) {
      const hero = page.locator(".hero .actions a");
      assert.equal(await hero.innerText(), "Send Us a Message");
      assert.equal(await hero.getAttribute("href"), "#send-message");
      const panel = await page.locator(".contact__panel").innerText();
      assert.match(panel, /Monday-Friday: 9:00 AM-6:00 PM IST/);
      assert.match(panel, /Closed/);
      assert.equal(await count(page, ".contact__panel .social a"), 5);
      assert.equal(await page.locator(".contact__panel a[href='/support/']").count(), 1);
      assert.deepEqual(await texts(page, "#our-global-offices .card__label"), ["HYDERABAD", "AUSTIN", "LONDON", "SINGAPORE", "SYDNEY"]);
      const hours = await texts(page, "#our-global-offices .office__details span:last-child");
      assert.deepEqual(hours.map((h) => h.split(" ").pop()), ["IST", "CST", "GMT", "SGT", "AEST"]);
      assert.match(await page.locator("#find-us").innerText(), /Silicon Valley/);
      // The map is drawn at build time: land in an image, a pin per office.
      assert.match(await page.locator("#find-us img").getAttribute("src"), /^\/assets\/maps\/world-[0-9a-f]+\.svg$/);
      assert.equal(await count(page, "#find-us .world-map__pin"), 6);
      assert.equal(await count(page, "#find-us .world-map__pin--hq"), 1);
      assert.deepEqual(await texts(page, "#find-us .world-map__legend strong"), ["Silicon Valley", "Hyderabad", "Austin", "London", "Singapore", "Sydney"]);
      assert.equal(await count(page, "#faq details"), 5);
      const faq = await page.locator("#faq").textContent();
      for (const fact of ["3-6 months", "12-18 months", "24/7", "GDPR", "HIPAA"]) assert.ok(faq.includes(fact), fact);
    },
  },
};

test("every page the header and footer link to exists", { skip }, async () => {
  const { page } = await reusedPage(browser, 1280);
  await page.goto(server.url + "/");
  const hrefs = await page.locator("header a, footer a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  const internal = [...new Set(hrefs.filter((h) => h.startsWith("/")))];
  assert.ok(internal.length >= 30, `${internal.length} internal links`);
  for (const href of internal) {
    const r = await fetch(server.url + href, { redirect: "manual" });
    assert.equal(r.status, 200, href);
  }
});

test("the footer is the spec's: four groups of five links, legal links, contact, social, copyright", { skip }, async () => {
  const { page } = await reusedPage(browser, 1280);
  await page.goto(server.url + "/about/");
  assert.deepEqual(await texts(page, ".site-footer__group h2"), ["Company", "Services", "Industries", "Resources"]);
  const groups = await page.locator(".site-footer__group").evaluateAll((navs) =>
    navs.map((n) => Array.from(n.querySelectorAll("a")).map((a) => a.getAttribute("href"))),
  );
  assert.deepEqual(groups, [
    ["/about/", "/leadership/", "/careers/", "/investors/", "/news/"],
    ["/services/digital-transformation/", "/services/cloud/", "/services/ai-automation/", "/services/cybersecurity/", "/services/data-analytics/"],
    ["/industries/banking/", "/industries/healthcare/", "/industries/manufacturing/", "/industries/retail/", "/industries/energy/"],
    ["/resources/case-studies/", "/resources/whitepapers/", "/blog/", "/events/", "/support/"],
  ]);
  const legal = await page.locator(".site-footer__legal a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert.deepEqual(legal, ["/privacy-policy/", "/terms-of-use/", "/cookie-policy/", "/accessibility/", "/sitemap/"]);
  const social = page.locator(".site-footer .social a");
  assert.equal(await social.count(), 5);
  for (const a of await social.all()) {
    assert.equal(await a.getAttribute("target"), "_blank");
    assert.equal(await a.getAttribute("rel"), "noopener noreferrer");
  }
  assert.match(await page.locator(".site-footer__contact").innerText(), /Hyderabad[\s\S]*\+91[\s\S]*@/);
  assert.match(await page.locator(".site-footer__copyright").innerText(), new RegExp(`© ${BUILT_AT.getUTCFullYear()} Meridian Digital`));
});

describe("every route", () => {
  test(`every page cheaply, and the cover's pages fully, at ${WIDTHS.join(", ")} px`, async () => {
    const every = process.env.ROUTES === "every";
    const cover = new Set(parts.cover);
    // Every page the sitemap lists is one the build made, with its parts (the
    // sitemap's addresses are percent-encoded, the build's are not).
    const made = new Set(parts.pages.map((p) => p.route));
    assert.deepEqual(routes.filter((r) => !made.has(decodeURI(r))), [], "pages of the sitemap without parts");
    assert.ok(cover.size > 0 && cover.size <= routes.length, `a cover of ${cover.size} pages`);
    const found = [];
    // One tab goes from route to route, as a visitor does (a new browser context
    // for each costs about half again).
    const tab = await reusedPage(browser, WIDTHS[0]);
    // The sitemap's pages, then the cover's pages it does not list (drafts,
    // which site serve shows), all by their decoded address.
    const listed = routes.map((r) => decodeURI(r));
    const pages = only ?? [...listed, ...[...cover].filter((r) => !listed.includes(r))];
    for (const route of pages) {
      const full = every || only !== null || cover.has(route);
      for (const problem of await checkPage(tab, server.url + encodeURI(route), { full })) found.push(`${route}: ${problem}`);
    }
    assert.deepEqual(found, []);
  });

  test("the six main pages open on a hero with its picture at 1280 px", { skip }, async () => {
    for (const route of ["/", "/about/", "/services/", "/industries/", "/insights/", "/contact/"]) {
      const { page } = await reusedPage(browser, 1280);
      await page.goto(server.url + route);
      const picture = page.locator(".hero .hero__media img");
      assert.equal(await picture.isVisible(), true, route);
      const shown = await picture.evaluate((img) => img.complete && img.naturalWidth > 0 && img.getBoundingClientRect().width >= 300);
      assert.ok(shown, `${route}: the hero's picture is loaded and at least 300 px wide`);
      assert.equal(await picture.getAttribute("fetchpriority"), "high", route);
    }
  });
});

for (const width of [375, 1280]) {
  describe(`the main pages at ${width} px`, { skip }, () => {
    for (const [route, spec] of Object.entries(PAGES)) {
      test(`${route} has every section of the spec, in order`, async () => {
        const { page } = await reusedPage(browser, width);
        await page.goto(server.url + route);
        if (spec.h1) assert.equal(await page.locator("h1").innerText(), spec.h1);
        assert.deepEqual(await texts(page, "main h2"), spec.h2);
        await spec.more(page);
      });
    }
  });
}
