// The content editor at /admin/ on `site serve`, driven in Chromium as an editor
// would: work in the site's folder, change Home's hero heading and save. The
// file changes in that one line (git says so), the page serves the new heading
// after the rebuild, and a required field left empty is refused at the field.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { copySite, HOME_ENTRY, launchBrowser, openPage, signInLocally, startServer } from "./support.mjs";

/** Polls `read` until `ok` holds of what it gives, for up to 20 s; gives the last. */
async function eventually(read, ok, what) {
  let last;
  for (let i = 0; i < 100; i++) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch {
      // A rebuild may be under way.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`waited 20 s for ${what}; last: ${String(last).slice(0, 500)}`);
}

/**
 * Opens a new entry of the collection shown and gives it `title`. The editor
 * sets a new entry's fields from its draft a moment after it draws them, and a
 * value typed before that is set back (a browser quick enough types within that
 * moment; a person never does): the title is typed again until the field keeps it.
 */
async function newEntry(page, title) {
  await page.getByRole("button", { name: "New" }).click();
  const field = page.getByRole("textbox", { name: "Title" });
  for (let tries = 1; ; tries++) {
    await field.fill(title);
    await page.waitForTimeout(250);
    if ((await field.inputValue()) === title) return;
    assert.ok(tries < 5, `the editor did not keep the new entry's title after ${tries} tries`);
  }
}

/** The text of every preview frame on the editor's page. */
async function previewsText(page) {
  const frames = page.frames().filter((f) => f.url() === "about:srcdoc");
  return (await Promise.all(frames.map((f) => f.evaluate(() => document.body.innerText)))).join("\n");
}

/** A photograph-like PNG (a gradient with noise), drawn by the browser. */
async function photo(page) {
  const data = await page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 1200;
    canvas.height = 675;
    const g = canvas.getContext("2d");
    const gradient = g.createLinearGradient(0, 0, 1200, 675);
    gradient.addColorStop(0, "#1b4f8a");
    gradient.addColorStop(1, "#e3a33b");
    g.fillStyle = gradient;
    g.fillRect(0, 0, 1200, 675);
    for (let i = 0; i < 4000; i++) {
      g.fillStyle = `rgba(255,255,255,${((i * 7919) % 100) / 400})`;
      g.fillRect((i * 104729) % 1200, (i * 1299709) % 675, 3, 3);
    }
    return canvas.toDataURL("image/png").split(",")[1];
  });
  return Buffer.from(data, "base64");
}

/** How long the preview waits for typing to pause (islands/admin/preview.ts). */
const TYPING = 150;

let server;
let browser;
let site;

const git = (...args) => execFileSync("git", ["-C", site, ...args], { encoding: "utf8" });

before(async () => {
  site = copySite();
  git("init", "-q");
  git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "add", "-A");
  git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "commit", "-qm", "site");
  server = await startServer({ siteRoot: site });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The editor, signed in to the site's folder, once it lists the site's pages. */
async function openEditor() {
  const { page, context } = await openPage(browser, 1280);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}/admin/`);
  await signInLocally(page, page.getByText(HOME_ENTRY));
  return { page, context, errors };
}

/**
 * The editor of the tests that leave every entry saved: signed in once, then
 * going from entry to entry in one tab, as an editor does (opening the editor
 * costs about five times the processor time of going to an entry). `errors`
 * are those since this call.
 */
let shared;
async function sharedEditor() {
  if (!shared) shared = await openEditor();
  shared.errors.length = 0;
  return shared;
}

/** The editor (`editor`, else one of its own), signed in to the site's folder, on Home. */
async function openHome(editor) {
  const { page, context, errors } = await (editor ?? openEditor());
  await page.getByText(HOME_ENTRY).click();
  const heading = page.getByRole("textbox", { name: "Heading" }).first();
  await heading.waitFor();
  return { page, context, heading, errors };
}

test("/admin/ is the editor's page: not indexed, with its own policy, and no live reload", async () => {
  const response = await fetch(`${server.url}/admin/`);
  const html = await response.text();
  assert.match(html, /<meta name="robots" content="noindex, nofollow">/);
  assert.ok(!html.includes("/__site/live.js"), "a reload would lose what is typed");
  const csp = response.headers.get("content-security-policy");
  assert.match(csp, /script-src 'self';/);
  // Under site serve the editor works in the site's folder and asks no other host.
  assert.match(csp, /connect-src 'self' data: blob:;/);
  const home = await fetch(`${server.url}/`);
  assert.match(home.headers.get("content-security-policy"), /style-src 'self';/, "the site's own policy is unchanged");
  const sitemap = await (await fetch(`${server.url}/sitemap.xml`)).text();
  assert.ok(!sitemap.includes("/admin/"));
});

test("in a browser set to another language the editor speaks it, and loads all it needs from the site", async () => {
  for (const locale of ["de-DE", "en-GB"]) {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const failed = [];
    page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
    page.on("requestfailed", (r) => failed.push(`failed ${r.url()}`));
    await page.goto(`${server.url}/admin/`);
    await page.getByRole("button", { name: locale === "de-DE" ? /Mit lokalem Repository arbeiten/ : /Local Repository/ }).waitFor();
    await page.waitForTimeout(1000);
    assert.deepEqual(failed, [], locale);
    await context.close();
  }
});

test("the editor's configuration, generated from the models, is valid for the editor's own schema", async () => {
  const { default: Ajv } = await import("ajv");
  const { default: addFormats } = await import("ajv-formats");
  const schema = JSON.parse(readFileSync(path.join(import.meta.dirname, "../node_modules/@sveltia/cms/schema/sveltia-cms.json"), "utf8"));
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const config = await (await fetch(`${server.url}/admin/config.json`)).json();
  assert.ok(validate(config), JSON.stringify(validate.errors?.slice(0, 5), null, 1));
  assert.deepEqual(
    config.collections.map((c) => c.name),
    ["pages", "documents", "insights", "news", "events", "careers", "industries", "resources", "services", "strings", "settings"],
  );
});

test("the site's folder answers the editor alone", async () => {
  const refused = await fetch(`${server.url}/__site/files/content/site.yaml`);
  assert.equal(refused.status, 403);
  const outside = await fetch(`${server.url}/__site/files/templates/base.html`, { headers: { "X-Site-Editor": "1" } });
  assert.equal(outside.status, 404);
  const foreign = await fetch(`${server.url}/__site/files/content/site.yaml`, {
    method: "PUT",
    body: "x",
    headers: { "X-Site-Editor": "1", Origin: "https://elsewhere.example" },
  });
  assert.equal(foreign.status, 403);
  assert.notEqual(readFileSync(path.join(site, "content/site.yaml"), "utf8"), "x");
  // The preview renders what it is sent: for the editor alone too, and of pages only.
  const draft = JSON.stringify({ path: "content/pages/about.yaml", text: "title: x\n" });
  const json = { "Content-Type": "application/json" };
  assert.equal((await fetch(`${server.url}/__site/preview`, { method: "POST", body: draft, headers: json })).status, 403);
  const settings = await fetch(`${server.url}/__site/preview`, {
    method: "POST",
    body: JSON.stringify({ path: "content/site.yaml", text: "" }),
    headers: { ...json, "X-Site-Editor": "1" },
  });
  assert.equal(settings.status, 422);
  assert.match((await settings.json()).error, /only a page under content\/pages\/ has a preview/);
});

test("editing Home's hero heading changes that one line, and the page shows it", async () => {
  const { page, heading, errors } = await openHome(await sharedEditor());
  assert.equal(await heading.inputValue(), "Reinvent your enterprise around a digital core");
  await heading.fill("Digital services for what comes next");
  await page.getByRole("button", { name: "Save" }).click();
  const file = "content/pages/index.yaml";
  let numstat = "";
  for (let i = 0; i < 100 && !numstat; i++) {
    numstat = git("diff", "--numstat").trim();
    if (!numstat) await page.waitForTimeout(100);
  }
  assert.equal(numstat, `1\t1\t${file}`);
  assert.match(git("diff", "-U0"), /\n-    heading: Reinvent your enterprise around a digital core\n\+    heading: Digital services for what comes next\n/);
  const html = await server.built(
    async () => (await fetch(`${server.url}/`)).text(),
    (text) => text.includes("Digital services for what comes next"),
    "Home with the new heading",
  );
  assert.match(html, /<h1[^>]*>Digital services for what comes next<\/h1>/);
  assert.deepEqual(errors, []);
});

test("the preview follows the heading as it is typed, before it is saved", async () => {
  const { page, context, heading, errors } = await openHome();
  const file = path.join(site, "content/pages/index.yaml");
  const before = readFileSync(file, "utf8");
  const preview = () => page.frames().find((f) => f.url() === "about:srcdoc");
  await eventually(() => preview()?.locator("h1").first().innerText(), (t) => Boolean(t), "the preview");
  const typed = performance.now();
  await heading.fill("Typed, not saved yet");
  await eventually(
    () => preview()?.locator("h1").first().innerText(),
    (text) => text === "Typed, not saved yet",
    "the typed heading in the preview",
  );
  console.log(`# typed to previewed: ${Math.round(performance.now() - typed)} ms (${TYPING} ms of it waiting for the typing to pause)`);
  assert.equal(readFileSync(file, "utf8"), before, "nothing is written until Save");
  // Typing while the preview is scrolled down keeps it where it was. The page
  // shown goes to the place kept when it has loaded (its pictures too, which a
  // busy machine may show after its heading): the reader scrolls after that.
  await eventually(() => preview()?.evaluate(() => document.readyState), (state) => state === "complete", "the preview's page loaded");
  await preview().evaluate(() => window.scrollTo({ top: 1500, behavior: "instant" }));
  await page.waitForTimeout(100);
  await heading.pressSequentially(" again", { delay: 60 });
  await eventually(
    () => preview()?.locator("h1").first().innerText(),
    (text) => text === "Typed, not saved yet again",
    "the heading typed on",
  );
  // The new page is read as soon as it is there, and goes back to the place once
  // it has loaded (its styles and pictures), which a busy machine may show later.
  await eventually(
    async () => Math.round(await preview().evaluate(() => document.readyState === "complete" && window.scrollY)),
    (y) => y === 1500,
    "the preview back where it was scrolled",
  );
  await page.waitForTimeout(300);
  assert.equal(Math.round(await preview().evaluate(() => window.scrollY)), 1500, "the preview stays where it was scrolled");
  // A new entry, not saved yet, has its page too.
  const fresh = await openEditor();
  await fresh.page.getByText("News", { exact: true }).first().click();
  await newEntry(fresh.page, "A studio opens in Lisbon");
  await eventually(
    () => previewsText(fresh.page),
    // With only a title, the build asks for the rest, in the file a save would write.
    (text) => /content\/pages\/news\/a-studio-opens-in-lisbon\.md:\d+:\d+/.test(text ?? "") && /description/.test(text ?? ""),
    "the new entry's draft in the preview",
  );
  assert.ok(!existsSync(path.join(site, "content/pages/news/a-studio-opens-in-lisbon.md")));
  assert.deepEqual(fresh.errors, []);
  await fresh.context.close();
  // A draft the build refuses shows the build's own message, at its field.
  await page.goto(`${server.url}/admin/#/collections/events/entries/ai-in-production-executive-briefing-london-2027`);
  const event = path.join(site, "content/pages/events/ai-in-production-executive-briefing-london-2027.md");
  const saved = readFileSync(event, "utf8");
  await eventually(() => preview()?.locator("h1").first().innerText(), (t) => Boolean(t), "the event's preview");
  await page.getByRole("textbox", { name: "End" }).fill("2027-02-04T07:30");
  await eventually(
    () => preview()?.locator("body").innerText(),
    (text) => /does not build/.test(text ?? "") && /ends \(`2027-02-04 07:30`\) before it starts/.test(text ?? ""),
    "the build's message for the draft",
  );
  assert.equal(readFileSync(event, "utf8"), saved, "nothing is written until Save");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a new entry that starts with its title (from a link with ?title=) previews its draft at once", async () => {
  const { page, context, errors } = await openEditor();
  // The preview's first render already holds the title: no keystroke follows.
  await page.goto(`${server.url}/admin/#/collections/news/new?title=${encodeURIComponent("A studio opens in Porto")}`);
  assert.equal(await page.getByRole("textbox", { name: "Title" }).inputValue(), "A studio opens in Porto");
  await eventually(
    () => previewsText(page),
    (text) => /content\/pages\/news\/a-studio-opens-in-porto\.md:\d+:\d+/.test(text ?? "") && /description/.test(text ?? ""),
    "the new entry's draft in the preview",
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test("a new entry's preview shows the draft with its title, though the answer for the draft before it came last", async () => {
  const { page, context, errors } = await openEditor();
  // The preview of the new entry before its title is slow to come, as on a busy
  // machine or a slow server: its answer arrives after the titled draft's.
  const named = (request) => request.postData()?.includes("A studio opens in Faro");
  await page.route("**/__site/preview", async (route) => {
    if (!named(route.request())) await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  const late = page.waitForResponse((r) => r.url().endsWith("/__site/preview") && !named(r.request()), { timeout: 60_000 });
  await page.getByText("News", { exact: true }).first().click();
  await newEntry(page, "A studio opens in Faro");
  const titled = (text) => /content\/pages\/news\/a-studio-opens-in-faro\.md:\d+:\d+/.test(text ?? "");
  await eventually(() => previewsText(page), titled, "the titled draft in the preview");
  await (await late).finished();
  // The untitled draft's answer has come; shown, it would be within a frame or
  // two. It changed nothing the preview shows.
  await page.waitForTimeout(500);
  assert.ok(titled(await previewsText(page)), await previewsText(page));
  assert.deepEqual(errors, []);
  await context.close();
});

test("a required field left empty is refused at the field, and the file stays", async () => {
  const { page, context, heading } = await openHome();
  const before = readFileSync(path.join(site, "content/pages/index.yaml"), "utf8");
  await heading.fill("");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText(/This field is required/).first().waitFor();
  await page.waitForTimeout(300);
  assert.equal(readFileSync(path.join(site, "content/pages/index.yaml"), "utf8"), before);
  await context.close();
});

test("an article made in the editor, with a photo, is listed, in the feed and found; deleted, it is gone", async () => {
  const { page, errors } = await sharedEditor();
  await page.getByText("Insights", { exact: true }).first().click();
  await newEntry(page, "Edge AI on the factory floor");
  await page.getByRole("textbox", { name: "Description" }).fill("Where models run beside the machines, and why plants want them there.");
  await page.getByRole("textbox", { name: "Date" }).fill("2026-11-20");
  await page.getByRole("textbox", { name: "Author" }).fill("Kenji Watanabe, Head of Manufacturing");
  await page.getByRole("textbox", { name: "Category" }).fill("Technology");
  await page.getByRole("textbox", { name: "Alt" }).fill("A production line lit in blue and amber");
  await page.getByRole("button", { name: "Browse" }).click();
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("dialog").getByRole("button", { name: "Upload" }).click();
  await (await chooser).setFiles({ name: "factory-floor.png", mimeType: "image/png", buffer: await photo(page) });
  await page.getByRole("dialog").getByRole("button", { name: "Insert" }).click();
  // The editor draws a field when it scrolls into view; the text is last.
  const body = page.getByRole("textbox", { name: "Text" });
  await page.mouse.move(300, 500);
  for (let i = 0; i < 20 && !(await body.isVisible()); i++) {
    await page.mouse.wheel(0, 1500);
    await page.waitForTimeout(100);
  }
  await body.click();
  await page.keyboard.type("Plants that run Quarrytron models beside their machines see defects sooner.");
  await page.getByRole("button", { name: "Save" }).click();

  const file = path.join(site, "content/pages/insights/edge-ai-on-the-factory-floor.md");
  const text = await eventually(() => readFileSync(file, "utf8"), (t) => t.includes("title:"), "the article's file");
  assert.match(text, /^---\ntitle: Edge AI on the factory floor\n/);
  assert.match(text, /\nimage: \/images\/factory-floor\.png\n/);
  assert.match(text, /\n---\n\nPlants that run Quarrytron models beside their machines see defects sooner\.\n$/);
  assert.ok(readFileSync(path.join(site, "public/images/factory-floor.png")).length > 1000);

  // The build encodes the photo's variants before it lists the article.
  const listing = await server.built(
    async () => (await fetch(`${server.url}/insights/`)).text(),
    (html) => html.includes("Edge AI on the factory floor"),
    `the article on /insights/ (the file: ${text})`,
  );
  assert.match(listing, /href="\/insights\/edge-ai-on-the-factory-floor\/"/);
  const article = await (await fetch(`${server.url}/insights/edge-ai-on-the-factory-floor/`)).text();
  assert.match(article, /<source[^>]+type="image\/avif"/, "the photo went through the picture pipeline");
  const feed = await (await fetch(`${server.url}/insights/feed.xml`)).text();
  assert.ok(feed.includes("Edge AI on the factory floor"));
  const { page: reader, context: readerContext } = await openPage(browser, 1280);
  const found = await server.built(
    async () => {
      await reader.goto(`${server.url}/`);
      return reader.evaluate(async () => {
        const pagefind = await import("/pagefind/pagefind.js");
        const search = await pagefind.search("quarrytron");
        return Promise.all(search.results.map(async (r) => (await r.data()).url));
      });
    },
    (urls) => urls.includes("/insights/edge-ai-on-the-factory-floor/"),
    "the article in search",
  );
  assert.deepEqual(found, ["/insights/edge-ai-on-the-factory-floor/"]);
  await readerContext.close();

  // Deleted from the collection's list.
  await page.goto(`${server.url}/admin/#/collections/insights`);
  await page.getByRole("row", { name: /Edge AI on the factory floor/ }).getByRole("checkbox").click();
  await page.getByRole("button", { name: /^Delete/ }).first().click();
  await page.getByRole("alertdialog").or(page.getByRole("dialog")).getByRole("button", { name: /^Delete$/ }).last().click();
  await eventually(() => existsSync(file), (exists) => !exists, "the article's file to go");
  await server.built(
    async () => (await fetch(`${server.url}/insights/edge-ai-on-the-factory-floor/`)).status,
    (status) => status === 404,
    "the article's page gone",
  );
  assert.ok(!(await (await fetch(`${server.url}/insights/`)).text()).includes("Edge AI on the factory floor"));
  assert.deepEqual(errors, []);
});

test("an event ending before it starts is saved as written, and the preview shows the build's own error at the field", async () => {
  const { page } = await sharedEditor();
  await page.goto(`${server.url}/admin/#/collections/events/entries/ai-in-production-executive-briefing-london-2027`);
  await page.getByRole("textbox", { name: "End" }).fill("2027-02-04T07:30");
  await page.getByRole("button", { name: "Save" }).click();
  const file = path.join(site, "content/pages/events/ai-in-production-executive-briefing-london-2027.md");
  await eventually(() => readFileSync(file, "utf8"), (t) => t.includes("\nend: 2027-02-04 07:30\n"), "the saved end");
  const preview = () => page.frames().find((f) => f.url() === "about:srcdoc");
  // Saving closes the entry; opened again, its preview says why the site did not build.
  const reopen = () => page.getByLabel("Content Library").getByText("AI in Production: Executive Briefing").click();
  await reopen();
  const shown = await eventually(
    () => preview()?.locator("body").innerText(),
    (text) => /does not build/.test(text ?? ""),
    "the build's error in the preview",
  );
  assert.match(shown, /content\/pages\/events\/ai-in-production-executive-briefing-london-2027\.md:\d+:\d+/);
  assert.match(shown, /end/);
  assert.match(shown, /ends \(`2027-02-04 07:30`\) before it starts \(`2027-02-04 08:30`\)/);
  // Put right, the page is back.
  await page.getByRole("textbox", { name: "End" }).fill("2027-02-04T12:30");
  await page.getByRole("button", { name: "Save" }).click();
  await eventually(() => readFileSync(file, "utf8"), (t) => t.includes("\nend: 2027-02-04 12:30\n"), "the end put right");
  await reopen();
  await eventually(
    () => preview()?.locator("h1").first().innerText(),
    (text) => text === "AI in Production: Executive Briefing",
    "the event's page in the preview",
  );
});
