// What a commit changed: whether only content (what editors change) or code,
// and which pages of the site it touched.
//
//   node deploy/changes.mjs path <base> <head>
//   node deploy/changes.mjs pages <base> <head> <dist before> <dist after>
//
// `path` prints `content` when every file the commit range changed is content
// (what editors change: the pages under `content/`, and the pictures and files
// under `public/`), and `code` otherwise: for any other file, for the site's
// settings (`content/site.yaml`, which configure the build itself) and the words
// files (`content/strings/`, whose words the islands also show in states only
// the browser journeys of `make test` reach: a toast, the search, the open
// menu), and whenever the choice is unclear (no base, a base the clone does not
// have, nothing changed). With GITHUB_OUTPUT set it also writes `path=…` there.
//
// `pages` prints the routes, one a line, of the pages of `<dist after>` that the
// change touched, found by comparing the two builds of the same binary: a page
// whose HTML differs or is new, and a page that refers to a file whose bytes
// differ or that is new (a picture replaced under the same name). A change to
// `content/site.yaml` or a words file (`content/strings/`) touches every page, and
// so does a range that cannot be told. A build folder that does not exist is an
// error, not a change that touched nothing.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Where what editors change lives. */
const CONTENT = [/^content\//, /^public\//];
/** Content that configures more than pages: the full path. */
const CONFIGURES = [/^content\/site\.yaml$/, /^content\/strings\//];
/** Content every page shows: the site's settings and the words files. */
const EVERY_PAGE = [/^content\/site\.yaml$/, /^content\/strings\//];

/**
 * The files changed between `base` and `head` in the clone at `cwd`, or null when
 * that cannot be told: no base (a new branch's first push), or one the clone
 * lacks (a push that rewrote history). A renamed file counts at both its names.
 */
export function changedFiles(base, head, cwd = process.cwd()) {
  if (!base || /^0+$/.test(base)) return null;
  try {
    const out = execFileSync("git", ["diff", "--name-only", "--no-renames", "-z", base, head], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return out.split("\0").filter(Boolean);
  } catch {
    return null;
  }
}

/** `content` when every file is a page's content or a file of public/, else `code` (also for an unknown or empty change). */
export function pathFor(files) {
  if (!files || files.length === 0) return "code";
  const content = (f) => CONTENT.some((re) => re.test(f)) && !CONFIGURES.some((re) => re.test(f));
  return files.every(content) ? "content" : "code";
}

/** Every file under `dir`, by its path relative to it, with `/` between names. */
function filesOf(dir) {
  const found = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else found.push(name);
    }
  };
  walk("");
  return found;
}

const digest = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** The route of a page's file: `about/index.html` is `/about/`, `404.html` is `/404.html`. */
function routeOf(file) {
  if (file === "index.html") return "/";
  if (file.endsWith("/index.html")) return `/${file.slice(0, -"index.html".length)}`;
  return `/${file}`;
}

/**
 * The routes of the pages of `after` that differ from `before` or refer to a file
 * that does, sorted; every page of `after` when `every` is set.
 */
export async function touchedPages(before, after, { every = false } = {}) {
  for (const dir of [before, after]) if (!existsSync(dir)) throw new Error(`${dir}: no such build folder`);
  const files = filesOf(after);
  const pages = files.filter((f) => f.endsWith(".html"));
  if (every) return pages.map(routeOf).sort();
  // Only here: the `path` command runs before any package is installed.
  const { references } = await import("./crawl.mjs");
  const changed = new Set();
  for (const file of files) {
    const old = path.join(before, file);
    if (!existsSync(old) || digest(old) !== digest(path.join(after, file))) changed.add(file);
  }
  const touched = new Set();
  for (const page of pages) {
    if (changed.has(page)) {
      touched.add(routeOf(page));
      continue;
    }
    const html = readFileSync(path.join(after, page), "utf8");
    const base = new URL(routeOf(page), "http://site.invalid");
    // What the page loads (pictures, scripts, styles, islands), not where it links
    // to: a link to a changed page draws the same.
    const loaded = references(html).filter(({ where }) => !/^<(a|area) href>$|rel="(canonical|alternate|next|prev)"|og:url/.test(where));
    const refersToChanged = loaded.some(({ url }) => {
      // An address that is no URL, or escapes no file, names no changed file.
      try {
        const target = new URL(url, base);
        return target.origin === base.origin && changed.has(decodeURIComponent(target.pathname).slice(1));
      } catch {
        return false;
      }
    });
    if (refersToChanged) touched.add(routeOf(page));
  }
  return [...touched].sort();
}

/** The pages a change between `base` and `head` touched, from the builds of each. */
export async function pagesFor(base, head, before, after, cwd = process.cwd()) {
  const files = changedFiles(base, head, cwd);
  const every = !files || files.some((f) => EVERY_PAGE.some((re) => re.test(f)));
  return touchedPages(before, after, { every });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, ...args] = process.argv.slice(2);
  if (command === "path" && args.length === 2) {
    const chosen = pathFor(changedFiles(args[0], args[1]));
    console.log(chosen);
    if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `path=${chosen}\n`);
  } else if (command === "pages" && args.length === 4) {
    try {
      for (const route of await pagesFor(...args)) console.log(route);
    } catch (error) {
      console.error(error.message);
      process.exit(1);
    }
  } else {
    console.error("usage: node deploy/changes.mjs path <base> <head>\n       node deploy/changes.mjs pages <base> <head> <dist before> <dist after>");
    process.exit(2);
  }
}
