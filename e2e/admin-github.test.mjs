// The editor on the live site, publishing through GitHub: the site built with
// `admin.enabled`, served by Cloudflare's own runtime (workerd), its editor
// signed in with a token against a loopback stand-in of GitHub's REST and
// GraphQL APIs (github-api.mjs) that keeps this site's files in a real git
// repository. An edit saved is one commit whose tree differs from its parent by
// that one line; with the editorial workflow a save is a branch and a pull
// request, and publishing merges it.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startGitHub } from "./github-api.mjs";
import { startWorkerd } from "./hosts.mjs";
import { BUILD_CLOCK, EDITOR_START, HOME_ENTRY, copySite, launchBrowser, openPage } from "./support.mjs";

const root = path.resolve(import.meta.dirname, "..");
const TOKEN = "ghp_editor_token_for_tests";

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The site in a git repository of its own, GitHub's stand-in over it, and its build with the editor, served. */
async function publishedSite({ workflow }) {
  const site = copySite();
  const git = (...args) => execFileSync("git", ["-C", site, ...args], { encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  const github = await startGitHub({ repoDir: site, owner: "meridian", name: "website", token: TOKEN });
  const config = path.join(site, "content/site.yaml");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(
      /\nadmin:\n  enabled: false\n/,
      `\nadmin:\n  enabled: true\n  repo: meridian/website\n  api_root: ${github.apiRoot}\n${workflow ? "  publish_mode: editorial_workflow\n" : ""}`,
    ),
  );
  git("-c", "user.name=Site", "-c", "user.email=site@example.com", "add", "-A");
  git("-c", "user.name=Site", "-c", "user.email=site@example.com", "commit", "-qm", "The site");
  const out = mkdtempSync(path.join(tmpdir(), "site-admin-"));
  execFileSync(path.resolve(root, process.env.SITE_BIN ?? "target/debug/site"), ["build", "--root", site, "--out", out, "--for", "cloudflare-pages"], {
    env: { ...process.env, ...BUILD_CLOCK },
    stdio: "pipe",
  });
  // What started before a failure is stopped, or this file's process would never end.
  const host = await startWorkerd(out).catch(async (error) => {
    await github.stop();
    rmSync(out, { recursive: true, force: true });
    rmSync(site, { recursive: true, force: true });
    throw error;
  });
  return {
    site,
    git,
    github,
    host,
    async stop() {
      await host.stop();
      await github.stop();
      rmSync(out, { recursive: true, force: true });
      rmSync(site, { recursive: true, force: true });
    },
  };
}

/** The editor, signed in with a token, on Home's entry, its hero heading changed. */
async function editHome(served) {
  const { page, context, problems } = await openPage(browser, 1280);
  await page.goto(`${served.host.url}/admin/`);
  await page.getByRole("button", { name: "Sign In Using Access Token" }).click({ timeout: EDITOR_START });
  await page.getByRole("textbox").fill(TOKEN);
  await page.getByRole("button", { name: /^Sign In$/ }).click();
  await page.getByText("Pages", { exact: true }).first().waitFor({ timeout: EDITOR_START });
  await page.goto(`${served.host.url}/admin/#/collections/pages/entries/index`);
  const heading = page.getByRole("textbox", { name: "Heading" }).first();
  await heading.waitFor({ timeout: 20_000 });
  await heading.fill("Digital services for what comes next");
  return { page, context, problems };
}

/** Whether `condition` holds within `ms`, asked every 100 ms. */
async function within(condition, page, ms) {
  for (let waited = 0; !condition(); waited += 100) {
    if (waited >= ms) return false;
    await page.waitForTimeout(100);
  }
  return true;
}

async function until(condition, page, what) {
  if (!(await within(condition, page, 20_000))) assert.fail(`waited 20 s for ${what}`);
}

describe("publishing from the editor", () => {
  let served;
  before(async () => {
    served = await publishedSite({ workflow: false });
  });
  after(async () => {
    await served?.stop();
  });

  test("the live site's editor has its own policy, which names the GitHub API, and the site keeps its own", async () => {
    const response = await fetch(`${served.host.url}/admin/`);
    // The window of "Sign In with GitHub" must be able to answer the editor.
    assert.equal(response.headers.get("cross-origin-opener-policy"), "same-origin-allow-popups");
    assert.equal((await fetch(`${served.host.url}/`)).headers.get("cross-origin-opener-policy"), "same-origin");
    const editor = response.headers.get("content-security-policy");
    assert.match(editor, new RegExp(`connect-src 'self' data: blob: ${served.github.apiRoot.replace(/[./]/g, "\\$&")} `));
    assert.equal(editor.split("default-src").length, 2, "one policy, not the site's joined to it");
    const home = (await fetch(`${served.host.url}/`)).headers.get("content-security-policy");
    assert.match(home, /style-src 'self';/);
    assert.ok(!home.includes(served.github.apiRoot));
  });

  test("Save publishes: one commit on main whose tree differs from its parent by the edited line", async () => {
    const before = served.git("rev-parse", "main");
    const { page, context } = await editHome(served);
    await page.getByRole("button", { name: /^Save$/ }).click();
    await until(() => served.git("rev-parse", "main") !== before, page, "a commit on main");
    const after = served.git("rev-parse", "main");
    assert.equal(served.git("rev-list", "--count", `${before}..${after}`), "1");
    assert.equal(served.git("diff", "--numstat", before, after), "1\t1\tcontent/pages/index.yaml");
    assert.match(served.git("diff", "-U0", before, after), /\n\+    heading: Digital services for what comes next$/);
    assert.deepEqual(served.github.unknown, [], "the editor called nothing the stand-in does not know");
    await context.close();
  });
});

describe("publishing with the editorial workflow", () => {
  let served;
  before(async () => {
    served = await publishedSite({ workflow: true });
  });
  after(async () => {
    await served?.stop();
  });

  test("Save makes a branch and a pull request; publishing merges it into main", async () => {
    const before = served.git("rev-parse", "main");
    const { page, context } = await editHome(served);
    await page.getByRole("button", { name: /^Save$/ }).click();
    await until(() => served.github.pulls.size === 1, page, "a pull request");
    const [pull] = served.github.pulls.values();
    const branch = served.git("for-each-ref", "--format=%(refname:short)", "refs/heads/cms");
    assert.equal(branch, "cms/pages/index");
    assert.equal(served.git("rev-parse", "main"), before, "a draft leaves main alone");
    assert.equal(served.git("diff", "--numstat", "main", branch), "1\t1\tcontent/pages/index.yaml");
    assert.equal(pull.draft, true);

    await page.getByRole("button", { name: "Send for Review" }).last().click();
    await page.waitForFunction(() => /In Review/i.test(document.body.innerText), null, { timeout: 20_000 });
    // Sending it may close the entry: then it is opened again from the list.
    const status = page.getByRole("button", { name: /^Status:/ });
    await status.click({ timeout: 5_000 }).catch(async () => {
      await page.getByLabel("Content Library").getByText(HOME_ENTRY).click();
      await status.click({ timeout: 20_000 });
    });
    const ready = () => pull.labels.some((l) => /pending_publish/.test(l));
    const readyItem = page.locator('[role^="menuitem"], [role="option"]').filter({ hasText: /Ready/ }).first();
    await readyItem.click();
    // A busy machine may take the choice before the menu answers it: with no label
    // after 5 s, Ready is chosen again, twice at most (choosing Ready twice is Ready).
    for (let again = 0; again < 2 && !(await within(ready, page, 5_000)); again++) {
      await status.click({ timeout: 5_000 }).catch(() => {});
      await readyItem.click({ timeout: 5_000 }).catch(() => {});
    }
    await until(ready, page, "the Ready label");
    await page.getByRole("button", { name: /^Publish/ }).first().click();
    await page.getByRole("alertdialog").or(page.getByRole("dialog")).getByRole("button", { name: "Publish", exact: true }).last().click();
    await until(() => pull.merged === true, page, "the merge");
    const merged = served.git("rev-parse", "main");
    assert.equal(served.git("rev-list", "--parents", "-n", "1", merged).split(" ").length, 3, "a merge commit");
    assert.equal(served.git("diff", "--numstat", before, merged), "1\t1\tcontent/pages/index.yaml");
    assert.deepEqual(served.github.unknown, []);
    await context.close();
  });
});
