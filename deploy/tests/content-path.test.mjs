// The content path's checks (site.yml's `content` job) refuse what a content
// change can break. Each case commits defects an editor could make on top of
// a clone of the project, and runs the job's checking step as the workflow
// writes it, in that clone, with this build of `site` as the kept generator.
// The step must fail, saying what `make test` would say of each defect (the
// step runs the same commands: `site build --strict-budgets`, `site check`, and
// e2e/routes.test.mjs's checks of a page). Defects that the same command finds
// share a case, since each command reports every problem of its run; a defect
// that stops the build before the command that finds another gets its own.
// A failed `content` job publishes nothing: pipeline.test.mjs shows the deploy
// skipped.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { edit, projectRepository } from "./publish.mjs";
import { root, runStep, step, workflowJob } from "./workflow.mjs";

const bin = path.resolve(root, process.env.SITE_BIN ?? "target/debug/site");
const job = workflowJob("site.yml", "content");
const checks = step(job, "Build, check, and check the touched pages in Chromium");
/** Where the job's cache step puts the kept generator (target/<profile>/site). */
const kept = job.job.steps.find((s) => s.id === "generator").with.path;

let repo;
let base;
before(() => {
  repo = projectRepository();
  base = repo.first;
});
after(() => repo?.remove());

/**
 * Runs the content job's checks on `sha` (after `base`) in a clone of the
 * repository, as the job's checkout, install and kept binary leave it.
 */
async function contentChecks(sha) {
  const workspace = mkdtempSync(path.join(tmpdir(), "site-content-path-"));
  try {
    execFileSync("git", ["clone", "-q", "--no-local", repo.dir, workspace]);
    execFileSync("git", ["-C", workspace, "checkout", "-q", "--detach", sha]);
    // `npm ci` as done: the project's packages, and the files make installs them
    // from dated before they were (the project's own stamp is left as it is).
    symlinkSync(path.join(root, "node_modules"), path.join(workspace, "node_modules"));
    const installed = statSync(path.join(root, "node_modules", ".installed")).mtime;
    const before = new Date(installed.getTime() - 60_000);
    for (const file of [".node-version", "package.json", "package-lock.json", ...readdirSync(path.join(workspace, "patches")).map((p) => `patches/${p}`)]) {
      utimesSync(path.join(workspace, file), before, before);
    }
    mkdirSync(path.join(workspace, path.dirname(kept)), { recursive: true });
    symlinkSync(bin, path.join(workspace, kept));
    // The pictures' caches, keyed by content, as a runner's first build would make them.
    for (const cache of ["images", "social"]) {
      const from = path.join(root, ".site", cache);
      if (existsSync(from)) cpSync(from, path.join(workspace, ".site", cache), { recursive: true });
    }
    const result = await runStep(job, checks, {
      workspace,
      contexts: { needs: { changes: { outputs: { base } } }, github: { sha } },
      timeoutMs: 300_000,
    });
    return { ...result, log: `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, "") };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** A commit of `edit` on `base`; the clone goes back to `base` after. */
function defect(message, change) {
  repo.git("checkout", "-q", "-f", base);
  repo.git("checkout", "-q", "-B", `defect-${Math.random().toString(36).slice(2)}`);
  return repo.commit(message, change);
}

/** `count` KB of text that gzip cannot shrink much: a page far over its budget. */
function incompressible(kb) {
  let x = 2463534242;
  const words = [];
  while (words.join(" ").length < kb * 1024) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words.push((x >>> 0).toString(36));
  }
  return words.join(" ");
}

describe("the content path refuses a content change that breaks the site", () => {
  test("a sound content change passes, and only the pages it touched are checked in Chromium", async () => {
    const sha = defect("A new line in About us", (dir) => edit(dir, "content/pages/about.yaml", /^(\s+heading:) Practitioners who build, not just advise$/m, "$1 Practitioners who build and deliver"));
    const result = await contentChecks(sha);
    assert.equal(result.code, 0, result.log);
    const touched = Number(result.log.match(/The change touched (\d+) pages?:/)?.[1]);
    assert.ok(touched >= 1 && touched <= 4, result.log);
    assert.match(result.log, /^\s+\/about\/$/m);
  });

  // Each defect, the part of the checks that finds it, and what it must say.
  const defects = [
    {
      what: "a link to no page",
      foundBy: "site check",
      change: (dir) => edit(dir, "content/pages/accessibility.md", /We reply within five working days\./, "We reply within five working days. See [our plans](/accessibility/plans/)."),
      says: /the link to `\/accessibility\/plans\/` leads to no page of this site/,
    },
    {
      what: "an image without alt",
      foundBy: "site check",
      change: (dir) => edit(dir, "content/pages/accessibility.md", /## Report a problem\n/, "## Report a problem\n\n<img src=\"/images/hero-about.svg\">\n"),
      says: /image \/images\/hero-about\.svg has no alt attribute/,
    },
    {
      what: "a title too long for a 320 px screen",
      foundBy: "the route checks",
      change: (dir) => edit(dir, "content/pages/about.yaml", /^(\s+heading:) Practitioners who build, not just advise$/m, "$1 Transformationsfinanzierungsverantwortungsbereichsleiterinnen"),
      says: /\/about\/: 320 px: wider than the screen: h1\.hero__heading "Transformationsfinanzierungsve"/,
    },
    {
      what: "a page over its budget",
      foundBy: "the build's budgets",
      change: (dir) => edit(dir, "content/pages/accessibility.md", /We reply within five working days\./, `We reply within five working days.\n\n${incompressible(120)}`),
      says: /budgets: \/accessibility\/: HTML is [\d.]+ KB after gzip, over its budget of 30 KB/,
    },
    {
      what: "YAML that does not parse",
      foundBy: "the build's reading",
      change: (dir) => edit(dir, "content/pages/about.yaml", /^title: About us$/m, "title: [About us"),
      says: /content\/pages\/about\.yaml:2:8: this `\[` is never closed/,
    },
    {
      // A heading that skips a level is axe-core's best practice, not a WCAG rule,
      // and the checks run WCAG's: a link with no words is one.
      what: "an axe violation in its Markdown: a link with no words",
      foundBy: "the route checks",
      change: (dir) => edit(dir, "content/pages/accessibility.md", /We reply within five working days\./, "We reply within five working days. [](/contact/)"),
      says: /\/accessibility\/: 320 px: link-name: Links must have discernible text/,
    },
  ];
  // One case, one commit, for the defects each part finds (the file's opening says why).
  for (const [foundBy, found] of Map.groupBy(defects, (d) => d.foundBy)) {
    const what = found.map((d) => d.what).join(", and ");
    test(`${what} (${foundBy}): the checks fail and say so${found.length > 1 ? " of each" : ""}`, async () => {
      const result = await contentChecks(defect(what, (dir) => found.forEach((d) => d.change(dir))));
      assert.notEqual(result.code, 0, result.log);
      for (const d of found) assert.match(result.log, d.says, `${d.what}:\n${result.log}`);
    });
  }
});
