// The checks a page of the site gets in Chromium, in two depths:
//
// - cheap, for what a page's words can break, on every page: one load; no
//   console error, page error (where React reports a hydration mismatch),
//   failed request or CSP refusal; one h1 and a title; axe-core's rules but
//   colour contrast, once (alt text, link and button names, labels, ids,
//   languages: what words and Markdown make); and at each width, nothing wider
//   than the screen and no heading or button text that does not fit;
// - full, for what the templates and styles can break, on the pages that hold
//   every part of the site (the build's cover, `site serve`'s
//   /__site/parts.json): every axe-core rule at each width, and the controls
//   in the brand face at 16 px or more.
//
// Used by e2e/routes.test.mjs, which chooses the depth of each page and serves
// the pages as a visitor gets them (`site serve --no-live-reload`: no live
// reload script, and no panel of the build's warnings, which are the preview's).

import { axeInEachPage, axeViolations, hydrated, WIDTHS } from "./support.mjs";

/** axe-core's rule that depends on the styles alone, not on the words: colour contrast. */
const STYLE_RULES = ["color-contrast"];

/**
 * What a visitor would see wrong at the page's current width: anything wider than
 * the screen, and heading or button text that does not fit its box; with `full`,
 * also a button or text control not in the brand face at 16 px or more. Hidden
 * elements (the closed phone menu) are skipped. Gives those `problems`, and
 * `shown`, which elements of `main` are shown at this width (by their place).
 */
export function layoutProblems(page, width, { full = true } = {}) {
  return page.evaluate(
    async ({ vw, full }) => {
      await document.fonts.ready;
      const shown = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 0;
      const name = (el) =>
        `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : ""} "${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30)}"`;
      const out = [];
      // The elements of `main` shown, by their place in the document.
      const main = document.querySelector("main");
      const inMain = [];
      let index = 0;
      for (const el of document.querySelectorAll("body *")) {
        index++;
        if (!shown(el)) continue;
        if (main?.contains(el)) inMain.push(index);
        const box = el.getBoundingClientRect();
        // A form's honeypot is put wholly off the screen on purpose, and hidden
        // from assistive technology: it widens nothing anyone sees.
        if (el.closest('[aria-hidden="true"]') && (box.right <= 0 || box.left >= vw)) continue;
        if (box.right > vw + 0.5 || box.left < -0.5) out.push(`wider than the screen: ${name(el)}`);
      }
      for (const el of document.querySelectorAll("h1, h2, h3, h4, button, .button")) {
        if (!shown(el) || getComputedStyle(el).display === "inline") continue;
        if (el.scrollWidth > el.clientWidth + 1) out.push(`text does not fit: ${name(el)}`);
      }
      if (full) {
        if (!document.fonts.check('16px "Plus Jakarta Sans"')) out.push("the brand face is not loaded");
        const controls = "button, input:not([type=checkbox]):not([type=radio]):not([type=hidden]), select, textarea, .button, summary.icon-button";
        for (const el of document.querySelectorAll(controls)) {
          if (!shown(el)) continue;
          const style = getComputedStyle(el);
          if (!style.fontFamily.startsWith('"Plus Jakarta Sans"')) out.push(`not in the brand face: ${name(el)} (${style.fontFamily})`);
          if (parseFloat(style.fontSize) < 16) out.push(`smaller than 16 px: ${name(el)} (${style.fontSize})`);
        }
      }
      return { problems: [...new Set(out)].slice(0, 10), shown: inMain };
    },
    { vw: width, full },
  );
}

/**
 * Loads `url` in `page` and checks it, fully or cheaply; gives every problem
 * found, each naming the width where one applies. `problems` is the page's record
 * of console errors, page errors and failed requests (`reusedPage`), emptied
 * before the load. The page is loaded at the widest width, which shows the most,
 * and checked from there down. One tab goes from page to page with no blank
 * page between: a blank page would start a new renderer, which compiles every
 * script again.
 */
export async function checkPage({ page, problems }, url, { full }) {
  const found = [];
  const widths = [...WIDTHS].reverse();
  if (page.viewportSize()?.width !== widths[0]) await page.setViewportSize({ width: widths[0], height: 800 });
  await axeInEachPage(page);
  problems.length = 0;
  await page.goto(url);
  // The cheap checks measure where things are, not their colours: no need to
  // wait for a fade to end.
  await hydrated(page, { settle: full });
  const { h1, title } = await page.evaluate(() => ({ h1: document.querySelectorAll("h1").length, title: document.title }));
  if (h1 !== 1) found.push(`${h1} h1 elements, not one`);
  if (title.length === 0) found.push("no title");
  // The rules but contrast read the DOM and what is shown of it, not where it is
  // drawn: they are run again at a width only when it shows an element of `main`
  // no width before it showed. What is around `main` (the header, the footer) is
  // the same on every page of a language, and the cover holds a page of each.
  const checked = new Set();
  for (const width of widths) {
    if (width !== widths[0]) await page.setViewportSize({ width, height: 800 });
    const at = (p) => `${width} px: ${p}`;
    const layout = await layoutProblems(page, width, { full });
    found.push(...layout.problems.map(at));
    if (full) {
      found.push(...(await axeViolations(page)).map(at));
    } else if (layout.shown.some((el) => !checked.has(el))) {
      for (const el of layout.shown) checked.add(el);
      found.push(...(await axeViolations(page, { except: STYLE_RULES, within: "main" })).map(at));
    }
  }
  found.push(...problems);
  return found;
}
