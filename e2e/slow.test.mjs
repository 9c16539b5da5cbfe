// A visitor on a slow connection, in Chromium: every script arrives seconds after
// the page, so the visitor types into the server's HTML first. Nothing typed or
// chosen before hydration is lost after it; until the form can send, neither
// Enter nor Send sends the fields anywhere (no field's value in the address);
// with JavaScript off the form says why it cannot send and how else to reach the
// firm. Each step's field values and address are written out as the test runs.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { axeViolationsWithoutJavaScript, hydrated, launchBrowser, ON_BUILD_DAY, openPage, startServer } from "./support.mjs";

const SCRIPT_DELAY_MS = 4000;
const GIF = Buffer.from("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b", "hex");

const TYPED = {
  name: "Asha Patel",
  email: "asha@example.com",
  phone: "+91 98765 43210",
  company: "Northbridge Bank",
  subject: "Core banking modernisation",
  message: "We would like to discuss a programme starting next year.",
};
const LABELS = { name: /^Full Name/, email: /^Email Address/, phone: /^Phone Number/, company: /^Company Name/, subject: /^Subject/, message: /^Message/ };
const AGREE = "I agree to the Privacy Policy and consent to being contacted";

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

/** Holds every script (or those matching `only`) back `ms` before it is served. */
async function delayScripts(page, ms = SCRIPT_DELAY_MS, only = /\.m?js$/) {
  await page.route(
    (url) => only.test(url.pathname),
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      await route.continue().catch(() => {});
    },
  );
}

/** The form as the visitor sees it: each field's value, the box, the file, the address. */
async function seen(page) {
  const form = await page.evaluate(() => {
    const get = (name) => document.querySelector(`.contact-form [name="${name}"]`);
    const fields = Object.fromEntries(["name", "email", "phone", "company", "subject", "message"].map((n) => [n, get(n)?.value ?? null]));
    return { ...fields, agree: get("agree")?.checked ?? null, file: get("attachment")?.files[0]?.name ?? "", hydrated: document.querySelector('[data-island="ContactForm"]')?.hasAttribute("data-hydrated") ?? false };
  });
  return { ...form, address: new URL(page.url()).pathname + new URL(page.url()).search };
}

function report(t, step, state) {
  t.diagnostic(`${step}: ${JSON.stringify(state)}`);
}

async function typeEverything(page, file) {
  for (const [key, value] of Object.entries(TYPED)) await page.getByLabel(LABELS[key]).fill(value);
  await page.getByLabel(AGREE).check();
  if (file) await page.getByLabel(/Image Attachment/).setInputFiles(file);
}

describe("typed before the contact form hydrates", () => {
  test("every value and the chosen file survive hydration, and Send works in one click", async (t) => {
    const { page, context, problems } = await openPage(browser, 375);
    const logs = [];
    page.on("console", (m) => logs.push(m.text()));
    await delayScripts(page);
    await page.goto(server.url + "/contact/", { waitUntil: "domcontentloaded" });
    await typeEverything(page, { name: "plan.gif", mimeType: "image/gif", buffer: GIF });
    const before = await seen(page);
    report(t, "typed, scripts held back", before);
    assert.equal(before.hydrated, false, "the visitor typed before hydration");
    await hydrated(page);
    await page.waitForSelector(".contact-form__submit:not([disabled])");
    const after = await seen(page);
    report(t, "hydrated", after);
    assert.deepEqual({ ...after, hydrated: true }, { ...before, hydrated: true });
    assert.match(await page.locator(".attachment").innerText(), /plan\.gif/, "the chosen file is shown as attached");
    await page.getByRole("button", { name: "Send Message" }).click();
    await page.locator(".form-sent").waitFor();
    const line = logs.find((l) => l.startsWith("Contact form submission: "));
    assert.ok(line, logs.join("\n"));
    const sent = JSON.parse(line.slice("Contact form submission: ".length));
    report(t, "sent", { ...sent, address: new URL(page.url()).pathname + new URL(page.url()).search });
    assert.deepEqual({ ...sent, attachmentUrl: undefined }, { ...TYPED, agree: true, attachmentUrl: undefined });
    assert.match(sent.attachmentUrl, /\/public\/\d+_[0-9a-f]{32}_plan\.gif$/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a file of the wrong type chosen before hydration gets the toast, and the rest is kept", async () => {
    const { page, context, problems } = await openPage(browser, 1280);
    await delayScripts(page, 2000);
    await page.goto(server.url + "/contact/", { waitUntil: "domcontentloaded" });
    await typeEverything(page, { name: "brief.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\n") });
    await hydrated(page);
    await page.locator(".toast").waitFor();
    assert.equal(await page.locator(".toast__title").innerText(), "Invalid file type");
    const after = await seen(page);
    assert.equal(after.file, "", "the refused file is no longer chosen");
    assert.deepEqual({ ...after, file: undefined, hydrated: undefined, address: undefined }, { ...TYPED, agree: true, file: undefined, hydrated: undefined, address: undefined });
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("before the form can send, nothing is sent", () => {
  for (const javaScript of [false, true]) {
    test(javaScript ? "scripts held back: Enter and Send leave the address without a field's value" : "JavaScript off: Enter and Send leave the address without a field's value, and the form says why", async (t) => {
      const { page, context, problems } = await openPage(browser, 375, { javaScript });
      if (javaScript) await delayScripts(page);
      await page.goto(server.url + "/contact/", { waitUntil: "domcontentloaded" });
      await typeEverything(page);
      report(t, "typed", await seen(page));
      const send = page.locator(".contact-form__submit");
      assert.equal(await send.isDisabled(), true, "Send is inert");
      await page.getByLabel(LABELS.subject).press("Enter");
      await page.waitForTimeout(300);
      report(t, "Enter in Subject", await seen(page));
      await send.click({ force: true });
      await page.waitForTimeout(300);
      const state = await seen(page);
      report(t, "Send clicked", state);
      assert.equal(state.address, "/contact/");
      assert.equal(state.hydrated, false, "all of it happened before hydration");
      for (const value of Object.values(TYPED)) assert.ok(!page.url().includes(encodeURIComponent(value).slice(0, 8)), page.url());
      assert.deepEqual({ ...state, address: undefined, hydrated: undefined, file: undefined }, { ...TYPED, agree: true, address: undefined, hydrated: undefined, file: undefined }, "nothing typed is lost");
      if (!javaScript) {
        const note = page.locator(".contact__noscript");
        assert.equal(await note.isVisible(), true);
        const text = await note.innerText();
        assert.match(text, /cannot send without JavaScript/);
        assert.match(text, /hello@meridiandigital\.example/);
        assert.match(text, /\+91 40 4520 8800/);
        const [noteBox, sendBox] = [await note.boundingBox(), await send.boundingBox()];
        assert.ok(noteBox.y >= sendBox.y + sendBox.height && noteBox.y - (sendBox.y + sendBox.height) < 80, "the reason is right under Send");
        assert.deepEqual(await axeViolationsWithoutJavaScript(browser, server.url + "/contact/", 375), []);
      } else {
        assert.equal(await page.locator(".contact__noscript").isVisible(), false, "with JavaScript on, the note is not shown");
      }
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});

describe("typed before the application form hydrates", () => {
  const POSTING = "/careers/senior-data-engineer-hyderabad/";
  const APPLIED = { name: "Asha Patel", email: "asha@example.com", phone: "+91 98765 43210", profile: "https://github.com/asha", country: "IN", note: "I built the data platform of a bank." };
  const LABELLED = { name: /^Full Name/, email: /^Email Address/, phone: /^Phone Number/, profile: /^Profile or portfolio/, note: /^Covering note/ };
  const form = (page) =>
    page.evaluate(() => {
      const get = (name) => document.querySelector(`.application-form [name="${name}"]`);
      const fields = Object.fromEntries(["name", "email", "phone", "profile", "country", "note"].map((n) => [n, get(n)?.value ?? null]));
      return { ...fields, agree: get("agree")?.checked ?? null, hydrated: document.querySelector('[data-island="ApplicationForm"]')?.hasAttribute("data-hydrated") ?? false };
    });

  test("every value and the chosen CV survive hydration; Enter before it sends nothing anywhere", async (t) => {
    const { page, context, problems } = await openPage(browser, 375, { at: ON_BUILD_DAY });
    await delayScripts(page);
    await page.goto(server.url + POSTING, { waitUntil: "domcontentloaded" });
    for (const [key, label] of Object.entries(LABELLED)) await page.getByLabel(label).fill(APPLIED[key]);
    await page.getByLabel(/^Country you live in/).selectOption(APPLIED.country);
    await page.getByLabel(/^CV/).setInputFiles({ name: "cv.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\n%%EOF\n") });
    await page.getByLabel(/I have read the privacy notice for applicants/).check();
    await page.getByLabel(LABELLED.phone).press("Enter");
    const before = await form(page);
    report(t, "typed, Enter pressed, scripts held back", { ...before, address: page.url() });
    assert.equal(before.hydrated, false);
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, POSTING, "nothing in the address");
    await hydrated(page);
    await page.waitForSelector(".application-form .contact-form__submit:not([disabled])");
    const after = await form(page);
    report(t, "hydrated", after);
    assert.deepEqual({ ...after, hydrated: true }, { ...before, hydrated: true });
    assert.deepEqual({ ...after, hydrated: undefined, agree: undefined }, { ...APPLIED, hydrated: undefined, agree: undefined });
    assert.match(await page.locator(".application-form .attachment").innerText(), /cv\.pdf/, "the CV chosen before hydration is checked and attached");
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("other islands with an input", () => {
  test("keys typed while the search's code loads become its query", async (t) => {
    const { page, context, problems } = await openPage(browser, 1280);
    await page.goto(server.url + "/services/");
    await hydrated(page);
    await delayScripts(page, 2500, /SearchDialog/);
    await page.getByRole("button", { name: "Search" }).first().click();
    await page.keyboard.type("clouf");
    await page.keyboard.press("Backspace");
    assert.equal(await page.getByRole("dialog").count(), 0, "typed before the dialog came");
    const field = page.getByRole("searchbox", { name: "Search the site" });
    await field.waitFor();
    t.diagnostic(`the field holds ${JSON.stringify(await field.inputValue())}`);
    assert.equal(await field.inputValue(), "clou");
    await page.waitForFunction(() => /pages? found for “clou”/.test(document.querySelector(".search-dialog__summary")?.textContent ?? ""));
    await page.keyboard.type("d");
    assert.equal(await field.inputValue(), "cloud", "the field has focus, caret at the end");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the menu opened before hydration stays open, and Escape closes it", async () => {
    const { page, context, problems } = await openPage(browser, 375);
    await delayScripts(page, 2000);
    await page.goto(server.url + "/", { waitUntil: "domcontentloaded" });
    await page.locator(".site-header__toggle").click();
    assert.equal(await page.locator(".site-header__menu").evaluate((el) => el.open), true);
    await hydrated(page);
    await page.waitForTimeout(100);
    assert.equal(await page.locator(".site-header__menu").evaluate((el) => el.open), true, "still open");
    assert.equal(await page.locator(".site-header[data-open]").count(), 1, "and known to be open");
    await page.keyboard.press("Escape");
    assert.equal(await page.locator(".site-header__menu").evaluate((el) => el.open), false);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
