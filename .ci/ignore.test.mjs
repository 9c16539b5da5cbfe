// The source folder generator/src/build/ is kept by git even for a contributor
// whose global ignore file (core.excludesFile) lists `build/`, as many do for
// build output: the repository's .gitignore takes it back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

/** Whether git would ignore `file` with `patterns` in the global ignore file. */
function ignored(file, patterns) {
  const dir = mkdtempSync(path.join(tmpdir(), "site-ignore-"));
  const global = path.join(dir, "ignore");
  writeFileSync(global, patterns);
  const r = spawnSync("git", ["-c", `core.excludesFile=${global}`, "check-ignore", "-q", file], { cwd: root });
  rmSync(dir, { recursive: true, force: true });
  assert.ok(r.status === 0 || r.status === 1, r.stderr.toString());
  return r.status === 0;
}

test("a new file of generator/src/build/ is not ignored when the global ignore file lists build/", () => {
  assert.equal(ignored("generator/src/build/a_new_stage.rs", "build/\n"), false);
});

test("the check itself sees a global pattern: a build/ folder elsewhere is ignored", () => {
  assert.equal(ignored("bench/build/output.txt", "build/\n"), true);
});
