// Which of site.yml's jobs a commit runs: the workflow as written, its `changes`
// job run for real on a clone of the project with the commit on top, and the
// jobs after it only evaluated (`pretend`), each with the result a case gives.
// The content path's checks themselves are run in content-path.test.mjs, and
// the whole path, timed, by `make bench-publish`.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { logOf, runWorkflow } from "./pipeline.mjs";
import { edit, projectRepository } from "./publish.mjs";
import { root, workflowJob } from "./workflow.mjs";

let repo;
let store;
before(() => {
  repo = projectRepository();
  store = mkdtempSync(path.join(tmpdir(), "site-caches-"));
});
after(() => {
  repo?.remove();
  rmSync(store, { recursive: true, force: true });
});

const AFTER_CHANGES = { test: "success", content: "success", build: "success", deploy: "success", openings: "success" };

/** The result of each job of site.yml for `sha` pushed to `ref` (or `event`), the others pretended. */
async function jobsFor(sha, { event, pretend = {} } = {}) {
  const run = await runWorkflow({
    source: repo.dir,
    sha,
    file: "site.yml",
    event: event ?? { name: "push", ref: "refs/heads/main", before: repo.git("rev-parse", `${sha}^`) },
    vars: { SITE_BASE_URL: "https://www.meridian-digital.com" },
    store,
    pretend: { ...AFTER_CHANGES, ...pretend },
  });
  const results = Object.fromEntries(Object.entries(run.jobs).map(([id, j]) => [id, j.result]));
  const log = logOf(run.jobs.changes);
  rmSync(run.dir, { recursive: true, force: true });
  return { results, path: run.jobs.changes.outputs.path, log };
}

describe("site.yml's path for a commit", () => {
  test("an editor's commit to a page and a picture takes the content path: the content checks, the build and the deploy, not make test", async () => {
    const sha = repo.commit("Publish About us", (dir) => {
      edit(dir, "content/pages/about.yaml", /^title: About us$/m, "title: About Meridian");
      edit(dir, "public/favicon.svg", /<\/svg>\s*$/, "<!-- a new picture --></svg>\n");
    });
    const { results, path: chosen, log } = await jobsFor(sha);
    assert.equal(chosen, "content", log);
    assert.deepEqual(results, { changes: "success", test: "skipped", content: "success", build: "success", deploy: "success", openings: "success" });
  });

  for (const file of ["content/site.yaml", "content/strings/de.yaml", "generator/src/lib.rs", "templates/base.html", "islands/Header.tsx", "styles/main.css", "e2e/routes.test.mjs", "deploy/crawl.mjs", "package-lock.json", "Cargo.lock", ".github/workflows/site.yml"]) {
    test(`a commit that changes ${file} takes the full path: make test, not the content checks`, async () => {
      const sha = repo.commit(`Change ${file}`, (dir) => edit(dir, file, /\s*$/, file.endsWith(".json") || file.endsWith(".lock") ? "\n\n" : "\n\n\n"));
      const { results, path: chosen, log } = await jobsFor(sha);
      assert.equal(chosen, "code", log);
      assert.equal(results.test, "success");
      assert.equal(results.content, "skipped");
      assert.equal(results.deploy, "success");
    });
  }

  test("a content change beside a template change takes the full path", async () => {
    const sha = repo.commit("Words and a template", (dir) => {
      edit(dir, "content/pages/about.yaml", /^title: .*$/m, "title: About us");
      edit(dir, "templates/base.html", /\s*$/, "\n");
    });
    assert.equal((await jobsFor(sha)).path, "code");
  });

  test("a push whose base the clone lacks (several commits, or a new branch) takes the full path", async () => {
    const first = repo.commit("One", (dir) => edit(dir, "content/pages/about.yaml", /^title: .*$/m, "title: About"));
    const sha = repo.commit("Two", (dir) => edit(dir, "content/pages/about.yaml", /^title: .*$/m, "title: About us"));
    const before = repo.git("rev-parse", `${first}^`);
    const several = await jobsFor(sha, { event: { name: "push", ref: "refs/heads/main", before } });
    assert.equal(several.path, "code", several.log);
    const newBranch = await jobsFor(sha, { event: { name: "push", ref: "refs/heads/draft", before: "0".repeat(40) } });
    assert.equal(newBranch.path, "code");
    assert.equal(newBranch.results.test, "success");
  });

  test("a pull request from the editorial workflow that changes content only takes the content path to its preview", async () => {
    const base = repo.git("rev-parse", "HEAD");
    const sha = repo.commit("Draft: About us", (dir) => edit(dir, "content/pages/about.yaml", /^title: .*$/m, "title: About Meridian Digital"));
    const event = { name: "pull_request", ref: "refs/pull/7/merge", headRef: "cms/pages/about", base, head: sha, number: 7 };
    const { results, path: chosen } = await jobsFor(sha, { event });
    assert.equal(chosen, "content");
    assert.deepEqual(results, { changes: "success", test: "skipped", content: "success", build: "success", deploy: "success", openings: "skipped" });
    // A fork's pull request is checked on the same path, and never built with the secrets or published.
    const fork = await jobsFor(sha, { event: { ...event, fromFork: true } });
    assert.deepEqual(fork.results, { changes: "success", test: "skipped", content: "success", build: "skipped", deploy: "skipped", openings: "skipped" });
  });

  test("nothing is published when the content checks fail, nor when make test fails", async () => {
    const sha = repo.commit("Publish", (dir) => edit(dir, "content/pages/about.yaml", /^title: .*$/m, "title: About"));
    const content = await jobsFor(sha, { pretend: { content: "failure" } });
    assert.equal(content.results.deploy, "skipped");
    assert.equal(content.results.openings, "skipped");
    const code = repo.commit("Template", (dir) => edit(dir, "templates/base.html", /\s*$/, "\n\n"));
    const full = await jobsFor(code, { pretend: { test: "failure" } });
    assert.equal(full.results.deploy, "skipped");
  });

  test("the daily run rebuilds and publishes without tests, as before", async () => {
    const sha = repo.git("rev-parse", "HEAD");
    const { results, path: chosen } = await jobsFor(sha, { event: { name: "schedule", ref: "refs/heads/main" } });
    assert.equal(chosen, "code");
    assert.deepEqual(results, { changes: "success", test: "skipped", content: "skipped", build: "success", deploy: "success", openings: "success" });
  });
});

describe("the generator kept between runs", () => {
  const keyOf = (job) => workflowJob("site.yml", job).job.steps.find((s) => s.id === "generator").with.key;

  test("the content checks and the build keep it under one key", () => {
    assert.equal(keyOf("content"), keyOf("build"));
  });

  test("each job keeps, and runs, the binary its compile makes, in a profile of Cargo.toml", () => {
    for (const id of ["content", "build"]) {
      const { steps } = workflowJob("site.yml", id).job;
      const kept = steps.find((s) => s.id === "generator").with.path;
      const compile = steps.map((s) => s.run ?? "").find((run) => /^cargo build/.test(run));
      const profile = compile.match(/--profile (\S+)/)?.[1];
      assert.ok(profile, `${id} compiles with a named profile: ${compile}`);
      assert.match(readFileSync(path.join(root, "Cargo.toml"), "utf8"), new RegExp(`^\\[profile\\.${profile}\\]$`, "m"));
      assert.equal(kept, `target/${profile}/site`, `${id} keeps what \`${compile}\` makes`);
      const runs = steps.map((s) => s.run ?? "").join("\n");
      const named = [...runs.matchAll(/target\/[\w-]+\/site/g)].map((m) => m[0]);
      assert.ok(named.length > 0, `${id} runs the generator`);
      for (const bin of named) assert.equal(bin, kept, `${id} runs the binary it keeps`);
    }
  });

  test("its key covers every file compiled into it: the generator, the crates, the compiler, and what it includes from outside generator/", () => {
    const key = keyOf("build");
    const patterns = [...key.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    assert.match(key, /steps\.rustc\.outputs\.version/);
    for (const needed of ["Cargo.toml", "Cargo.lock", "generator/src/main.rs", "generator/build.rs", "generator/Cargo.toml"]) {
      assert.ok(patterns.some((p) => path.matchesGlob(needed, p)), `${needed} is in the key`);
    }
    // Every include_str! and include_bytes! of the sources, resolved from its file.
    const sources = [];
    const walk = (dir) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(dir, e.name));
        else if (e.name.endsWith(".rs")) sources.push(path.join(dir, e.name));
      }
    };
    walk(path.join(root, "generator", "src"));
    let included = 0;
    for (const file of sources) {
      for (const m of readFileSync(file, "utf8").matchAll(/include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)/g)) {
        const target = path.relative(root, path.resolve(path.dirname(file), m[1]));
        assert.ok(patterns.some((p) => path.matchesGlob(target, p)), `${path.relative(root, file)} includes ${target}, which the key must cover`);
        included++;
      }
    }
    assert.ok(included >= 6, `found ${included} includes`);
  });
});

describe("the packages kept between runs", () => {
  /** Every cache step of the workflows that keeps `folder`, with its job. */
  const keeping = (folder) =>
    ["site.yml", "deploy-cloudflare-pages.yml", "deploy-netlify.yml", "deploy-github-pages.yml", "deploy-nginx.yml"].flatMap((file) =>
      Object.entries(workflowJob(file).workflow.jobs).flatMap(([id, job]) =>
        (job.steps ?? [])
          .filter((s) => /^actions\/cache(\/restore)?@/.test(s.uses ?? "") && s.with.path === folder)
          .map((s) => ({ at: `${file} ${id}`, step: s })),
      ),
    );

  for (const [folder, installedFrom, jobs] of [
    ["node_modules", ["package.json", "package-lock.json", ".node-version", "patches/**"], ["site.yml test", "site.yml content", "site.yml build"]],
    ["deploy/node_modules", ["deploy/package-lock.json", ".node-version"], ["site.yml test", "deploy-cloudflare-pages.yml deploy"]],
  ]) {
    test(`${folder} is kept under one key, of what it is installed from, by ${jobs.join(", ")}`, () => {
      const steps = keeping(folder);
      for (const job of jobs) assert.ok(steps.some((s) => s.at === job), `${job} keeps ${folder}`);
      assert.equal(new Set(steps.map((s) => s.step.with.key)).size, 1, steps.map((s) => `${s.at}: ${s.step.with.key}`).join("\n"));
      const patterns = [...steps[0].step.with.key.matchAll(/'([^']+)'/g)].map((m) => m[1]);
      assert.deepEqual(patterns.toSorted(), installedFrom.toSorted());
    });
  }

  test("make test's job only restores them, so that what its tests leave in node_modules/ is kept for no other job", () => {
    for (const folder of ["node_modules", "deploy/node_modules"]) {
      const step = keeping(folder).find((s) => s.at === "site.yml test").step;
      assert.match(step.uses, /^actions\/cache\/restore@/);
    }
  });
});
