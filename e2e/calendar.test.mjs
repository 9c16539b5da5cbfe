// Every calendar file the build writes is read by a real iCalendar parser
// (ical.js, as calendar apps on the web use): it parses, names the site as its
// product (RFC 5545 §3.7.3), is stamped with the build's time, and its one
// event is the page's event. Two builds at different moments differ only in
// DTSTAMP, so a reproducible build (SOURCE_DATE_EPOCH) writes the same bytes.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ICAL from "ical.js";
import { BUILD_CLOCK, BUILT_AT } from "./support.mjs";

const root = path.resolve(import.meta.dirname, "..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const BASE_URL = "https://www.meridiandigital.com";
const PRODID = "-//Meridian Digital//www.meridiandigital.com//EN";
const LATER = new Date("2027-03-01T09:30:00Z");

const outs = [];
function build(at) {
  const out = mkdtempSync(path.join(tmpdir(), "site-calendar-"));
  outs.push(out);
  const env = { ...process.env, ...BUILD_CLOCK, SOURCE_DATE_EPOCH: String(at.getTime() / 1000) };
  execFileSync(bin, ["build", "--root", root, "--out", out, "--base-url", BASE_URL], { stdio: "pipe", env });
  return out;
}

/** Every `.ics` file under `dir`, relative to it. */
function calendars(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(".ics"))
    .sort();
}

let now;
let later;
before(() => {
  now = build(BUILT_AT);
  later = build(LATER);
});
after(() => outs.forEach((out) => rmSync(out, { recursive: true, force: true })));

test("every calendar file parses, names the site and is stamped with the build's time", () => {
  const files = calendars(now);
  assert.ok(files.length >= 3, `${files.length} calendar files`);
  for (const file of files) {
    const text = readFileSync(path.join(now, file), "utf8");
    const calendar = new ICAL.Component(ICAL.parse(text));
    assert.equal(calendar.name, "vcalendar", file);
    assert.equal(calendar.getFirstPropertyValue("version"), "2.0", file);
    assert.equal(calendar.getFirstPropertyValue("prodid"), PRODID, file);
    const events = calendar.getAllSubcomponents("vevent");
    assert.equal(events.length, 1, file);
    const event = new ICAL.Event(events[0]);
    const stamp = events[0].getFirstPropertyValue("dtstamp");
    assert.equal(stamp.toJSDate().getTime(), BUILT_AT.getTime(), `${file}: DTSTAMP is the build's time`);
    assert.equal(stamp.zone, ICAL.Timezone.utcTimezone, `${file}: DTSTAMP in UTC`);
    assert.ok(event.uid.endsWith("@www.meridiandigital.com"), `${file}: ${event.uid}`);
    assert.ok(event.summary, `${file}: a summary`);
    assert.ok(event.startDate.compare(event.endDate) < 0, `${file}: it starts before it ends`);
    // The event is the page beside the file.
    const page = `${BASE_URL}/${file.replace(/\.ics$/, "/")}`;
    assert.equal(events[0].getFirstPropertyValue("url"), page, file);
    const html = readFileSync(path.join(now, file.replace(/\.ics$/, ""), "index.html"), "utf8");
    const data = JSON.parse(html.match(/<script type="application\/ld\+json">([^]*?)<\/script>/)[1]);
    assert.equal(event.startDate.toJSDate().getTime(), Date.parse(data.startDate), `${file}: the page's start`);
    assert.equal(event.endDate.toJSDate().getTime(), Date.parse(data.endDate), `${file}: the page's end`);
  }
});

test("a build at another moment changes DTSTAMP and nothing else", () => {
  const both = calendars(later).filter((f) => calendars(now).includes(f));
  assert.ok(both.length >= 3, `${both.length} calendar files in both builds`);
  for (const file of both) {
    const [a, b] = [now, later].map((dir) => readFileSync(path.join(dir, file), "utf8"));
    const stamp = (d) => `DTSTAMP:${d.toISOString().replace(/[-:]|\.\d+/g, "")}`;
    assert.ok(a.includes(stamp(BUILT_AT)), `${file}: ${stamp(BUILT_AT)}`);
    assert.equal(b, a.replace(stamp(BUILT_AT), stamp(LATER)), file);
  }
});
