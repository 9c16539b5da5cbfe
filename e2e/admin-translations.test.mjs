// Translating in the content editor at /admin/ on `site serve`, driven in
// Chromium as a translator would: About's English beside its German, a German
// field edited and saved (that one line of about.de.yaml changes, nothing of
// about.yaml), an article's missing Arabic translation made from the editor
// and served at /ar/…, and an English change that makes both translations
// stale (site check names them and the field, the German preview says so in
// the build's words) until the German page is saved again. The editor asks no
// host but the site itself.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { launchBrowser, copySite, openPage, signInLocally, startServer } from "./support.mjs";

let server;
let browser;
let site;

const bin = path.resolve(import.meta.dirname, "..", process.env.SITE_BIN ?? "target/debug/site");
const git = (...args) => execFileSync("git", ["-C", site, ...args], { encoding: "utf8" });
const commit = (message) => {
  git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "add", "-A");
  git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "commit", "-qm", message);
};
const read = (file) => readFileSync(path.join(site, file), "utf8");

/** What `site check` says of the site as `site serve` last built it. */
/** `site check` of the served output, once the build under way has written all of it. */
async function check() {
  await server.settled();
  const run = spawnSync(bin, ["check", "--root", site, "--out", server.out], { encoding: "utf8" });
  return run.stdout + run.stderr;
}

/** The stale translations `site check` lists, as "file: fields". */
const staleIn = (report) => [...report.matchAll(/^ {2}stale: (\S+) \(from \S+\): its words changed since in (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);

before(async () => {
  site = copySite();
  git("init", "-q");
  // What site serve keeps (caches, the search index) is no content.
  writeFileSync(path.join(site, ".git/info/exclude"), ".site/\n");
  // Every translation records its source as it is now, as a translator who
  // checked them all would have it (`site translations --mark-current --all`).
  execFileSync(bin, ["translations", "--root", site, "--mark-current", "--all"], { encoding: "utf8" });
  // German lacks one of the words of every page.
  const words = path.join(site, "content/strings/de.yaml");
  writeFileSync(words, readFileSync(words, "utf8").replace(/^ {2}updated: .*\n/m, ""));
  commit("site");
  server = await startServer({ siteRoot: site });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The editor, signed in to the site's folder, at the entry `hash` names, its form drawn; every host it asks, and what it reports. */
async function openEditor(hash) {
  const { page, context, problems } = await openPage(browser, 1400);
  const hosts = new Set();
  page.on("request", (r) => hosts.add(new URL(r.url()).origin));
  await page.goto(`${server.url}/admin/${hash}`);
  await signInLocally(page, page.getByRole("textbox").and(page.locator("[lang]")).first());
  return { page, context, problems, hosts };
}

/**
 * The file's editor at `hash`: signed in once, then going from entry to entry in
 * one tab, as a translator does (opening the editor costs about five times the
 * processor time of going to an entry). Its tests leave their entry saved or
 * unchanged. `problems` are those since this call.
 */
let shared;
async function editorAt(hash) {
  if (!shared) {
    shared = await openEditor(hash);
    return shared;
  }
  shared.problems.length = 0;
  // Through the entry's collection, so that the entry's form is made afresh.
  await shared.page.goto(`${server.url}/admin/${hash.replace(/\/entries\/.*$/, "")}`);
  await shared.page.goto(`${server.url}/admin/${hash}`);
  return shared;
}

/** An editor's pane's language buttons are named by the editor: "German", "Arabic". The right pane's: */
const pane = (page, name) => page.getByText(name, { exact: true }).last();
/** The left pane's, whose language the preview in the right pane shows. */
const leftPane = (page, name) =>
  page.getByRole("radiogroup", { name: "Switch Locale" }).first().getByRole("radio", { name, exact: true });
/** A field of the form in one language. */
const field = (page, name, lang) => page.getByRole("textbox", { name }).and(page.locator(`[lang=${lang}]`));

/** Saves the entry and waits for the editor to say it is saved (every file is written by then). */
async function save(page) {
  // The last save's notice is gone first: it would answer for this one.
  await page.getByText("Entry saved.").waitFor({ state: "hidden" });
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Entry saved.").waitFor();
}

test("About in the editor shows the English beside the German", async () => {
  const { page, problems, hosts } = await editorAt("#/collections/pages/entries/about");
  const english = field(page, "Title", "en");
  await english.waitFor();
  await pane(page, "German").click();
  const german = field(page, "Title", "de");
  await german.waitFor();
  assert.equal(await english.inputValue(), "About us");
  assert.equal(await german.inputValue(), "Über uns");
  const [left, right] = [await english.boundingBox(), await german.boundingBox()];
  assert.ok(left.x + left.width <= right.x, `side by side: ${JSON.stringify({ left, right })}`);
  assert.ok(Math.abs(left.y - right.y) < 100, "at the same height");
  // The German form says its record is current: the source has not changed since.
  await page.getByText("Up to date with the English page.").waitFor();
  assert.deepEqual([...hosts], [server.url]);
  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);
});

test("a German field edited and saved changes that one line of about.de.yaml, and nothing of about.yaml", async () => {
  const { page, problems } = await editorAt("#/collections/pages/entries/about");
  await field(page, "Title", "en").waitFor();
  await pane(page, "German").click();
  await field(page, "Title", "de").fill("Über Meridian Digital");
  await save(page);
  // The record stays as it was: English has not changed since it was made.
  assert.equal(git("diff", "--numstat").trim(), "1\t1\tcontent/pages/about.de.yaml");
  assert.match(git("diff", "-U0"), /\n-title: Über uns\n\+title: Über Meridian Digital\n/);
  const html = await server.built(
    async () => (await fetch(`${server.url}/de/about/`)).text(),
    (text) => text.includes("<title>Über Meridian Digital"),
    "the German page with its new title",
  );
  assert.ok(!html.includes('class="stale-notice"'));
  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);
  commit("German title");
});

test("an article's missing Arabic translation, made in the editor, is <slug>.ar.md from the English, and /ar/ serves it", async () => {
  const slug = "supply-chains-that-bend";
  const file = `content/pages/insights/${slug}.ar.md`;
  // This site translates every article into Arabic: this one is not yet.
  rmSync(path.join(site, file));
  commit(`${slug} not yet in Arabic`);
  assert.ok(!existsSync(path.join(site, file)));
  // An editor of its own: the file's was signed in before the file was taken away.
  const { page, context, problems } = await openEditor(`#/collections/insights/entries/${slug}`);
  await field(page, "Title", "en").waitFor();
  await pane(page, "Arabic").click();
  // The editor names the language between isolating marks: "Enable ⁨Arabic⁩".
  await page.getByRole("button", { name: /^Enable \u2068?Arabic\u2069?$/ }).click();
  await field(page, "Title", "ar").fill("سلاسل إمداد تنثني ولا تنكسر");
  await save(page);
  const text = read(file);
  const english = read(`content/pages/insights/${slug}.md`);
  assert.match(text, /^---\ntitle: سلاسل إمداد تنثني ولا تنكسر\n/);
  // Every other field starts as the English, line for line, with the record of the English at the end.
  const head = (t) => t.split("\n---\n")[0].split("\n").slice(2);
  const rest = head(text);
  const at = rest.indexOf("translated_from:");
  assert.ok(at > 0, text);
  assert.deepEqual(rest.slice(0, at), head(english));
  assert.equal(text.split("\n---\n").slice(1).join("\n---\n"), english.split("\n---\n").slice(1).join("\n---\n"), "the text starts as the English");
  assert.equal(git("status", "--porcelain").trim(), `?? ${file}`, "no other file changed");
  const html = await server.built(
    async () => {
      const response = await fetch(`${server.url}/ar/insights/${slug}/`);
      return response.ok ? response.text() : `${response.status}`;
    },
    (t) => t.includes("سلاسل إمداد تنثني ولا تنكسر"),
    "the Arabic article at /ar/",
  );
  assert.match(html, /<html[^>]* lang="ar"[^>]* dir="rtl"|<html[^>]* dir="rtl"[^>]* lang="ar"/);
  assert.ok(!html.includes('class="stale-notice"'), "a translation just made is current");
  // Saving an entry that still lacks one of the languages (German) closes the editor without an error.
  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);
  commit("Arabic article");
  await context.close();
});

test("an English change makes German and Arabic stale, which the German preview says; saving German clears it for German alone", async () => {
  let { page, problems } = await editorAt("#/collections/pages/entries/about");
  await field(page, "Title", "en").fill("About Meridian Digital");
  await save(page);
  assert.equal(git("diff", "--numstat").trim(), "1\t1\tcontent/pages/about.yaml");
  await server.built(
    async () => (await fetch(`${server.url}/de/about/`)).text(),
    (html) => html.includes('class="stale-notice"'),
    "the German page's stale notice",
  );
  assert.deepEqual(staleIn(await check()).filter((s) => s.startsWith("content/pages/about.")), [
    "content/pages/about.de.yaml: title",
    "content/pages/about.ar.yaml: title",
  ]);

  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);

  // The German preview shows the page's notice, and what the build says of it in its own words.
  ({ page, problems } = await editorAt("#/collections/pages/entries/about"));
  await field(page, "Title", "en").waitFor();
  // The preview in the right pane shows the language of the form on the left.
  await pane(page, "Preview").click();
  await leftPane(page, "German").click();
  await field(page, "Title", "de").waitFor();
  // The editor's preview pane is a frame of its own, and the page a frame in it.
  const preview = page.frameLocator('iframe[title="Content Preview"]').frameLocator('iframe[title="Page preview"]');
  await preview.locator(".stale-notice").waitFor({ state: "attached" });
  const said = await preview.locator("[data-build-warnings]").innerText();
  assert.match(
    said,
    /content\/pages\/about\.de\.yaml.*this translation is older than content\/pages\/about\.yaml: its words changed since the translation was last checked, in `title`/s,
  );
  // The form says so too, naming the field.
  await page.getByText(/Older than the English page: .* in `title`/).waitFor();

  // The translator brings German up to date and saves it: German is current, Arabic still stale.
  await field(page, "Title", "de").fill("Über Meridian Digital, seit 2021");
  await save(page);
  assert.deepEqual(git("diff", "--name-only").trim().split("\n"), ["content/pages/about.de.yaml", "content/pages/about.yaml"]);
  const german = git("diff", "-U0", "content/pages/about.de.yaml");
  // The title and the record's one line of it.
  assert.match(german, /\n-title: Über Meridian Digital\n\+title: Über Meridian Digital, seit 2021\n/);
  assert.match(german, /\n- {2}title: "[0-9a-f]{8}"\n\+ {2}title: "[0-9a-f]{8}"\n/);
  assert.equal(git("diff", "--numstat", "content/pages/about.de.yaml").trim(), "2\t2\tcontent/pages/about.de.yaml");
  await server.built(
    async () => (await fetch(`${server.url}/de/about/`)).text(),
    (html) => html.includes("Über Meridian Digital, seit 2021") && !html.includes('class="stale-notice"'),
    "the German page, current",
  );
  assert.ok((await (await fetch(`${server.url}/ar/about/`)).text()).includes('class="stale-notice"'), "Arabic is still stale");
  assert.deepEqual(staleIn(await check()).filter((s) => s.startsWith("content/pages/about.")), ["content/pages/about.ar.yaml: title"]);
  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);
  commit("English title, and the German brought up to date");
});

test("the words files are one form per language, the English beside each, a key a language lacks shown empty", async () => {
  // An editor of its own: the file's shows the preview and German, as the test before left it.
  const { page, context, problems } = await openEditor("#/collections/strings/entries/words");
  await field(page, "Skip", "en").waitFor();
  await pane(page, "German").click();
  assert.equal(await field(page, "Skip", "en").inputValue(), "Skip to content");
  assert.equal(await field(page, "Skip", "de").inputValue(), "Zum Inhalt springen");
  // Each key says the English words, in every language's form.
  assert.equal(await page.getByText("English: “Skip to content”. Left empty in a translation, the English words show.").count(), 2);
  // A key German leaves out (`page.updated`, taken out of de.yaml above) is an empty field of its form.
  assert.equal(await field(page, "Updated", "en").inputValue(), "Updated");
  assert.equal(await field(page, "Updated", "de").inputValue(), "");
  await field(page, "Skip", "de").fill("Direkt zum Inhalt");
  await save(page);
  assert.equal(git("diff", "--numstat").trim(), "1\t1\tcontent/strings/de.yaml");
  assert.match(git("diff", "-U0"), /\n- {2}skip: Zum Inhalt springen\n\+ {2}skip: Direkt zum Inhalt\n/);
  assert.deepEqual(problems.filter((p) => p.startsWith("console error") || p.startsWith("page error")), []);
  commit("German words");
  await context.close();
});

test("under site serve the editor asks no host but the site, and without a network says nothing is wrong", async () => {
  const { page, context } = await openPage(browser, 1400);
  const elsewhere = [];
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  // No network beyond the site: every other host is out of reach, as offline.
  await context.route(
    (url) => url.origin !== server.url,
    (route) => {
      elsewhere.push(route.request().url());
      return route.abort("internetdisconnected");
    },
  );
  await page.goto(`${server.url}/admin/`);
  const about = page.getByText(/^About Meridian Digital/).first();
  await signInLocally(page, about);
  await page.getByText("Pages", { exact: true }).first().click();
  await about.click();
  await field(page, "Title", "en").waitFor();
  await page.frameLocator('iframe[title="Content Preview"]').locator('iframe[title="Page preview"]').waitFor();
  // The words files, one form per language.
  await page.goto(`${server.url}/admin/#/collections/strings/entries/words`);
  await page.getByRole("textbox", { name: "Skip" }).first().waitFor();
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(errors, []);
  const csp = (await fetch(`${server.url}/admin/`)).headers.get("content-security-policy");
  assert.match(csp, /connect-src 'self' data: blob:;/);
  assert.ok(!csp.includes("githubstatus"), csp);
  await context.close();
});
