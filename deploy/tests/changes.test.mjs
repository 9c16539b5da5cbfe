// Which path of site.yml a commit takes, and which pages a content change
// touched (deploy/changes.mjs): commits in a real clone, and two real builds of
// a copy of the site with the same binary.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BUILD_CLOCK, copySite } from "../../e2e/support.mjs";
import { changedFiles, pagesFor, pathFor } from "../changes.mjs";
import { root } from "./workflow.mjs";

const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");

/** A clone with one commit of `files`; `commit(changes)` adds one and gives its hash. */
function repository(dir, files) {
  const git = (...args) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
  git("init", "-q");
  const commit = (changes = {}) => {
    for (const [file, text] of Object.entries(changes)) {
      const full = path.join(dir, file);
      if (text === null) rmSync(full);
      else {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
    }
    git("add", "-A");
    git("-c", "user.name=Editor", "-c", "user.email=editor@example.com", "commit", "-qm", "change", "--allow-empty");
    return git("rev-parse", "HEAD");
  };
  return { git, commit, first: commit(files) };
}

describe("the path a commit takes", () => {
  let dir;
  let repo;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "site-changes-"));
    repo = repository(dir, {
      "content/pages/about.yaml": "title: About\n",
      "public/images/hero.svg": "<svg/>",
      "templates/base.html": "<html></html>",
      "generator/src/lib.rs": "",
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const pathOf = (changes) => {
    const base = repo.git("rev-parse", "HEAD");
    const head = repo.commit(changes);
    return pathFor(changedFiles(base, head, dir));
  };

  test("a change to a page's words, a picture added and one replaced: content", () => {
    assert.equal(pathOf({ "content/pages/about.yaml": "title: About us\n" }), "content");
    assert.equal(pathOf({ "public/images/new.jpg": "jpeg", "public/images/hero.svg": "<svg></svg>" }), "content");
  });

  test("a template, the generator, a test, a lockfile or a workflow: code, alone or beside content", () => {
    assert.equal(pathOf({ "templates/base.html": "<html lang=en></html>" }), "code");
    assert.equal(pathOf({ "generator/src/lib.rs": "// a comment\n", "content/pages/about.yaml": "title: About\n" }), "code");
    for (const file of ["e2e/x.test.mjs", "Cargo.lock", "package-lock.json", ".github/workflows/site.yml", "styles/main.css", "islands/x.tsx", "deploy/x.mjs", "Makefile"]) {
      assert.equal(pathOf({ [file]: "x" }), "code", file);
    }
  });

  test("the site's settings or a words file, alone: code", () => {
    assert.equal(pathOf({ "content/site.yaml": "tagline: Other words\n" }), "code");
    assert.equal(pathOf({ "content/strings/de.yaml": "page:\n  skip: Zum Inhalt\n" }), "code");
  });

  test("a file moved out of content counts at both its names: code", () => {
    const base = repo.git("rev-parse", "HEAD");
    mkdirSync(path.join(dir, "templates/pages"), { recursive: true });
    renameSync(path.join(dir, "content/pages/about.yaml"), path.join(dir, "templates/pages/about.yaml"));
    const head = repo.commit();
    assert.deepEqual(changedFiles(base, head, dir).sort(), ["content/pages/about.yaml", "templates/pages/about.yaml"]);
    assert.equal(pathFor(changedFiles(base, head, dir)), "code");
  });

  test("when the choice is unclear, the full path: no base, a base the clone lacks, nothing changed", () => {
    const head = repo.git("rev-parse", "HEAD");
    assert.equal(pathFor(changedFiles("0000000000000000000000000000000000000000", head, dir)), "code");
    assert.equal(pathFor(changedFiles("", head, dir)), "code");
    assert.equal(pathFor(changedFiles("1234567890abcdef1234567890abcdef12345678", head, dir)), "code");
    assert.equal(pathOf({}), "code");
  });
});

describe("the pages a content change touched", () => {
  let site;
  let repo;
  let base;
  const dists = [];
  /** Builds the site as it is into a folder of its own. */
  const build = () => {
    const out = mkdtempSync(path.join(tmpdir(), "site-changes-dist-"));
    dists.push(out);
    execFileSync(bin, ["build", "--root", site, "--out", out], { env: { ...process.env, ...BUILD_CLOCK }, stdio: "ignore" });
    return out;
  };
  /** `file` with the first line that `line` matches given other words. */
  const edit = (file, line, to) => {
    const text = readFileSync(path.join(site, file), "utf8");
    assert.match(text, line, `${file} has a line ${line}`);
    return { [file]: text.replace(line, to) };
  };

  before(() => {
    site = copySite();
    writeFileSync(path.join(site, ".gitignore"), ".site/\n");
    repo = repository(site, {});
    base = { commit: repo.git("rev-parse", "HEAD"), dist: build() };
  });
  after(() => {
    rmSync(site, { recursive: true, force: true });
    for (const dist of dists) rmSync(dist, { recursive: true, force: true });
  });

  /** The pages touched from `base` to the site with `changes` committed; the site goes back to `base` after. */
  const touchedBy = async (changes) => {
    const head = repo.commit(changes);
    const pages = await pagesFor(base.commit, head, base.dist, build(), site);
    repo.git("reset", "-q", "--hard", base.commit);
    return pages;
  };

  test("one line of About's words: About's page (and its translations, which note it) and no page it does not show on", async () => {
    const pages = await touchedBy(edit("content/pages/about.yaml", /^( +heading:) .*$/m, "$1 Other words"));
    assert.ok(pages.includes("/about/"), pages.join(" "));
    assert.ok(!pages.includes("/contact/"), pages.join(" "));
    assert.ok(pages.every((p) => p.endsWith("/about/")), pages.join(" "));
    assert.ok(pages.length < 5, `a few pages, not the site: ${pages.join(" ")}`);
  });

  test("a picture replaced under the same name: each page that shows it", async () => {
    const svg = readFileSync(path.join(site, "public/images/hero-about.svg"), "utf8");
    const pages = await touchedBy({ "public/images/hero-about.svg": svg.replace("</svg>", "<!-- again --></svg>") });
    assert.ok(pages.includes("/about/"), pages.join(" "));
    assert.ok(!pages.includes("/contact/"), pages.join(" "));
  });

  test("a words file or the site's settings: every page, whatever the builds show", async () => {
    const every = readFileSync(path.join(base.dist, "sitemap.xml"), "utf8").match(/<loc>/g).length;
    const words = await touchedBy(edit("content/strings/de.yaml", /^( +skip:) .*$/m, "$1 Andere Worte"));
    assert.ok(words.length >= every, `${words.length} pages of ${every} in the sitemap`);
    // The settings' rule holds even where the two builds are the same.
    const head = repo.commit(edit("content/site.yaml", /^(tagline:) .*$/m, "$1 Other words"));
    const settings = await pagesFor(base.commit, head, base.dist, base.dist, site);
    repo.git("reset", "-q", "--hard", base.commit);
    assert.deepEqual(settings, words);
  });

  test("a build folder that does not exist is an error, not a change that touched nothing", async () => {
    await assert.rejects(pagesFor(base.commit, base.commit, base.dist, path.join(base.dist, "missing")), /no such build folder/);
    await assert.rejects(pagesFor(base.commit, base.commit, path.join(base.dist, "missing"), base.dist), /no such build folder/);
  });
});
