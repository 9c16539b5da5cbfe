// The interactive parts in Chromium against `site serve`: the contact form with a
// real upload to the built-in storage, its validation, states and failures; the
// toasts; the role selector; the contact hero's scroll link.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { axeViolations, copySite, fillContactForm, hydrated, launchBrowser, openPage, startServer } from "./support.mjs";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d5d3a1a10000000049454e44ae426082",
  "hex",
);

let server;
let browser;

before(async () => {
  server = await startServer({ siteRoot: copySite() });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function contactPage(width = 1280) {
  const opened = await openPage(browser, width);
  const { page } = opened;
  opened.logs = [];
  page.on("console", (m) => opened.logs.push(m.text()));
  await page.goto(server.url + "/contact/");
  await hydrated(page);
  await page.waitForSelector(".contact-form__submit:not([disabled])");
  return opened;
}

const fill = fillContactForm;

const toast = (page) => page.locator(".toast");

async function expectToast(page, title, description, variant) {
  await toast(page).waitFor();
  assert.equal(await page.locator(".toast__title").innerText(), title);
  if (description !== undefined) assert.equal(await page.locator(".toast__description").innerText(), description);
  if (variant) assert.match(await toast(page).getAttribute("class"), new RegExp(`toast--${variant}`));
}

/** Problems other than the ones a deliberate failure causes. */
const unexpected = (problems) => problems.filter((p) => !/status of 4\d\d|HTTP 4\d\d|storage\/v1|ERR_FAILED|ERR_CONNECTION_REFUSED|Failed to fetch/.test(p));

/** The names of the page's endless animations that are running: each has the page drawn again on every frame. */
const endlessAnimations = (page) =>
  page.evaluate(() =>
    document
      .getAnimations()
      .filter((a) => a.playState === "running" && a.effect.getComputedTiming().iterations === Infinity)
      .map((a) => a.animationName),
  );

describe("the contact form", () => {
  test("has the spec's fields and labels, and reports the storage client at start", async () => {
    const { page, context, problems, logs } = await contactPage();
    assert.equal(await page.getByLabel(/^Email Address/).getAttribute("type"), "email");
    assert.equal(await page.getByLabel(/^Phone Number/).getAttribute("type"), "tel");
    assert.equal(await page.getByLabel("Image Attachment (Optional, JPG/PNG/GIF, max 5MB)").getAttribute("type"), "file");
    for (const label of ["Full Name", "Email Address", "Subject", "Message"]) {
      assert.equal(await page.getByLabel(new RegExp(`^${label}`)).getAttribute("required"), "", `${label} is required`);
    }
    for (const label of ["Phone Number", "Company Name"]) {
      assert.equal(await page.getByLabel(new RegExp(`^${label}`)).getAttribute("required"), null, `${label} is optional`);
    }
    assert.ok(logs.some((l) => /^Storage client ready: http:\/\/127\.0\.0\.1:\d+\/storage\/v1/.test(l)), logs.join("\n"));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("enforces the required fields with accessible messages before sending anything", async () => {
    const { page, context, problems, logs } = await contactPage(375);
    await page.getByRole("button", { name: "Send Message" }).click();
    for (const label of ["Full Name", "Email Address", "Subject", "Message"]) {
      const input = page.getByLabel(new RegExp(`^${label}`));
      assert.equal(await input.getAttribute("aria-invalid"), "true", label);
      const described = await input.getAttribute("aria-describedby");
      assert.ok((await page.locator(`#${described}`).innerText()).length > 5, label);
    }
    assert.equal(await page.evaluate(() => document.activeElement.id), "contact-name", "focus goes to the first problem");
    await page.getByLabel(/^Full Name/).fill("Asha");
    await page.getByLabel(/^Email Address/).fill("not-an-email");
    await page.getByRole("button", { name: "Send Message" }).click();
    assert.match(await page.locator("#contact-email-error").innerText(), /valid email/);
    assert.equal(await page.getByLabel(/^Full Name/).getAttribute("aria-invalid"), "false");
    assert.deepEqual(await axeViolations(page), []);
    assert.ok(!logs.some((l) => l.startsWith("Contact form submission")));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("uploads the image, waits 1.5 s, logs the message with its URL, and confirms", async () => {
    const { page, context, problems, logs } = await contactPage();
    await fill(page, { file: { name: "Site plan (v2).png", mimeType: "image/png", buffer: PNG } });
    assert.match(await page.locator(".attachment").innerText(), /Site plan \(v2\)\.png/);
    const started = Date.now();
    await page.getByRole("button", { name: "Send Message" }).click();
    const button = page.locator(".contact-form__submit");
    await page.waitForFunction(() => document.querySelector(".contact-form__submit")?.textContent.includes("Sending..."));
    assert.equal(await button.isDisabled(), true);
    assert.equal(await button.locator(".spinner").count(), 1);
    assert.deepEqual(await endlessAnimations(page), ["spin"]);
    await page.locator(".form-sent").waitFor();
    assert.ok(Date.now() - started >= 1500, "the simulated delay");
    assert.equal(await page.locator(".form-sent__title").innerText(), "Message Sent Successfully!");
    assert.match(await page.locator(".form-sent").innerText(), /Thank you for reaching out\. One of our representatives will contact you shortly\./);
    await expectToast(page, "Message Sent", "Thank you for contacting us. We'll get back to you shortly.", "default");

    const line = logs.find((l) => l.startsWith("Contact form submission: "));
    assert.ok(line, logs.join("\n"));
    const sent = JSON.parse(line.slice("Contact form submission: ".length));
    assert.equal(sent.name, "Asha Patel");
    assert.equal(sent.email, "asha@example.com");
    assert.equal(sent.company, "Northbridge Bank");
    assert.equal(sent.agree, true);
    assert.match(sent.attachmentUrl, /\/storage\/v1\/object\/public\/contact-attachments\/public\/\d+_[0-9a-f]{32}_Site_plan_v2\.png$/);
    const stored = await fetch(sent.attachmentUrl);
    assert.equal(stored.status, 200);
    assert.equal(stored.headers.get("cache-control"), "max-age=3600");
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), PNG);

    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole("button", { name: "Send Another Message" }).click();
    for (const label of ["Full Name", "Email Address", "Subject", "Message"]) {
      assert.equal(await page.getByLabel(new RegExp(`^${label}`)).inputValue(), "", `${label} is cleared`);
    }
    assert.equal(await page.getByLabel(/Image Attachment/).evaluate((i) => i.files.length), 0);
    assert.equal(await page.getByLabel("I agree to the Privacy Policy and consent to being contacted").isChecked(), false);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("sends without an attachment too", async () => {
    const { page, context, problems, logs } = await contactPage(375);
    await fill(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    await page.locator(".form-sent").waitFor();
    const prefix = "Contact form submission: ";
    const sent = JSON.parse(logs.find((l) => l.startsWith(prefix)).slice(prefix.length));
    assert.equal(sent.attachmentUrl, null);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("with reduced motion asked for, the spinner stands still while it sends", async () => {
    const { page, context, problems } = await contactPage(375);
    await page.emulateMedia({ reducedMotion: "reduce" });
    await fill(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    await page.waitForFunction(() => document.querySelector(".contact-form__submit")?.textContent.includes("Sending..."));
    assert.equal(await page.locator(".contact-form__submit .spinner").count(), 1);
    // Cut to a moment, an endless animation would still run.
    assert.deepEqual(await endlessAnimations(page), []);
    await page.locator(".form-sent").waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("refuses a file over 5 MB and a PDF with the right toasts, clearing the selection", async () => {
    const { page, context, problems } = await contactPage();
    const big = Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]);
    const input = page.getByLabel(/Image Attachment/);
    await input.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: big });
    await expectToast(page, "File too large", "Please upload an image smaller than 5MB", "destructive");
    assert.equal(await input.evaluate((i) => i.files.length), 0);
    assert.equal(await page.locator(".attachment").count(), 0);

    await input.setInputFiles({ name: "brochure.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7") });
    await expectToast(page, "Invalid file type", "Please upload a JPG, PNG, or GIF image", "destructive");
    assert.equal(await toast(page).count(), 1, "the new toast replaced the old one");
    assert.equal(await input.evaluate((i) => i.files.length), 0);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("when the storage refuses the upload, says why and keeps every value", async () => {
    const { page, context, problems } = await contactPage();
    await page.route("**/storage/v1/object/contact-attachments/**", (route) =>
      route.fulfill({
        status: 400,
        contentType: "application/json",
        body: JSON.stringify({ statusCode: "403", error: "Unauthorized", message: "new row violates row-level security policy", code: "AccessDenied" }),
      }),
    );
    await fill(page, { file: { name: "plan.png", mimeType: "image/png", buffer: PNG } });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expectToast(page, "Submission Failed", "new row violates row-level security policy", "destructive");
    await page.waitForSelector(".contact-form__submit:not([disabled])");
    assert.equal(await page.locator(".contact-form__submit").innerText(), "Send Message");
    assert.equal(await page.getByLabel(/^Full Name/).inputValue(), "Asha Patel");
    assert.equal(await page.getByLabel(/^Message/).inputValue(), "We would like to discuss a programme starting next year.");
    assert.equal(await page.getByLabel("I agree to the Privacy Policy and consent to being contacted").isChecked(), true);
    assert.equal(await page.getByLabel(/Image Attachment/).evaluate((i) => i.files[0]?.name), "plan.png");
    assert.equal(await page.locator(".form-sent").count(), 0);
    assert.deepEqual(unexpected(problems), []);
    await context.close();
  });

  test("when the storage cannot be reached, says so and keeps every value", async () => {
    const { page, context, problems } = await contactPage(375);
    await page.route("**/storage/v1/**", (route) => route.abort("connectionrefused"));
    await fill(page, { file: { name: "plan.png", mimeType: "image/png", buffer: PNG } });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expectToast(page, "Submission Failed", undefined, "destructive");
    assert.ok((await page.locator(".toast__description").innerText()).length > 0);
    await page.waitForSelector(".contact-form__submit:not([disabled])");
    assert.equal(await page.getByLabel(/^Subject/).inputValue(), "Core banking modernisation");
    assert.equal(await page.getByLabel(/Image Attachment/).evaluate((i) => i.files.length), 1);
    assert.deepEqual(unexpected(problems), []);
    await context.close();
  });

  test("without JavaScript the page still gives the e-mail address and phone number", async () => {
    const { page, context } = await openPage(browser, 375, { javaScript: false });
    await page.goto(server.url + "/contact/");
    const text = await page.locator(".contact__fallback").innerText();
    assert.match(text, /hello@meridiandigital\.example/);
    assert.match(text, /\+91 40 4520 8800/);
    await context.close();
  });
});

describe("toasts", () => {
  const pdf = { name: "a.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF") };

  test("disappear after 5 seconds", async () => {
    const { page, context } = await contactPage();
    // Timed by the page's own clock, from the moment the toast is in the page:
    // on a busy machine the test may see it late.
    await page.evaluate(() => {
      const times = {};
      Object.assign(window, { toastTimes: times });
      new MutationObserver(() => {
        const there = document.querySelector(".toast") !== null;
        if (there && times.shown === undefined) times.shown = performance.now();
        if (!there && times.shown !== undefined && times.gone === undefined) times.gone = performance.now();
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByLabel(/Image Attachment/).setInputFiles(pdf);
    await toast(page).waitFor();
    await page.waitForTimeout(3000);
    assert.equal(await toast(page).count(), 1, "still there 3 s after it was seen");
    await toast(page).waitFor({ state: "detached", timeout: 6000 });
    const { shown, gone } = await page.evaluate(() => window.toastTimes);
    assert.ok(gone - shown >= 4900 && gone - shown < 6500, `gone ${Math.round(gone - shown)} ms after it was shown`);
    await context.close();
  });

  test("a swipe right past 50 px dismisses; a shorter one does not", async () => {
    const { page, context } = await contactPage();
    await page.getByLabel(/Image Attachment/).setInputFiles(pdf);
    await toast(page).waitFor();
    const swipe = async (dx) => {
      const box = await toast(page).boundingBox();
      const y = box.y + box.height / 2;
      await page.mouse.move(box.x + 20, y);
      await page.mouse.down();
      await page.mouse.move(box.x + 20 + dx, y, { steps: 10 });
      await page.mouse.up();
    };
    await swipe(30);
    await page.waitForTimeout(300);
    assert.equal(await toast(page).count(), 1);
    await swipe(90);
    await toast(page).waitFor({ state: "detached", timeout: 2000 });
    await context.close();
  });

  test("F8 moves focus to the region labelled Notification", async () => {
    const { page, context } = await contactPage();
    await page.getByLabel(/Image Attachment/).setInputFiles(pdf);
    await toast(page).waitFor();
    await page.keyboard.press("F8");
    const label = await page.evaluate(() => document.activeElement.closest("[role=region]")?.getAttribute("aria-label"));
    assert.equal(label, "Notification");
    await context.close();
  });
});

describe("the contact hero", () => {
  test("Send Us a Message goes to the form, smoothly unless reduced motion is asked for", async () => {
    const { page, context } = await openPage(browser, 1280);
    await page.goto(server.url + "/contact/");
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior), "smooth");
    await page.getByRole("link", { name: "Send Us a Message" }).click();
    await page.waitForFunction(() => {
      const r = document.querySelector("#send-message").getBoundingClientRect();
      return r.top >= 0 && r.top < 200;
    });
    await page.emulateMedia({ reducedMotion: "reduce" });
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior), "auto");
    await context.close();
  });
});

describe("the role selector on Insights", () => {
  test("has the 11 roles with CEO selected; choosing moves the one highlight", async () => {
    const { page, context, problems } = await openPage(browser, 375);
    await page.goto(server.url + "/insights/");
    await hydrated(page);
    const radios = page.getByRole("radio");
    assert.equal(await radios.count(), 11);
    assert.equal(await page.getByRole("radiogroup").getAttribute("aria-label"), "Insights for the C-suite");
    const checked = () => page.locator('[role="radio"][aria-checked="true"]').allInnerTexts();
    assert.deepEqual(await checked(), ["CEO"]);
    await page.getByRole("radio", { name: "CISO" }).click();
    assert.deepEqual(await checked(), ["CISO"]);
    assert.equal(await page.locator(".role--selected").count(), 1);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("works with the keyboard alone", async () => {
    const { page, context } = await openPage(browser, 1280);
    await page.goto(server.url + "/insights/");
    await hydrated(page);
    await page.getByRole("radio", { name: "CEO" }).focus();
    await page.keyboard.press("ArrowRight");
    const state = () => page.evaluate(() => [document.activeElement.textContent, document.querySelector('[aria-checked="true"]').textContent]);
    assert.deepEqual(await state(), ["CFO", "CFO"]);
    await page.keyboard.press("End");
    assert.deepEqual(await state(), ["Board executive", "Board executive"]);
    await page.keyboard.press("ArrowRight");
    assert.deepEqual(await state(), ["CEO", "CEO"], "wraps around");
    await page.keyboard.press("ArrowLeft");
    assert.deepEqual(await state(), ["Board executive", "Board executive"]);
    assert.equal(await page.locator('[role="radio"][tabindex="0"]').count(), 1, "one tab stop for the group");
    await context.close();
  });
});
