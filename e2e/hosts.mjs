// Debian's nginx configured the way each host serves a folder, from the hosts'
// own documentation (docs/deploy.md cites it):
//   cloudflare-pages  /about → 308 /about/, /about/index.html → 308 /about/,
//                     /404.html → 308 /404; `_headers` rules joined per path;
//                     `_redirects` lines answered with their status;
//                     default Cache-Control: public, max-age=0, must-revalidate
//   netlify           /about → 301 /about/; `_headers`, `_redirects` as above;
//                     same default
//   github-pages      /about → 301 /about/; no custom headers, no redirects (the
//                     build writes a page at each old address); max-age=600
//   nginx             not an imitation: the `_nginx.conf` the build writes,
//                     included in a server block like deploy/nginx/site.conf
// Every host answers an unknown path with `404.html` and status 404: under a
// language's folder, that language's (`/de/404.html`), Cloudflare Pages by
// itself (the nearest `404.html` up the tree), Netlify by the build's
// `_redirects` rules (`/de/* /de/404.html 404`), nginx by the build's
// `error_page`s; GitHub Pages serves only the top-level one.
//
// Where a host has a local runtime of its own, that is used instead of an
// imitation: Cloudflare Pages' is workerd, through `wrangler pages dev`
// (startWorkerd). Netlify's local server applies neither its redirects nor its
// header merging as Netlify does, so nginx stays its stand-in.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { exitOf, freePort, listeningOnFreePort, withoutFaketime } from "./support.mjs";

const DEFAULT_CACHE = "public, max-age=0, must-revalidate";

export const HOSTS = {
  "cloudflare-pages": { folderRedirect: 308, redirectsIndexHtml: true, redirectsHtmlFiles: true, headersFile: true, defaults: { "Cache-Control": DEFAULT_CACHE } },
  netlify: { folderRedirect: 301, redirectsIndexHtml: false, redirectsHtmlFiles: false, headersFile: true, defaults: { "Cache-Control": DEFAULT_CACHE } },
  "github-pages": { folderRedirect: 301, redirectsIndexHtml: false, redirectsHtmlFiles: false, headersFile: false, defaults: { "Cache-Control": "max-age=600" } },
  nginx: null,
};

/** Every file of `dir`, relative, with `/` separators. */
function walk(dir, prefix = "") {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full, `${prefix}${name}/`));
    else out.push(`${prefix}${name}`);
  }
  return out;
}

/** The rules of a `_headers` file. */
export function parseHeaders(text) {
  const rules = [];
  for (const line of text.split("\n")) {
    if (!line.trim() || line.trim().startsWith("#")) continue;
    if (!/^\s/.test(line)) rules.push({ pattern: line.trim(), headers: [] });
    else if (rules.length > 0 && line.trim().startsWith("!")) {
      // Cloudflare's detach: this rule drops the header wider rules set.
      (rules.at(-1).detach ??= []).push(line.trim().slice(1).trim().toLowerCase());
    } else if (rules.length > 0) {
      const i = line.indexOf(":");
      rules.at(-1).headers.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
    }
  }
  return rules;
}

/**
 * `_redirects`, as Cloudflare Pages and Netlify read it: one rule a line, `from to
 * [status][!]` (301 when none; `!` forces it over an existing file); `#` comments.
 */
export function parseRedirects(text) {
  const rules = [];
  for (const line of text.split("\n")) {
    const [from, to, status = "301"] = line.trim().split(/\s+/);
    if (!from || from.startsWith("#") || !to) continue;
    rules.push({ from, to, status: Number.parseInt(status, 10), force: status.endsWith("!") });
  }
  return rules;
}

/**
 * The 404 page each folder is answered with where no file is, as the host
 * finds it: `[["/de/", "/de/404.html"], …]`, the longest folders first.
 */
function notFoundPages(dist, profile) {
  let pages = [];
  if (profile === HOSTS["cloudflare-pages"]) {
    // The nearest 404.html up the tree: every folder that has one.
    pages = walk(dist).filter((f) => f.endsWith("/404.html")).map((f) => [`/${f.slice(0, -"404.html".length)}`, `/${f}`]);
  } else if (profile === HOSTS.netlify && existsSync(path.join(dist, "_redirects"))) {
    // Netlify: its `_redirects` rules with status 404.
    pages = parseRedirects(readFileSync(path.join(dist, "_redirects"), "utf8"))
      .filter((r) => r.status === 404 && r.from.endsWith("/*"))
      .map((r) => [r.from.slice(0, -1), r.to]);
  }
  return pages.sort((a, b) => b[0].length - a[0].length);
}

/** Whether a `_headers` pattern matches a path: `*` any rest, `:name` one segment. */
function matches(pattern, urlPath) {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/:[A-Za-z]+/g, "[^/]+");
  return new RegExp(`^${source}$`).test(urlPath);
}

/** The headers a host sends for `urlPath`: every matching rule (joined), then its defaults. */
export function hostHeaders(profile, rules, urlPath) {
  const out = new Map(); // lower-case name → [name, value]
  if (profile.headersFile) {
    const matching = rules.filter((r) => matches(r.pattern, urlPath));
    const detached = new Set(matching.flatMap((r) => r.detach ?? []));
    for (const rule of matching) {
      for (const [k, v] of rule.headers) {
        if (detached.has(k.toLowerCase()) && !(rule.detach ?? []).includes(k.toLowerCase())) continue;
        const prior = out.get(k.toLowerCase());
        out.set(k.toLowerCase(), [k, prior ? `${prior[1]}, ${v}` : v]);
      }
    }
  }
  for (const [k, v] of Object.entries(profile.defaults)) if (!out.has(k.toLowerCase())) out.set(k.toLowerCase(), [k, v]);
  return [...out.values()];
}

const quote = (v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
const addHeaders = (headers) => headers.map(([k, v]) => `    add_header ${k} ${quote(v)} always;`).join("\n");

/** A server block that answers as the host would, one exact location per address. */
function imitation(dist, profile) {
  const rules = profile.headersFile && existsSync(path.join(dist, "_headers")) ? parseHeaders(readFileSync(path.join(dist, "_headers"), "utf8")) : [];
  const blocks = [];
  const serve = (urlPath, file) =>
    blocks.push(`  location = ${urlPath} {\n${addHeaders(hostHeaders(profile, rules, urlPath))}\n    try_files /${file} =404;\n  }`);
  const redirect = (urlPath, status, to) => blocks.push(`  location = ${urlPath} {\n    return ${status} ${to}$is_args$args;\n  }`);
  const redirects = path.join(dist, "_redirects");
  if (profile.headersFile && existsSync(redirects)) {
    for (const { from, to, status } of parseRedirects(readFileSync(redirects, "utf8"))) if (status !== 404) redirect(from, status, to);
  }
  for (const file of walk(dist)) {
    if (file === "_headers" || file === "_redirects" || file.startsWith(".")) continue;
    if (file === "index.html" || file.endsWith("/index.html")) {
      const folder = `/${file.slice(0, -"index.html".length)}`;
      serve(folder, file);
      if (folder !== "/") redirect(folder.slice(0, -1), profile.folderRedirect, folder);
      if (profile.redirectsIndexHtml) redirect(`/${file}`, 308, folder);
      else serve(`/${file}`, file);
    } else if (file.endsWith(".html") && profile.redirectsHtmlFiles) {
      redirect(`/${file}`, 308, `/${file.slice(0, -5)}`);
      serve(`/${file.slice(0, -5)}`, file);
    } else {
      serve(`/${file}`, file);
    }
  }
  // A folder with its own 404 page answers what is no file with it.
  const folders = notFoundPages(dist, profile).map(
    ([folder, page], i) => `  location @not_found_${i} {
${addHeaders(hostHeaders(profile, rules, page))}
    rewrite ^ ${page} break;
  }
  location ${folder} {
    error_page 404 @not_found_${i};
    return 404;
  }`,
  );
  return `
  absolute_redirect off;
  error_page 404 @not_found;
  location @not_found {
${addHeaders(hostHeaders(profile, rules, "/404.html"))}
    rewrite ^ /404.html break;
  }
  location / {
    return 404;
  }
${folders.join("\n")}
${blocks.join("\n")}`;
}

/**
 * Waits until `url` answers at all, for at most `ms`; if the server `child` exits
 * or time runs out, it is killed and the error says `why()`.
 */
async function answering(url, child, ms, why) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await fetch(url + "/", { redirect: "manual" });
      return;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(why());
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts nginx serving `dist` as `host` does; resolves to `{ url, stop, log }`. */
export async function startHost(dist, host) {
  const dir = mkdtempSync(path.join(tmpdir(), "site-nginx-"));
  const brotli = "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so";
  const profile = HOSTS[host];
  const server = profile
    ? imitation(dist, profile)
    : `
  include ${path.join(dist, "_nginx.conf")};
  brotli_static on;
  gzip on;
  gzip_types text/css application/javascript image/svg+xml application/xml text/xml text/plain;`;
  const config = (port) => `
${userInfo().uid === 0 ? "user root;" : ""}
${existsSync(brotli) ? `load_module ${brotli};` : ""}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${dist};
${server}
  }
}
`;
  let stderr = "";
  const log = () => stderr + (existsSync(path.join(dir, "error.log")) ? readFileSync(path.join(dir, "error.log"), "utf8") : "");
  const { port, child } = await listeningOnFreePort(
    (port) => {
      writeFileSync(path.join(dir, "nginx.conf"), config(port));
      stderr = "";
      const child = spawn("/usr/sbin/nginx", ["-c", path.join(dir, "nginx.conf"), "-p", dir], { stdio: ["ignore", "ignore", "pipe"] });
      child.stderr.on("data", (d) => (stderr += d));
      return child;
    },
    { ms: 10_000, why: () => `nginx did not start for ${host}:\n${log()}\n${readFileSync(path.join(dir, "nginx.conf"), "utf8")}` },
  );
  const exited = exitOf(child);
  const url = `http://127.0.0.1:${port}`;
  await answering(url, child, 10_000, () => `nginx did not answer for ${host}:\n${log()}`);
  return {
    url,
    log,
    async stop() {
      // SIGQUIT is nginx's graceful shutdown.
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const WRANGLER = path.resolve(import.meta.dirname, "..", "deploy", "node_modules", ".bin", "wrangler");

/**
 * Serves `dist` with Cloudflare's own runtime, workerd, through `wrangler pages
 * dev` (offline; its state in a folder of its own). Resolves to `{ url, stop,
 * log }`.
 */
export async function startWorkerd(dist) {
  const dir = mkdtempSync(path.join(tmpdir(), "site-workerd-"));
  let output = "";
  const { port, child } = await listeningOnFreePort(
    async (port) => {
      // Its DevTools port too: left to wrangler, two started at once (tests run
      // side by side) may both take the same one, and the second fails. `port`
      // is let go until wrangler takes it, so the kernel may hand it out again.
      let inspector = await freePort();
      while (inspector === port) inspector = await freePort();
      output = "";
      const child = spawn(
        WRANGLER,
        ["pages", "dev", dist, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--compatibility-date", "2026-10-01", "--log-level", "warn"],
        { cwd: dir, env: { ...withoutFaketime(), CI: "1", HOME: dir, WRANGLER_SEND_METRICS: "false" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      return child;
    },
    { ms: 30_000, why: () => `wrangler pages dev did not start:\n${output}` },
  );
  const exited = exitOf(child);
  const url = `http://127.0.0.1:${port}`;
  await answering(url, child, 30_000, () => `wrangler pages dev did not answer:\n${output}`);
  return {
    url,
    log: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
