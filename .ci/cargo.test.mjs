// One build of `site` serves both the binary and the tests. Cargo builds a crate
// once for each set of features its dependents ask for: a crate that only the
// tests use (a dev-dependency) and that turns on a feature of a crate `site`
// uses builds that crate a second time for the tests, and `site` itself with it
// (half a minute of a fresh clone's `make test`). Such a feature is asked for by
// `site` itself too (generator/Cargo.toml says which and why).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

/** Each package of the dependency graph with the features it is built with. */
function features(edges) {
  const text = execFileSync("cargo", ["tree", "--locked", "-p", "site", "-e", edges, "--prefix", "none", "-f", "{p}|{f}"], {
    encoding: "utf8",
  });
  const found = new Map();
  for (const line of text.split("\n").filter(Boolean)) {
    const [name, list] = line.replace(/ \(\*\)$/, "").split("|");
    found.set(name.replace(/ \(.*\)$/, ""), list);
  }
  return found;
}

test("no dependency of the tests builds a dependency of the binary with other features", () => {
  const binary = features("normal,no-proc-macro");
  const tests = features("normal,dev,no-proc-macro");
  const differ = [...binary].filter(([name, list]) => tests.get(name) !== list).map(([name, list]) => `${name}: [${list}] for the binary, [${tests.get(name)}] with the tests`);
  assert.deepEqual(differ, []);
});
