// Shared set-up for the browser tests: start `site serve` on a free port, launch
// Debian's Chromium through playwright-core, and record every console error,
// page error (where React reports hydration mismatches) and failed request.

import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { parse } from "yaml";

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, "..");

/**
 * The moment every test builds the site at, as `SOURCE_DATE_EPOCH`: the content's
 * events and job postings are dated, so a build by the real clock would move events
 * to the archive and close postings as the days pass. Pinned, the tests pass on any
 * day (`make test CLOCK=+365d` runs them a year ahead). A test about the date sets
 * its own.
 */
export const BUILT_AT = new Date("2026-11-24T00:00:00Z");
export const BUILD_CLOCK = { SOURCE_DATE_EPOCH: String(BUILT_AT.getTime() / 1000) };

/**
 * A moment of the day the tests build on, for a browser's clock: a posting's
 * application form compares the browser's clock with its closing moment, so a
 * test of the project's own postings pins it (`openPage(…, { at })`) to pass on
 * any day.
 */
export const ON_BUILD_DAY = new Date(BUILT_AT.getTime() + 12 * 3600 * 1000);

/**
 * Keeps every job posting of a copied site open whatever the clock says (its
 * last day far ahead), for tests that apply: the table of `site serve`, and a
 * PostgreSQL's, compare their own clocks with the closing moment.
 */
export function keepPostingsOpen(site) {
  const dir = path.join(site, "content/pages/careers");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(path.join(dir, file), "utf8");
    writeFileSync(path.join(dir, file), text.replace(/^valid_through: .*$/m, "valid_through: 2099-12-31"));
  }
}

/** The widths every page is tried at: small and large phones, a tablet, a laptop. */
export const WIDTHS = [320, 375, 768, 1280];

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export async function freePort() {
  const [port] = await freePorts(1);
  return port;
}

/**
 * `count` different TCP ports on 127.0.0.1 that nothing listens on now. Each is
 * held until all are found: the kernel can hand out again a port that was let
 * go, so two calls of freePort can give the same one.
 */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", resolve);
      });
    }
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => (server.listening ? server.close(resolve) : resolve()))));
  }
}

/**
 * Who listens on 127.0.0.1:`port`, from the kernel's own tables: "ours" when the
 * process `pid` or one of its descendants does (wrangler's workerd is its
 * child), "theirs" when only another process does, "none" when nothing does.
 */
export function listenerOf(port, pid) {
  const local = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const listening = new Set();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const rows = existsSync(table) ? readFileSync(table, "utf8").split("\n").slice(1) : [];
    for (const row of rows) {
      const [, address, , state, , , , , , inode] = row.trim().split(/\s+/);
      // 0A is LISTEN.
      if (address?.endsWith(local) && state === "0A") listening.add(inode);
    }
  }
  if (listening.size === 0) return "none";
  const holds = (p) => socketsOf(p).some((inode) => listening.has(inode)) || childrenOf(p).some(holds);
  return holds(pid) ? "ours" : "theirs";
}

/** What a process read from /proc says, or nothing once it has exited. */
function procList(read) {
  try {
    return read();
  } catch {
    return [];
  }
}

function childrenOf(pid) {
  return procList(() =>
    readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      procList(() => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number)),
    ),
  );
}

function socketsOf(pid) {
  return procList(() =>
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => procList(() => [readlinkSync(`/proc/${pid}/fd/${fd}`)])),
  ).flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.slice(1) ?? []);
}

/**
 * Starts a server on a free port: `start(port)` spawns it, and this waits, at
 * most `ms`, until that process itself listens there. A port from freePort is
 * free only when asked: another server can take it before this one binds it,
 * and a check that the port merely answers would then talk to that server. So
 * the listener is read from the kernel, and a port another process took is
 * given up for a fresh one (five tries). Resolves to `{ port, child }`; `ports`
 * replaces freePort (for the test of this very case).
 */
export async function listeningOnFreePort(start, { ms, why, ports = null }) {
  for (let attempt = 1; ; attempt++) {
    const port = ports ? ports[attempt - 1] : await freePort();
    const child = await start(port);
    const deadline = Date.now() + ms;
    for (;;) {
      const listener = listenerOf(port, child.pid);
      if (listener === "ours") return { port, child };
      const lastTry = attempt === 5 || (ports && attempt === ports.length);
      if (listener === "theirs" && !lastTry) {
        await stopped(child);
        break;
      }
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        await stopped(child, "SIGKILL");
        const taken = listener === "theirs" ? `\n(another process listens on 127.0.0.1:${port})` : "";
        throw new Error(why() + taken);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Resolves once `child` has exited, at once if it has. */
export function exitOf(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", resolve));
}

/** Stops `child` (SIGTERM unless told) and resolves once it has exited. */
function stopped(child, signal = "SIGTERM") {
  const exited = exitOf(child);
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  return exited;
}

/**
 * A disposable copy of the project's site (content, templates, islands, styles,
 * public), for tests that edit files. It lives inside the project so that esbuild
 * finds node_modules; `.site/` is ignored by git.
 */
export function copySite() {
  const base = path.join(root, ".site", "e2e-sites");
  mkdirSync(base, { recursive: true });
  const copy = mkdtempSync(path.join(base, "site-"));
  for (const dir of ["content", "templates", "islands", "styles", "public"]) {
    cpSync(path.join(root, dir), path.join(copy, dir), { recursive: true });
  }
  // The image caches are keyed by content, so the project's serve the copy too.
  for (const cache of ["images", "social"]) {
    const from = path.join(root, ".site", cache);
    if (existsSync(from)) cpSync(from, path.join(copy, ".site", cache), { recursive: true });
  }
  // The bundle and server renders of a copy built before (`seedCopies`), at the
  // same depth below node_modules/ as this one, so keyed the same: a copy's first
  // build takes them from its cache while the islands and styles are the same.
  for (const cache of ["bundle", "cache"]) {
    const from = path.join(SEED, cache);
    if (existsSync(from)) cpSync(from, path.join(copy, ".site", cache), { recursive: true });
  }
  return copy;
}

/** Where `seedCopies` keeps what every copy of the site starts from. */
const SEED = path.join(root, ".site", "e2e-sites", "seed");

/**
 * Builds one copy of the site and keeps its bundle and server renders for the
 * copies made after (`copySite`): each copy's `site serve` then starts without
 * running esbuild and Node's server render again. e2e/run.mjs calls it once
 * before the files it runs; a file run alone starts from the last seed, or
 * without one, which costs time only. The copy starts from the last seed: its
 * caches are keyed by what they were made from, so islands unchanged since
 * are taken as they are, and changed ones made again.
 */
export function seedCopies() {
  const copy = copySite();
  rmSync(SEED, { recursive: true, force: true });
  const out = mkdtempSync(path.join(tmpdir(), "site-seed-"));
  try {
    const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
    execFileSync(bin, ["build", "--root", copy, "--out", out], { stdio: "ignore", env: { ...process.env, ...BUILD_CLOCK } });
    const made = mkdtempSync(path.join(path.dirname(SEED), "seed-"));
    for (const cache of ["bundle", "cache"]) {
      const from = path.join(copy, ".site", cache);
      if (existsSync(from)) renameSync(from, path.join(made, cache));
    }
    renameSync(made, SEED);
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Starts `site serve --port 0` (and `args`) on `siteRoot` (the project by default); resolves to
 * `{ url, out, root, stop }`. `stop` removes a copied site unless `keepRoot`.
 */
export async function startServer({ siteRoot = root, env = {}, keepRoot = false, args = [] } = {}) {
  const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
  const out = mkdtempSync(path.join(tmpdir(), "site-e2e-"));
  const child = spawn(bin, ["serve", "--root", siteRoot, "--out", out, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...BUILD_CLOCK, ...env },
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`site serve did not start:\n${stdout}${stderr}`)), 60_000);
    child.stdout.on("data", (d) => {
      stdout += d;
      const m = stdout.match(/on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`site serve exited with ${code}:\n${stdout}${stderr}`)));
  });
  // Each build's report ends with its "Built …" line on stdout: a test that
  // saves a file waits for the build that save causes with `nextBuild()`,
  // asked for before the save.
  let builds = [];
  const nextBuild = () => new Promise((resolve) => builds.push(resolve));
  child.stdout.on("data", (d) => {
    for (const line of String(d).split("\n").filter((l) => l.startsWith("Built "))) {
      for (const resolve of builds) resolve(line);
      builds = [];
    }
  });
  return {
    url,
    out,
    root: siteRoot,
    pid: child.pid,
    output: () => stderr,
    /** The next build's "Built …" line, once that build has ended. */
    nextBuild,
    /**
     * Resolves once the build under way, if any, has ended: the server answers
     * /__site/parts.json after the builds waiting, on the thread that builds. A
     * page that reads right may be written before its build has written the
     * rest of the output; a command that reads the output waits for this.
     */
    async settled() {
      const answer = await fetch(`${url}/__site/parts.json`);
      await answer.arrayBuffer();
    },
    /**
     * What `read` gives once `ok` holds of it, read now and again after each
     * build of the server ends: for what a save changes, which comes with the
     * build the save starts, however long that build takes on a busy machine
     * (a photo's variants, the search index). Fails after `limit` ms, so that a
     * save that starts no build fails instead of hanging.
     */
    async built(read, ok, what, limit = 180_000) {
      const until = Date.now() + limit;
      let last;
      for (;;) {
        const next = nextBuild();
        try {
          last = await read();
          if (ok(last)) return last;
        } catch (e) {
          last = e;
        }
        const left = until - Date.now();
        if (left <= 0) throw new Error(`no build of site serve gave ${what} in ${limit / 1000} s; last: ${String(last).slice(0, 500)}\n${stderr.slice(-1500)}`);
        // The deadline's timer goes with the wait, or it would hold the test's process open until it fires.
        let timer;
        await Promise.race([next, new Promise((r) => (timer = setTimeout(r, left)))]);
        clearTimeout(timer);
      }
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT");
        await new Promise((r) => child.once("exit", r));
      }
      rmSync(out, { recursive: true, force: true });
      if (siteRoot !== root && !keepRoot) rmSync(siteRoot, { recursive: true, force: true });
    },
  };
}

/**
 * The live-reload events `site serve` at `url` sends, as open pages hear them.
 * Resolves once the stream is open and its first event (what the last build left:
 * `build-ok`, `build-warnings` or `build-error`) has come, so that every later
 * rebuild is heard. `events` are the types heard since, in order; `next()`
 * resolves with the next one.
 */
export async function liveEvents(url) {
  const controller = new AbortController();
  const response = await fetch(url + "/__site/events", { signal: controller.signal });
  const events = [];
  let waiting = [];
  let first;
  const opened = new Promise((resolve) => (first = resolve));
  (async () => {
    const decoder = new TextDecoder();
    let text = "";
    try {
      for await (const chunk of response.body) {
        text += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const type = text.slice(0, end).match(/^event: (.*)$/m)?.[1];
          text = text.slice(end + 2);
          if (!type) continue; // a keep-alive comment
          if (first) {
            first(type);
            first = null;
            continue;
          }
          events.push(type);
          for (const resolve of waiting) resolve(type);
          waiting = [];
        }
      }
    } catch {
      // Closed by `close()`.
    }
  })();
  await opened;
  return {
    events,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => controller.abort(),
  };
}

/**
 * Waits until the page's live-reload script has heard from `site serve`: only
 * then does a save made next reach it.
 */
export async function liveConnected(page) {
  await page.locator("html[data-site-live]").waitFor({ state: "attached" });
}

/**
 * Writes `text` to `file` as a writer that a busy machine pauses does: the file
 * is truncated, and written `pause` ms later, then closed.
 */
export async function writeSlowly(file, text, pause = 50) {
  const handle = await open(file, "w");
  await new Promise((r) => setTimeout(r, pause));
  await handle.writeFile(text);
  await handle.close();
}

/**
 * A GET with exactly the given headers, the path sent as written (no dot-segment
 * clean-up) and no decoding: `{ status, headers, body }`.
 */
export function rawGet(url, headers = {}) {
  const { hostname, port, origin } = new URL(url);
  const requestPath = url.slice(origin.length) || "/";
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname, port, path: requestPath, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
  });
}

/**
 * The environment without faketime's library (`make test CLOCK=…`), for the
 * programs that cannot run under it even with the clock unmoved: Chromium spins,
 * wrangler's local server never starts. They keep the real clock; what they show
 * does not depend on the date (the islands read the clock to name an upload, and
 * the application form to close a posting: tests of postings pin the page's
 * clock, `openPage(…, { at: ON_BUILD_DAY })`, or keep them open).
 */
export function withoutFaketime(env = process.env) {
  const rest = { ...env };
  if (rest.LD_PRELOAD?.includes("faketime")) for (const name of ["LD_PRELOAD", "FAKETIME"]) delete rest[name];
  return rest;
}

/** How the tests start Chromium: headless, Debian's build, without faketime. */
function launchOptions() {
  return {
    // Chromium's headless shell, as `make test` runs it (the Makefile's CHROMIUM
    // says why); CHROMIUM=/usr/bin/chromium for the desktop browser.
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium-headless-shell",
    env: withoutFaketime(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // What the tests cannot see but pay for on two cores: a process of its own
      // for the (software) compositor, and threads for raster, animation and
      // scrolling that the renderer's main thread then waits on. Measured on the
      // same test files: about a tenth less processor time run one at a time, a
      // few percent when two run at once, as in `make test`.
      "--in-process-gpu",
      "--disable-software-rasterizer",
      "--num-raster-threads=1",
      "--disable-threaded-animation",
      "--disable-threaded-scrolling",
      "--disable-checker-imaging",
    ],
  };
}

/**
 * Chromium for a test file. Under e2e/run.mjs (`make test`) every file connects
 * to the one Chromium it started (`E2E_BROWSER`): each file still has contexts
 * of its own, which share nothing, and `close()` ends only the file's
 * connection. Run alone, a file launches its own.
 */
export async function launchBrowser() {
  const shared = process.env.E2E_BROWSER;
  return shared ? chromium.connect(shared) : chromium.launch(launchOptions());
}

/** The one Chromium that e2e/run.mjs starts for the files it runs. */
export function launchBrowserServer() {
  return chromium.launchServer(launchOptions());
}

/**
 * A page at `width` that records problems in `problems`; with `at`, its `Date`
 * says that moment (timers and `performance.now()` still run).
 */
export async function openPage(browser, width, { javaScript = true, at } = {}) {
  const context = await browser.newContext({
    viewport: { width, height: 800 },
    javaScriptEnabled: javaScript,
  });
  if (at) await context.clock.setFixedTime(at);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // What a page the tab has since left was still loading (a lazy picture) is cut
  // by the browser as it leaves: no problem of that page's, nor of the next.
  // Each request is marked with the page it was made by; the cut may be told
  // just before the next page is, so it is taken back then.
  let pages = 0;
  const made = new WeakMap();
  const cut = new Map();
  page.on("request", (r) => made.set(r, pages));
  page.on("framenavigated", (frame) => {
    if (frame !== page.mainFrame()) return;
    pages++;
    for (const [problem, by] of cut) {
      const at = problems.indexOf(problem);
      if (by < pages && at >= 0) problems.splice(at, 1);
    }
    cut.clear();
  });
  page.on("requestfailed", (r) => {
    // The live-reload stream is cut by design when the page reloads.
    if (new URL(r.url()).pathname === "/__site/events") return;
    const problem = `request failed: ${r.url()} ${r.failure()?.errorText}`;
    const left = r.failure()?.errorText === "net::ERR_ABORTED" && !r.isNavigationRequest();
    if (left && made.get(r) < pages) return;
    problems.push(problem);
    if (left) cut.set(problem, made.get(r));
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, context, problems };
}

const reused = new Map();

/**
 * A page at `width` kept for the next call with the same options in this test
 * file, whatever its width: its problems are forgotten (and what the last test
 * left loading, cut when this one goes elsewhere, counts as none) and its width
 * set. A new browser context starts renderer processes and compiles
 * every script again, which costs three times what a page loaded in the same
 * tab costs, and a blank page between two of the site's starts two new
 * renderers; for tests that only read pages of the site (which keeps nothing in
 * storage), one tab going from address to address, and from width to width,
 * spares that. `at` is as for `openPage`. Not for a test that routes or listens
 * to requests or needs an empty cache: its page would keep that for the next.
 * Closed with the browser.
 */
export async function reusedPage(browser, width, { javaScript = true, at } = {}) {
  const key = `${javaScript}/${at?.getTime()}`;
  let entry = reused.get(key);
  if (!entry || entry.browser !== browser || entry.page.isClosed()) {
    entry = { browser, ...(await openPage(browser, width, { javaScript, at })) };
    reused.set(key, entry);
  }
  entry.problems.length = 0;
  await entry.page.setViewportSize({ width, height: 800 });
  return { page: entry.page, problems: entry.problems };
}

/**
 * How long an editor test waits for the editor at /admin/ to start. It draws its
 * sign-in while it is still starting, and reads every entry of the site before it
 * lists or opens one: four to five seconds of processor time alone, which a
 * loaded machine spreads over more than an action's own 10 s. Until then the
 * page's main thread is busy, and a click waits on it even to scroll its target
 * into view.
 */
export const EDITOR_START = 60_000;

/** Home's entry as the editor lists it: the page's title, as its content file has it. */
export const HOME_ENTRY = parse(readFileSync(path.join(root, "content", "pages", "index.yaml"), "utf8")).title;

/**
 * Signs the editor at /admin/ in to the site's folder, then waits for `ready`,
 * what it shows once it has read every entry (an entry listed, or the form of
 * the entry the address names).
 */
export async function signInLocally(page, ready) {
  await page.getByRole("button", { name: /Work with Local Repository/ }).click({ timeout: EDITOR_START });
  await ready.waitFor({ timeout: EDITOR_START });
}

/**
 * Waits until every island on the page has hydrated, in one round trip to the
 * page. Islands that hydrate when visible are scrolled into view first; the page
 * ends scrolled back to the top. With `settle` (the default), it also waits for
 * the transitions hydration started to end, for checks of how the page looks.
 */
export async function hydrated(page, { settle = true } = {}) {
  const late = await page.evaluate(async (settle) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const lazy = document.querySelectorAll('[data-hydrate="visible"]:not([data-hydrated])');
    for (const el of lazy) {
      (el.firstElementChild ?? el).scrollIntoView({ behavior: "instant", block: "center" });
      await frame();
      await frame();
      // Kept in view until it has hydrated: its observer may answer a few frames
      // late on a busy machine, and scrolled away first it would wait forever.
      const until = performance.now() + 10_000;
      while (!el.hasAttribute("data-hydrated") && performance.now() < until) await frame();
    }
    if (lazy.length > 0) {
      window.scrollTo({ top: 0, behavior: "instant" });
      await frame();
    }
    // Every island hydrated, and the header rendered once more by its first
    // effect (`data-ready`), which a loaded machine may take longer than a
    // frame to show.
    const waiting = () => [
      ...Array.from(document.querySelectorAll("[data-island][data-component]:not([data-hydrated])"), (el) => el.dataset.island),
      ...(document.querySelector(".site-header:not([data-ready])") ? ["the header's first effect"] : []),
    ];
    const until = performance.now() + 10_000;
    while (waiting().length > 0 && performance.now() < until) await frame();
    if (waiting().length > 0) return waiting();
    // Other effects run right after hydration; give them a frame. Then let the
    // transitions they and the scrolling above started end (the header's
    // background fades for 0.25 s): what is measured next, such as axe's colour
    // contrast, must see the page as it stays, not halfway.
    await frame();
    await frame();
    if (settle) {
      const finite = document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
      await Promise.all(finite.map((a) => a.finished.catch(() => {})));
    }
    return [];
  }, settle);
  if (late.length > 0) throw new Error(`not hydrated in 10 s: ${late.join(", ")} (${page.url()})`);
}

/** Fills in the contact form as a visitor would; `email` tells one message from another. */
export async function fillContactForm(page, { email = "asha@example.com", file } = {}) {
  await page.getByLabel(/^Full Name/).fill("Asha Patel");
  await page.getByLabel(/^Email Address/).fill(email);
  await page.getByLabel(/^Phone Number/).fill("+91 98765 43210");
  await page.getByLabel(/^Company Name/).fill("Northbridge Bank");
  await page.getByLabel(/^Subject/).fill("Core banking modernisation");
  await page.getByLabel(/^Message/).fill("We would like to discuss a programme starting next year.");
  await page.getByLabel("I agree to the Privacy Policy and consent to being contacted").check();
  if (file) await page.getByLabel(/Image Attachment/).setInputFiles(file);
}

const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const devTools = new WeakMap();

/**
 * Runs a script's source in the page's main world through the DevTools
 * protocol itself: about half the time `page.evaluate` takes for a script as
 * large as axe-core's.
 */
async function evaluateSource(page, source) {
  let session = devTools.get(page);
  if (!session) {
    session = await page.context().newCDPSession(page);
    devTools.set(page, session);
  }
  const { exceptionDetails } = await session.send("Runtime.evaluate", { expression: source });
  if (exceptionDetails) throw new Error(`a script failed in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
}

const tabsWithAxe = new WeakSet();

/**
 * Puts axe-core in every page `page` loads from now on, before the page's own
 * scripts: for a tab that runs axe on each page it goes to, its source (650 KB)
 * then crosses the protocol once, not once a page.
 */
export async function axeInEachPage(page) {
  if (tabsWithAxe.has(page)) return;
  tabsWithAxe.add(page);
  await page.addInitScript(AXE_SOURCE);
}

/**
 * axe-core violations for WCAG 2.0/2.1 A and AA, but the rules named in
 * `except`, of the whole page or of the elements `within` selects. axe is
 * evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern (a script tag would be, and rightly,
 * refused).
 */
export async function axeViolations(page, { except = [], within } = {}) {
  // Once per page: the pages are checked at several widths.
  if (!(await page.evaluate(() => "axe" in window))) await evaluateSource(page, AXE_SOURCE);
  const result = await page.evaluate(
    ({ except, within }) =>
      // eslint-disable-next-line no-undef
      axe.run(within ? { include: [within] } : document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
        rules: Object.fromEntries(except.map((rule) => [rule, { enabled: false }])),
        resultTypes: ["violations"],
      }),
    { except, within },
  );
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/**
 * axe-core violations of `url` as a browser without JavaScript shows it, at
 * `width`: no script runs and `<noscript>` content is laid out. axe itself needs
 * JavaScript, so the page is opened with it on, every script refused and each
 * `<noscript>` made the `<div>` that a browser without JavaScript would lay out.
 */
export async function axeViolationsWithoutJavaScript(browser, url, width) {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  try {
    const page = await context.newPage();
    await page.route("**/*", async (route) => {
      const type = route.request().resourceType();
      if (type === "script") return route.abort();
      if (type !== "document") return route.continue();
      const response = await route.fetch();
      const body = (await response.text()).replaceAll("<noscript>", "<div data-noscript>").replaceAll("</noscript>", "</div>");
      return route.fulfill({ response, body });
    });
    await page.goto(url);
    return await axeViolations(page);
  } finally {
    await context.close();
  }
}
