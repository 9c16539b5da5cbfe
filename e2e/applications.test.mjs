// Applying for a job in Chromium, against `site serve`'s built-in storage and
// applications table: a real PDF (printed by Chromium itself) and a real Word
// document reach the private bucket and the table, and only the service key
// reads a CV back; a file too large or of the wrong kind is refused with a toast
// that names it, and nothing is stored; a closed posting says so.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { axeViolations, copySite, hydrated, keepPostingsOpen, launchBrowser, openPage, startServer } from "./support.mjs";

const KEY = "test-anon-key";
const SERVICE_KEY = "test-service-role-key";
const root = path.resolve(import.meta.dirname, "..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const DOCX = path.join(import.meta.dirname, "fixtures", "cv.docx");
const REMOTE = "/careers/senior-cloud-engineer-remote-europe/";
const LONDON = "/careers/security-consultant-london/";
const CLOSED = "/careers/cloud-architect-closed/";

let server;
let browser;
let files;

before(async () => {
  const site = copySite();
  keepPostingsOpen(site);
  const config = path.join(site, "content/site.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace(/anon_key: ".*"/, `anon_key: "${KEY}"`));
  // A posting whose last day was before the build's (site serve shows it, closed).
  writeFileSync(
    path.join(site, "content/pages/careers/cloud-architect-closed.md"),
    "---\ntitle: Cloud Architect\ndescription: A role that has closed.\nlocation: London\nteam: Cloud Engineering\nemployment_type: full_time\ndate_posted: 2026-10-01\nvalid_through: 2026-11-01\n---\nThis role has been filled.\n",
  );
  // Behind a proxy, as the live table is: the lost answers' tests are senders
  // of their own (X-Forwarded-For), so the rate limit counts only their sends.
  server = await startServer({ siteRoot: site, env: { SITE_SERVICE_ROLE_KEY: SERVICE_KEY }, args: ["--trust-proxy"] });
  browser = await launchBrowser();
  files = mkdtempSync(path.join(tmpdir(), "site-cv-"));
  // A real PDF, printed by the browser.
  const printer = await browser.newPage();
  await printer.setContent("<h1>Asha Patel</h1><p>Senior cloud engineer, London.</p>");
  writeFileSync(path.join(files, "Asha Patel CV.pdf"), await printer.pdf());
  await printer.close();
  // A picture renamed .pdf, an empty file, and one a byte over 10 MB.
  writeFileSync(path.join(files, "photo.pdf"), Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"));
  writeFileSync(path.join(files, "empty.docx"), Buffer.alloc(0));
  writeFileSync(path.join(files, "huge.pdf"), Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(10 * 1024 * 1024 - 8)]));
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** `site applications --json`: what site serve's table holds. */
function applications() {
  const out = execFileSync(bin, ["applications", "--json", "--root", server.root], { encoding: "utf8" });
  return out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** The keys of the applications bucket in `.site/storage/`. */
function storedCvs() {
  const bucket = path.join(server.root, ".site", "storage", "applications");
  if (!existsSync(bucket)) return [];
  return readdirSync(bucket, { recursive: true }).filter((p) => p.endsWith("~object")).map((p) => p.replace(/~object$/, "")).sort();
}

async function postingPage(route, width, init) {
  const opened = await openPage(browser, width);
  if (init) await opened.page.addInitScript(init);
  await opened.page.goto(server.url + route);
  await hydrated(opened.page);
  return opened;
}

async function fill(page, { email, country = "GB", file }) {
  await page.getByLabel(/^Full Name/).fill("Asha Patel");
  await page.getByLabel(/^Email Address/).fill(email);
  await page.getByLabel(/^Phone Number/).fill("+44 20 7946 0000");
  await page.getByLabel(/^Profile or portfolio/).fill("https://www.linkedin.com/in/asha-patel");
  await page.getByLabel(/^Country you live in/).selectOption(country);
  await page.getByLabel(/^Covering note/).fill("I have run Azure platforms for six years and would like to join your team.");
  if (file) await page.getByLabel(/^CV/).setInputFiles(file);
  await page.getByLabel(/I have read the privacy notice for applicants/).check();
}

const toast = (page) => page.locator(".toast");

describe("a candidate applies from the posting's page", () => {
  for (const [width, file, kind] of [
    [375, "Asha Patel CV.pdf", "application/pdf"],
    [1280, DOCX, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  ]) {
    test(`with a ${path.extname(file)} at ${width} px: the row and the CV are stored, and only the service key reads the CV`, async () => {
      const { page, context, problems } = await postingPage(REMOTE, width);
      const email = `asha-${width}@example.com`;
      const source = path.isAbsolute(file) ? file : path.join(files, file);
      await page.getByRole("link", { name: /^Apply/ }).first().click();
      assert.equal(new URL(page.url()).hash, "#apply");
      await fill(page, { email, country: "IE", file: source });
      const notice = page.getByRole("link", { name: /privacy notice for applicants/ });
      assert.deepEqual([await notice.getAttribute("target"), await notice.getAttribute("href")], ["_blank", "/applicant-privacy/"], "read in a new tab, the form keeps its values");
      await page.getByRole("button", { name: "Send Application" }).click();
      await page.getByRole("heading", { name: "Application Sent" }).waitFor();
      await toast(page).getByText("Application Sent").waitFor();
      // The panel that replaced the form has the focus, and so is in view.
      assert.equal(await page.evaluate(() => document.activeElement?.className), "form-sent");
      // The page scrolls to it (smoothly, so it may take a moment).
      await page.waitForFunction(() => {
        const box = document.querySelector(".form-sent")?.getBoundingClientRect();
        return box && box.top >= 0 && box.bottom <= window.innerHeight;
      });
      assert.deepEqual(problems, []);
      assert.deepEqual(await axeViolations(page), [], "the sent panel");

      const row = applications().find((r) => r.email === email);
      assert.ok(row, "the row is in .site/applications/");
      assert.equal(row.job_id, "senior-cloud-engineer-remote-europe");
      assert.equal(row.country, "IE");
      assert.equal(row.profile_url, "https://www.linkedin.com/in/asha-patel");
      assert.equal(row.privacy, true);
      assert.equal(row.page, REMOTE);
      assert.ok(row.fill_ms >= 3000);
      assert.match(row.cv_key, /^senior-cloud-engineer-remote-europe\/\d{13}_/);
      assert.ok(storedCvs().includes(row.cv_key), "the CV is in the private bucket");

      const object = `${server.url}/storage/v1/object/authenticated/applications/${row.cv_key}`;
      const asService = await fetch(object, { headers: { Authorization: `Bearer ${SERVICE_KEY}`, apikey: SERVICE_KEY } });
      assert.equal(asService.status, 200);
      assert.equal(asService.headers.get("content-type"), kind);
      assert.deepEqual(Buffer.from(await asService.arrayBuffer()), readFileSync(source), "the bytes sent");
      for (const url of [object, object.replace("/authenticated/", "/"), object.replace("/authenticated/", "/public/")]) {
        const asPublic = await fetch(url, { headers: { Authorization: `Bearer ${KEY}`, apikey: KEY } });
        assert.equal(asPublic.status, 400, url);
        const body = await asPublic.json();
        assert.ok(["NoSuchKey", "NoSuchBucket"].includes(body.code), `${url}: ${JSON.stringify(body)}`);
      }
      const readBack = await fetch(`${server.url}/rest/v1/job_applications`, { headers: { apikey: KEY, Authorization: `Bearer ${KEY}` } });
      assert.equal(readBack.status, 403, "the public cannot read the table");
      await context.close();
    });
  }

  test("a country a remote role does not take is refused at its field, naming the ones it does", async () => {
    const { page, context } = await postingPage(REMOTE, 375);
    await fill(page, { email: "far@example.com", country: "FR", file: DOCX });
    const before = applications().length;
    await page.getByRole("button", { name: "Send Application" }).click();
    await page.getByText("This role is open to people living in United Kingdom, Ireland, Netherlands only.").waitFor();
    const country = page.getByLabel(/^Country you live in/);
    assert.equal(await country.getAttribute("aria-invalid"), "true");
    assert.equal(await country.evaluate((el) => getComputedStyle(el).borderTopColor), "rgb(180, 35, 24)", "drawn as invalid");
    assert.equal(await page.evaluate(() => document.activeElement?.name), "country");
    assert.equal(applications().length, before);
    await context.close();
  });
});

describe("an application whose answers are lost", () => {
  /**
   * Loses the answers of the next `n` inserts into the table: each is made and
   * committed by site serve, then the browser is told the connection was reset.
   */
  let senders = 0;
  async function loseAnswers(page, n) {
    let left = n;
    senders++;
    const headers = (route) => ({ ...route.request().headers(), "x-forwarded-for": `198.18.1.${senders}` });
    await page.route("**/rest/v1/job_applications", async (route) => {
      if (left === 0) return route.continue({ headers: headers(route) });
      left--;
      await route.fetch({ headers: headers(route) });
      await route.abort("connectionreset");
    });
  }

  test("sent again by the visitor after the form's own retry failed too: one application, one CV, and the visitor sees it sent", async () => {
    const { page, context, problems } = await postingPage(LONDON, 1280);
    const email = `lost-${Date.now()}@example.com`;
    await fill(page, { email, file: path.join(files, "Asha Patel CV.pdf") });
    const cvs = storedCvs().length;
    await loseAnswers(page, 2);
    await page.getByRole("button", { name: "Send Application" }).click();
    await toast(page).getByText("Submission Failed").waitFor();
    assert.match(await page.locator(".toast__description").innerText(), /connection failed/);
    assert.equal(await page.getByLabel(/^Email Address/).inputValue(), email, "every value is kept");
    assert.equal(applications().filter((r) => r.email === email).length, 1, "the first attempt reached the table");
    await page.getByRole("button", { name: "Send Application" }).click();
    await page.getByRole("heading", { name: "Application Sent" }).waitFor();
    const rows = applications().filter((r) => r.email === email);
    assert.equal(rows.length, 1, "one application");
    assert.equal(storedCvs().length, cvs + 1, "one CV");
    assert.ok(storedCvs().includes(rows[0].cv_key));
    assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_RESET/.test(p)), []);
    await context.close();
  });

  test("one lost answer is retried by the form itself: one application, and the visitor sees it sent", async () => {
    const { page, context } = await postingPage(LONDON, 375);
    const email = `retried-${Date.now()}@example.com`;
    await fill(page, { email, file: DOCX });
    await loseAnswers(page, 1);
    await page.getByRole("button", { name: "Send Application" }).click();
    await page.getByRole("heading", { name: "Application Sent" }).waitFor();
    assert.equal(applications().filter((r) => r.email === email).length, 1);
    await context.close();
  });
});

describe("every posting, on a phone", () => {
  test("has its form, open until its closing moment, for its own posting", async () => {
    const openings = JSON.parse(execFileSync(bin, ["applications", "--openings", "--root", server.root], { encoding: "utf8" }));
    const open = openings.filter((o) => Date.parse(o.closes_at) > Date.now());
    assert.ok(open.length >= 7, `${open.length} open postings`);
    for (const o of open) {
      const { page, context, problems } = await postingPage(`/careers/${o.job_id}/`, 375);
      await page.getByRole("link", { name: /^Apply/ }).first().click();
      const form = page.getByRole("form", { name: "Job application" });
      assert.equal(await form.count(), 1, o.job_id);
      assert.equal(await form.getByRole("button", { name: "Send Application" }).isEnabled(), true, o.job_id);
      if (o.applicants_from.length) assert.match(await page.locator("#apply-country-hint").innerText(), /open to people living in/);
      assert.deepEqual(problems, [], o.job_id);
      await context.close();
    }
  });

  test("Send pressed while the chosen CV is still being read sends it once it is read", async () => {
    // Reading a file's bytes is asynchronous, and a busy machine can take a
    // while: here every read takes 1.5 s, so Send comes before the check ends.
    const { page, context, problems } = await postingPage(LONDON, 375, () => {
      const read = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () {
        return new Promise((resolve) => setTimeout(resolve, 1500)).then(() => read.call(this));
      };
    });
    await fill(page, { email: "quick@example.com", file: DOCX });
    const rows = applications().length;
    await page.getByRole("button", { name: "Send Application" }).click();
    await page.getByRole("heading", { name: "Application Sent" }).waitFor();
    assert.equal(await page.locator("#apply-cv-error").count(), 0, "never told to attach the CV it had");
    const all = applications();
    assert.equal(all.length, rows + 1, "one row");
    const row = all.find((r) => r.email === "quick@example.com");
    assert.ok(row && storedCvs().includes(row.cv_key), "its row, with its CV stored");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a refused application gets the failure toast with the server's words, and every value stays", async () => {
    const { page, context } = await postingPage(LONDON, 375);
    // The table refuses this one (as a rate limit would).
    await page.route("**/rest/v1/job_applications", (route) =>
      route.fulfill({ status: 429, contentType: "application/json", body: JSON.stringify({ code: "PT429", message: "Too many applications have been sent from your network in the last hour. Please try again later." }) }),
    );
    await fill(page, { email: "kept@example.com", file: DOCX });
    const rows = applications().length;
    await page.getByRole("button", { name: "Send Application" }).click();
    await toast(page).getByText("Submission Failed").waitFor();
    await toast(page).getByText("Too many applications have been sent from your network").waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent?.includes("Send Application"));
    assert.equal(await page.getByLabel(/^Email Address/).inputValue(), "kept@example.com");
    assert.equal(await page.getByLabel(/^Country you live in/).inputValue(), "GB");
    assert.match(await page.locator(".application-form .attachment").innerText(), /cv\.docx/, "the CV stays chosen");
    assert.equal(await page.getByRole("button", { name: "Send Application" }).isEnabled(), true);
    // Sent again once the table takes it: the CV stored the first time is used, not stored twice.
    const cvs = storedCvs().length;
    await page.unroute("**/rest/v1/job_applications");
    await page.getByRole("button", { name: "Send Application" }).click();
    await page.getByRole("heading", { name: "Application Sent" }).waitFor();
    assert.equal(applications().length, rows + 1);
    assert.equal(storedCvs().length, cvs, "no second copy of the CV");
    await context.close();
  });
});

describe("a file that is not a CV", () => {
  for (const [name, title, text] of [
    ["photo.pdf", "Invalid file type", "“photo.pdf” is not a PDF or Word document."],
    ["huge.pdf", "File too large", "“huge.pdf” is larger than 10 MB."],
    ["empty.docx", "Empty file", "“empty.docx” is empty."],
  ]) {
    test(`${name}: a toast names it, the form keeps its values, and nothing is stored`, async () => {
      const { page, context } = await postingPage(LONDON, 1280);
      const before = { rows: applications().length, cvs: storedCvs().length };
      await fill(page, { email: "files@example.com", file: path.join(files, name) });
      await toast(page).getByText(title).waitFor();
      await toast(page).getByText(text, { exact: false }).waitFor();
      assert.equal(await page.getByLabel(/^CV/).inputValue(), "", "the selection is cleared");
      assert.match(await page.locator("#apply-cv-error").innerText(), new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), "the reason stays at the field");
      assert.equal(await page.getByLabel(/^Email Address/).inputValue(), "files@example.com");
      assert.equal(await page.getByLabel(/^Covering note/).inputValue(), "I have run Azure platforms for six years and would like to join your team.");
      await page.getByRole("button", { name: "Send Application" }).click();
      assert.equal(await page.evaluate(() => document.activeElement?.name), "cv", "Send leads to the CV field");
      assert.deepEqual({ rows: applications().length, cvs: storedCvs().length }, before);
      await context.close();
    });
  }
});

describe("a closed posting", () => {
  test("shows that it is closed, and its table refuses an application", async () => {
    const { page, context } = await postingPage(CLOSED, 375);
    await page.getByRole("heading", { name: "This posting is closed" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Send Application" }).count(), 0);
    assert.equal(await page.getByRole("link", { name: /^Apply/ }).count(), 0, "no Apply");
    await context.close();
    // Without JavaScript too: the server's HTML says it.
    const still = await openPage(browser, 375, { javaScript: false });
    await still.page.goto(server.url + CLOSED);
    assert.equal(await still.page.getByRole("heading", { name: "This posting is closed" }).isVisible(), true);
    assert.equal(await still.page.locator("noscript").filter({ hasText: "cannot send" }).count(), 0);
    await still.context.close();
    // Its folder takes no CV from the public; and even with a CV stored (as
    // one uploaded before it closed), the row is refused.
    const key = "cloud-architect-closed/1763800000000_cv.pdf";
    const upload = (as) => {
      const form = new FormData();
      form.append("cacheControl", "0");
      form.append("", new Blob([readFileSync(path.join(files, "Asha Patel CV.pdf"))], { type: "application/pdf" }));
      return fetch(`${server.url}/storage/v1/object/applications/${key}`, { method: "POST", headers: { Authorization: `Bearer ${as}`, apikey: as }, body: form });
    };
    const byPublic = await upload(KEY);
    assert.equal((await byPublic.json()).message, "new row violates row-level security policy");
    assert.equal((await upload(SERVICE_KEY)).status, 200);
    const refused = await fetch(`${server.url}/rest/v1/job_applications`, {
      method: "POST",
      headers: { apikey: KEY, Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ job_id: "cloud-architect-closed", name: "A", email: "a@example.com", phone: "1", country: "GB", note: "n", cv_key: key, privacy: true, page: CLOSED, fill_ms: 9000 }),
    });
    assert.equal(refused.status, 410);
    assert.equal((await refused.json()).message, "This posting is closed: applications are no longer accepted.");
  });
});
