// A preview's address on its pull request's commit: each deploy workflow's step
// "The preview's address on its commit", run as written against the loopback
// stand-in of GitHub's API (e2e/github-api.mjs), posts a commit status that
// GitHub's GraphQL API then gives for the commit, as the content editor reads it
// to show a draft's preview.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startGitHub } from "../../e2e/github-api.mjs";
import { root, runStep, step, workflowJob } from "./workflow.mjs";

const TOKEN = "ghp_actions_token_for_tests";

let repo;
let github;
let head;
before(async () => {
  repo = mkdtempSync(path.join(tmpdir(), "site-status-"));
  const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "README.md"), "site\n");
  git("-c", "user.name=Site", "-c", "user.email=site@example.com", "add", "-A");
  git("-c", "user.name=Site", "-c", "user.email=site@example.com", "commit", "-qm", "site");
  head = git("rev-parse", "HEAD");
  github = await startGitHub({ repoDir: repo, owner: "meridian", name: "website", token: TOKEN });
});
after(async () => {
  await github?.stop();
  rmSync(repo, { recursive: true, force: true });
});

/** The commit's statuses, as the editor asks GitHub's GraphQL API for them. */
async function statusesOf(sha) {
  const query = `query { repository(owner: "meridian", name: "website") { object(oid: "${sha}") { ... on Commit { status { contexts { context state targetUrl } } } } } }`;
  const response = await fetch(github.graphqlUrl, {
    method: "POST",
    headers: { Authorization: `token ${TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
  });
  const { data } = await response.json();
  return data.repository.object.status?.contexts ?? [];
}

for (const [file, context, url] of [
  ["deploy-cloudflare-pages.yml", "Cloudflare Pages preview", "https://cms-pages-index.meridian.pages.dev"],
  ["deploy-netlify.yml", "Netlify preview", "https://cms-pages-index--meridian.netlify.app"],
]) {
  describe(`${file}: the preview's address on its commit`, () => {
    const job = workflowJob(file);
    const mark = step(job, "The preview's address on its commit");

    test("is asked for on a pull request's preview alone", () => {
      assert.equal(mark.if, "${{ !inputs.production && inputs.commit != '' }}");
      assert.equal(job.job.permissions.statuses, "write");
    });

    test("posts a status the editor reads back with the preview's address", async () => {
      const result = await runStep(job, mark, {
        workspace: root,
        contexts: { inputs: { commit: head }, steps: { publish: { outputs: { url } } }, github: { token: TOKEN } },
        extraEnv: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: "meridian/website" },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`${context} at ${url.replace(/[./]/g, "\\$&")}`));
      assert.deepEqual(
        (await statusesOf(head)).find((c) => c.context === context),
        { context, state: "SUCCESS", targetUrl: url },
      );
    });

    test("fails, saying so, when GitHub refuses the token", async () => {
      const result = await runStep(job, mark, {
        workspace: root,
        contexts: { inputs: { commit: head }, steps: { publish: { outputs: { url } } }, github: { token: "wrong" } },
        extraEnv: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: "meridian/website" },
      });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /answered HTTP 401: Bad credentials/);
    });
  });
}
