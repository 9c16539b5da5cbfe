// The content editor at /admin/ on `site serve`, driven in Chromium as an editor
// would: work in the site's folder, change Home's hero heading and save. The
// file changes in that one line (git says so), the page serves the new heading
// after the rebuild, and a required field left empty is refused at the field.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { copySite, launchBrowser, openPage, startServer } from "./support.mjs";

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

/** The editor, signed in to the site's folder, on Home. */
async function openHome() {
  const { page, context } = await openPage(browser, 1280);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}/admin/`);
  await page.getByRole("button", { name: /Work with Local Repository/ }).click();
  await page.getByText("Digital services and consulting for the enterprise").click();
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
  assert.match(csp, /connect-src 'self' data: blob: https:\/\/api\.github\.com/);
  const home = await fetch(`${server.url}/`);
  assert.match(home.headers.get("content-security-policy"), /style-src 'self';/, "the site's own policy is unchanged");
  const sitemap = await (await fetch(`${server.url}/sitemap.xml`)).text();
  assert.ok(!sitemap.includes("/admin/"));
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
});

test("editing Home's hero heading changes that one line, and the page shows it", async () => {
  const { page, context, heading, errors } = await openHome();
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
  let html = "";
  for (let i = 0; i < 100 && !html.includes("Digital services for what comes next"); i++) {
    html = await (await fetch(`${server.url}/`)).text();
    if (!html.includes("Digital services for what comes next")) await page.waitForTimeout(100);
  }
  assert.match(html, /<h1[^>]*>Digital services for what comes next<\/h1>/);
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
