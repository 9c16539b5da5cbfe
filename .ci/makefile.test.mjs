// The Makefile's rules, read as make reads them: every command that runs Node.js
// or npm waits for the project's Node.js (node_modules/.installed), so that on a
// fresh clone under `make -j4` nothing runs on the machine's own Node.js first;
// and `make test` builds the site once.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";

/** Each target of a Makefile's text: its prerequisites and its recipe lines. */
export function rules(text) {
  const found = new Map();
  let current = [];
  for (const line of text.replace(/\\\n/g, " ").split("\n")) {
    if (line.startsWith("\t")) {
      for (const target of current) found.get(target).recipe.push(line.slice(1));
      continue;
    }
    const rule = /^([^\s:=#][^:=]*?):(?!=)(.*)$/.exec(line);
    if (!rule || line.includes(":=")) {
      if (line.trim() && !line.startsWith("#")) current = [];
      continue;
    }
    current = rule[1].trim().split(/\s+/).filter((t) => !t.startsWith("."));
    for (const target of current) {
      const before = found.get(target) ?? { prerequisites: [], recipe: [] };
      before.prerequisites.push(...rule[2].split("#")[0].trim().split(/\s+/).filter(Boolean));
      found.set(target, before);
    }
  }
  return found;
}

/** Whether `target` waits for `wanted`, directly or through its prerequisites. */
function waitsFor(all, target, wanted, seen = new Set()) {
  if (seen.has(target)) return false;
  seen.add(target);
  return (all.get(target)?.prerequisites ?? []).some((p) => p === wanted || waitsFor(all, p, wanted, seen));
}

/** The targets whose recipe runs Node.js or npm but do not wait for the project's. */
export function withoutProjectNode(text) {
  const all = rules(text);
  const node = /(^|[\s;&|@])(npm|npx|node)\s|\$\(ESBUILD\)|node_modules\/\.bin\//;
  return [...all]
    .filter(([target, rule]) => target !== "node_modules/.installed" && rule.recipe.some((l) => node.test(l)))
    .filter(([target]) => !waitsFor(all, target, "node_modules/.installed"))
    .map(([target]) => target);
}

test("every command of the Makefile that runs Node.js or npm waits for the project's Node.js", () => {
  const makefile = readFileSync(new URL("../Makefile", import.meta.url), "utf8");
  assert.deepEqual(withoutProjectNode(makefile), []);
});

test("a rule that runs npm before the project's Node.js is installed is found", () => {
  const makefile = `node_modules/.installed: package.json
\tnpm ci
setup: node_modules/.installed
deploy/node_modules/.installed: deploy/package.json
\tnpm ci --prefix deploy
e2e: setup
\tnode --test e2e
`;
  assert.deepEqual(withoutProjectNode(makefile), ["deploy/node_modules/.installed"]);
  const fixed = makefile.replace("deploy/package.json\n", "deploy/package.json node_modules/.installed\n");
  assert.deepEqual(withoutProjectNode(fixed), []);
});

test("make test builds the site once: `site check` and the browser tests share the build", () => {
  // make -n prints each command instead of running it, and runs the sub-makes
  // the same way; the jobserver of an enclosing make is not handed down.
  const commands = execFileSync("make", ["-n", "--no-print-directory", "test"], {
    cwd: new URL("..", import.meta.url),
    env: { ...process.env, MAKEFLAGS: "" },
    encoding: "utf8",
  }).split("\n");
  assert.equal(commands.filter((c) => /\/site build /.test(c)).length, 1, commands.join("\n"));
  assert.ok(commands.some((c) => /\/site check /.test(c)));
});
