// Runs test files as `node --test --test-concurrency=N` does, each in a process of
// its own and N at a time, but in the order given: `node --test` sorts them by
// name, which can leave the longest file running alone at the end. Ends with how
// long each file ran, longest first, to keep that order honest. The files share
// one Chromium (a launch costs most of a second of processor time, once for each
// file that uses a browser): each connects to it (support.mjs's launchBrowser).
// The files' copies of the site start from one build's bundle (seedCopies).
// The failures are told again after the times, each with its error's first
// lines, so that the end of a long log says why, not only what.
//
// The files after `--` run one at a time beside the N: files that mostly wait
// (on the spec's send delay, on scripts held back as a slow network holds them)
// and so leave the processor to the others.
// Usage: node e2e/run.mjs <jobs> <file>... [-- <file>...]

import { run } from "node:test";
import { spec } from "node:test/reporters";
import { launchBrowserServer, seedCopies } from "./support.mjs";

const [jobs, ...rest] = process.argv.slice(2);
const split = rest.indexOf("--");
const files = split < 0 ? rest : rest.slice(0, split);
const beside = split < 0 ? [] : rest.slice(split + 1);
if (!(Number(jobs) >= 1) || files.length + beside.length === 0) {
  console.error("usage: node e2e/run.mjs <jobs> <file>... [-- <file>...]");
  process.exit(2);
}
// What the files' copies of the site start from: one build's bundle and server
// renders, instead of each copy's first build making them again.
seedCopies();
const browser = await launchBrowserServer();
process.env.E2E_BROWSER = browser.wsEndpoint();

const took = [];
const failed = [];
/** Runs `list`, `concurrency` at a time, reporting as it goes; resolves when done. */
function runFiles(list, concurrency) {
  if (list.length === 0) return Promise.resolve();
  const stream = run({ files: list, concurrency });
  // Each file is a test of its own, named by its path, that completes when its
  // process ends, with the time that process ran.
  stream.on("test:complete", (data) => {
    if (data.nesting === 0 && list.includes(data.name)) took.push([data.name, data.details.duration_ms / 1000]);
  });
  stream.on("test:fail", (data) => {
    process.exitCode = 1;
    // A suite fails with its tests: its own error only says so.
    if (data.details.type === "suite") return;
    const error = data.details.error?.cause ?? data.details.error;
    const text = String(error?.message ?? error).split("\n").slice(0, 8).join("\n      ");
    failed.push(`  ✘ ${data.file ?? ""}: ${data.name}\n      ${text}`);
  });
  const report = stream.compose(spec);
  report.pipe(process.stdout, { end: false });
  return new Promise((resolve) => report.on("end", resolve));
}

await Promise.all([runFiles(files, Number(jobs)), runFiles(beside, 1)]);
const rows = took.sort((a, b) => b[1] - a[1]);
process.stdout.write(`\nEach file's time, longest first${beside.length ? " (beside: run one at a time beside the others, as files that mostly wait)" : ""}:\n`);
for (const [file, seconds] of rows) process.stdout.write(`  ${seconds.toFixed(0).padStart(4)} s  ${file}${beside.includes(file) ? " (beside)" : ""}\n`);
if (failed.length) process.stdout.write(`\nWhat failed:\n${failed.join("\n")}\n`);
browser.close();
