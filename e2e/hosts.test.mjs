// Every host serves every page directly. The site is built for each host and
// served by nginx configured the way that host resolves paths (hosts.mjs), and
// for Cloudflare Pages also by Cloudflare's own runtime (workerd, through
// `wrangler pages dev`) over a production build. A crawl from `/`, the sitemap,
// robots.txt and every file of the build then requires 200, and no redirect, for
// every internal link, asset, island script, canonical URL, sitemap entry and
// og:url, the 404 page for an unknown address, and checks the headers each
// response arrives with against the build's `_headers`.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { crawl, describe as describeFailures, servedPaths, sitemapPagesIn } from "../deploy/crawl.mjs";
import { HOSTS, parseHeaders, startHost, startWorkerd } from "./hosts.mjs";
import { BUILD_CLOCK, exitOf, freePort, listenerOf, listeningOnFreePort } from "./support.mjs";

const root = path.resolve(import.meta.dirname, "..");
const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
// The address the build is given, unlike site.yaml's, so a page that took
// site.yaml's instead would show.
const BASE_URL = "https://www.meridiandigital.com";

/** Builds the site for `host` into a fresh folder; a production build if `production`. */
function buildFor(host, production) {
  const out = mkdtempSync(path.join(tmpdir(), `site-${host}-`));
  const args = ["build", "--root", root, "--out", out, "--for", host, "--base-url", BASE_URL];
  const env = { ...process.env, ...BUILD_CLOCK };
  if (production) {
    args.push("--production");
    Object.assign(env, { SITE_STORAGE_URL: "https://abcdefghijklmnopqrst.supabase.co", SITE_STORAGE_ANON_KEY: "sb_publishable_hosts-test" });
  }
  execFileSync(bin, args, { stdio: "pipe", env });
  return out;
}

/**
 * The old addresses of a build and where each leads, read in the host's own form:
 * `_redirects` lines, `_nginx.conf`'s `return`s, or GitHub Pages' pages that send
 * the visitor on.
 */
function movedOf(out) {
  const moved = [];
  const redirects = path.join(out, "_redirects");
  const nginx = path.join(out, "_nginx.conf");
  if (existsSync(redirects)) {
    for (const line of readFileSync(redirects, "utf8").split("\n")) {
      const [from, to, status] = line.trim().split(/\s+/);
      // A rule with 404 answers a folder with its 404 page: no old address.
      if (from && !from.startsWith("#") && to && status !== "404") moved.push({ from, to, status: Number(status ?? 301) });
    }
  } else if (existsSync(nginx)) {
    for (const m of readFileSync(nginx, "utf8").matchAll(/location = (\S+) \{\n\s+return (30\d) (\S+);/g)) {
      moved.push({ from: m[1], to: m[3], status: Number(m[2]) });
    }
  } else {
    for (const p of servedPaths(out).filter((p) => p.endsWith("/"))) {
      const html = readFileSync(path.join(out, p, "index.html"), "utf8");
      const to = html.match(/<meta http-equiv="refresh" content="0; url=([^"]+)">/)?.[1];
      if (to) moved.push({ from: p, to, status: 200 });
    }
  }
  return moved;
}

const SECURITY = ["content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy", "permissions-policy", "cross-origin-opener-policy"];

/** Each way the site is served: nginx as each host, and workerd as Cloudflare Pages. */
const PROFILES = [
  ...Object.keys(HOSTS).map((host) => ({ name: host, host, start: (out) => startHost(out, host) })),
  { name: "cloudflare-pages under workerd", host: "cloudflare-pages", production: true, start: startWorkerd },
];

for (const { name, host, production, start } of PROFILES) {
  describe(`on ${name}`, () => {
    let out;
    let server;
    let result;

    before(async () => {
      out = buildFor(host, production);
      server = await start(out);
      result = await crawl(server.url, { baseUrl: BASE_URL, dist: out, headers: { "Accept-Encoding": "br, gzip" } });
    });

    after(async () => {
      await server?.stop();
      if (out) rmSync(out, { recursive: true, force: true });
    });

    test("every internal URL and every file answers 200, with no redirect", async (t) => {
      t.diagnostic(`${name}: crawled ${result.pages} pages and ${result.urls} internal URLs (${servedPaths(out).length} files of the build)`);
      assert.deepEqual(describeFailures(result.failures), []);
      const sitemap = (await sitemapPagesIn(out)).length;
      // On GitHub Pages, each old address is a page of its own that sends the visitor on.
      const forwarding = host === "github-pages" ? movedOf(out).length : 0;
      assert.equal(result.pages, sitemap + forwarding, "every page of the sitemap was reached");
      for (const p of servedPaths(out)) assert.ok(result.responses.has(new URL(p, server.url).href), `${p} was fetched`);
      const scripts = [...result.responses.keys()].filter((u) => /\/assets\/islands\/(Header|ContactForm|Toaster|RoleSelector)-\w+\.js$/.test(u));
      assert.ok(scripts.length >= 4, "the island scripts named in data-component were reached");
    });

    test("pages name the address they are published at, and the 404 page names none", () => {
      const home = readFileSync(path.join(out, "index.html"), "utf8");
      const org = JSON.parse(home.match(/<script type="application\/ld\+json">(.*?)<\/script>/s)[1]);
      assert.equal(org.url, `${BASE_URL}/`);
      assert.match(home, new RegExp(`<link rel="canonical" href="${BASE_URL}/">`));
      for (const file of ["404.html", "de/404.html", "ar/404.html"]) {
        const notFound = readFileSync(path.join(out, file), "utf8");
        assert.doesNotMatch(notFound, /og:url|rel="canonical"|application\/ld\+json/, file);
        assert.match(notFound, /<meta name="robots" content="noindex">/, file);
      }
      assert.equal(result.responses.get(result.notFound).status, 404);
    });

    test("a page's address without its slash is answered with a redirect, as on the host", async () => {
      const r = await fetch(server.url + "/about", { redirect: "manual" });
      assert.equal(r.status, host === "cloudflare-pages" ? 308 : 301);
      assert.equal(r.headers.get("location"), "/about/");
    });

    test("every old address answers with one hop to where it leads", async (t) => {
      const moved = movedOf(out);
      // The content's own: an alias of a YAML page, one of an article, site.yaml's redirects.
      for (const [from, to] of [["/about-us/", "/about/"], ["/insights/ai-ready-enterprise-2026/", "/insights/ai-ready-enterprise/"], ["/jobs/", "/careers/"]]) {
        assert.ok(moved.some((m) => m.from === from && m.to.endsWith(to)), `${from} → ${to} is in the build`);
      }
      for (const { from, to, status } of moved) {
        const r = await fetch(server.url + from, { redirect: "manual" });
        const body = await r.text();
        let target = r.headers.get("location");
        if (host === "github-pages") {
          assert.equal(r.status, 200, from);
          target = body.match(/<meta http-equiv="refresh" content="0; url=([^"]+)">/)?.[1];
          assert.match(body, new RegExp(`<link rel="canonical" href="${to.replace(/[.?]/g, "\\$&")}">`), from);
        } else {
          assert.equal(r.status, status, from);
        }
        assert.equal(target, to, from);
        // One hop: where it leads answers at once.
        const page = new URL(target, BASE_URL);
        if (page.origin === BASE_URL) {
          const there = await fetch(server.url + page.pathname, { redirect: "manual" });
          await there.arrayBuffer();
          assert.equal(there.status, 200, `${from} → ${target}`);
        }
      }
      t.diagnostic(`${name}: ${moved.length} old addresses, each answered with one hop to a page that answers 200`);
    });

    test("an unknown address gets its language's 404 page with status 404", async () => {
      const r = await fetch(server.url + "/no/such/page/", { redirect: "manual" });
      assert.equal(r.status, 404);
      assert.match(await r.text(), /Unexpected Application Error!/);
      // Under a language's folder, that language's: GitHub Pages serves only
      // the top-level one (docs/deploy.md).
      for (const [address, lang, heading] of [
        ["/de/no-such-page/", "de", "Unerwarteter Anwendungsfehler!"],
        ["/ar/no/such/page.html", "ar", "خطأ غير متوقع في التطبيق!"],
      ]) {
        const missing = await fetch(server.url + address, { redirect: "manual" });
        const body = await missing.text();
        assert.equal(missing.status, 404, address);
        if (host === "github-pages") assert.match(body, /<html lang="en"/, address);
        else {
          assert.match(body, new RegExp(`<html lang="${lang}"`), address);
          assert.ok(body.includes(heading), address);
        }
        // It links no 404 page, and no structured data names one.
        assert.doesNotMatch(body, /404\.html/, address);
      }
    });

    if (production) {
      test("every response carries every header _headers gives its path, as written", () => {
        const rules = parseHeaders(readFileSync(path.join(out, "_headers"), "utf8"));
        const wildcard = (pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
        let checked = 0;
        for (const [url, r] of result.responses) {
          const urlPath = new URL(url).pathname;
          for (const rule of rules.filter((rule) => wildcard(rule.pattern).test(urlPath))) {
            for (const [k, v] of rule.headers) {
              assert.equal(r.headers.get(k), v, `${urlPath}: ${k}`);
              checked += 1;
            }
          }
          // Cloudflare's own caching: HTML revalidated, and a 404 not stored.
          if (urlPath.startsWith("/assets/")) assert.equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable", url);
          else assert.equal(r.headers.get("cache-control"), r.status === 404 ? "no-store" : "public, max-age=0, must-revalidate", url);
        }
        const names = rules.flatMap((rule) => rule.headers.map(([k]) => k.toLowerCase()));
        for (const name of ["content-security-policy", "strict-transport-security", "x-content-type-options", "cache-control"]) {
          assert.ok(names.includes(name), `_headers sets ${name}`);
        }
        assert.ok(checked > result.urls, `${checked} headers checked`);
      });
    }

    if (host === "github-pages") {
      test("each page carries its policies itself, since the host sends no custom headers", async () => {
        assert.equal(existsSync(path.join(out, "_headers")), false);
        for (const [url, r] of result.responses) {
          if (!(r.headers.get("content-type") ?? "").startsWith("text/html")) continue;
          assert.equal(r.headers.get("content-security-policy"), null, url);
          const html = await (await fetch(url)).text();
          assert.match(html, /^<!doctype html>\s*<html[^>]*>\s*<head>\s*<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval';[^"]*"><meta name="referrer" content="strict-origin-when-cross-origin">/, url);
          assert.doesNotMatch(html, /frame-ancestors/, url);
        }
      });
    } else if (!production) {
      test("every page and asset gets the site's headers, and HTML is revalidated", () => {
        const html = new Set(); // pages by address: a query is the same page
        for (const [url, r] of result.responses) {
          for (const name of SECURITY) assert.ok(r.headers.get(name), `${url}: ${name}`);
          const cache = r.headers.get("cache-control");
          if (new URL(url).pathname.startsWith("/assets/")) assert.equal(cache, "public, max-age=31536000, immutable", url);
          else assert.equal(cache, "public, max-age=0, must-revalidate", url);
          if (r.status === 200 && (r.headers.get("content-type") ?? "").startsWith("text/html")) html.add(new URL(url).pathname);
        }
        assert.equal(html.size, result.pages);
      });
    }

    if (host === "nginx") {
      test("scripts and styles are sent from their brotli and gzip twins", async () => {
        const asset = [...result.responses.keys()].find((u) => /\/assets\/islands\/runtime-\w+\.js$/.test(u));
        assert.ok(asset);
        const br = await fetch(asset, { headers: { "Accept-Encoding": "br" } });
        assert.equal(br.headers.get("content-encoding"), "br");
        const file = path.join(out, new URL(asset).pathname);
        // fetch decodes the body; the twin on disk must decode to the same script.
        assert.deepEqual(Buffer.from(await br.arrayBuffer()), readFileSync(file));
        assert.deepEqual(zlib.brotliDecompressSync(readFileSync(`${file}.br`)), readFileSync(file));
        const gz = await fetch(asset, { headers: { "Accept-Encoding": "gzip" } });
        assert.equal(gz.headers.get("content-encoding"), "gzip");
        assert.equal((await fetch(server.url + "/_nginx.conf")).status, 404);
      });

      test("deploy/nginx/site.conf, with the build's _nginx.conf, is a valid nginx configuration", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "site-nginx-conf-"));
        try {
          const key = path.join(dir, "key.pem");
          const cert = path.join(dir, "cert.pem");
          execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=test"], { stdio: "pipe" });
          const site = readFileSync(path.join(root, "deploy/nginx/site.conf"), "utf8")
            .replaceAll("/srv/site/current", out)
            .replace(/ssl_certificate \S+;/, `ssl_certificate ${cert};`)
            .replace(/ssl_certificate_key \S+;/, `ssl_certificate_key ${key};`);
          writeFileSync(path.join(dir, "site.conf"), site);
          writeFileSync(
            path.join(dir, "nginx.conf"),
            `load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;\npid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  include /etc/nginx/mime.types;\n  include ${dir}/site.conf;\n}\n`,
          );
          execFileSync("/usr/sbin/nginx", ["-t", "-q", "-c", path.join(dir, "nginx.conf"), "-p", dir], { stdio: "pipe" });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    } else {
      test("no precompressed twins ship to a host that compresses by itself", () => {
        const twins = [...result.responses.keys()].filter((u) => u.includes("/assets/")).map((u) => path.join(out, new URL(u).pathname));
        assert.ok(twins.length > 0);
        for (const file of twins) assert.equal(existsSync(`${file}.br`) || existsSync(`${file}.gz`), false, file);
      });
    }
  });
}

test("the crawl reports a link that the host would answer with a redirect", async () => {
  const dist = mkdtempSync(path.join(tmpdir(), "site-redirecting-"));
  mkdirSync(path.join(dist, "about"));
  writeFileSync(path.join(dist, "index.html"), '<!doctype html><a href="/about">About</a><a href="/about/">About</a>');
  writeFileSync(path.join(dist, "about", "index.html"), "<!doctype html><p>About</p>");
  writeFileSync(path.join(dist, "404.html"), "<!doctype html><p>Not found</p>");
  const server = await startHost(dist, "cloudflare-pages");
  try {
    const { failures } = await crawl(server.url);
    assert.deepEqual(describeFailures(failures).filter((f) => f.includes("/about")), [
      `308 → /about/  ${server.url}/about  (from <a href> on /)`,
    ]);
  } finally {
    await server.stop();
    rmSync(dist, { recursive: true, force: true });
  }
});

test("a server whose free port another process took before it could listen starts on another", async () => {
  // The port's thief answers every request, as a test's own server would.
  const thief = http.createServer((_, res) => res.end("not the host"));
  await new Promise((resolve) => thief.listen(0, "127.0.0.1", resolve));
  const taken = thief.address().port;
  const free = await freePort();
  const started = [];
  const serve = (port) => {
    const child = spawn(process.execPath, ["-e", `require("node:http").createServer((_, res) => res.end("the host")).listen(${port}, "127.0.0.1")`], { stdio: "ignore" });
    started.push(child);
    return child;
  };
  try {
    const { port, child } = await listeningOnFreePort(serve, { ms: 10_000, why: () => "the server did not start", ports: [taken, free] });
    assert.equal(port, free);
    assert.equal(listenerOf(taken, child.pid), "theirs");
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "the host");
    assert.equal(started.length, 2);
    assert.notEqual(started[0].exitCode ?? started[0].signalCode, null, "the first try is stopped");
  } finally {
    for (const child of started) child.kill("SIGKILL");
    await Promise.all(started.map(exitOf));
    await new Promise((resolve) => thief.close(resolve));
  }
});
