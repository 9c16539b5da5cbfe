// From a push to the live site: site.yml run as written on this machine
// (deploy/tests/pipeline.mjs), to the Cloudflare Pages stand-in served by
// workerd (deploy/tests/publish.mjs), timed from the start of the first job
// until the production address serves the commit's new words. Three cases:
//
//   a  a one-line content commit, caches warm: the content path
//   b  a commit that changes the generator, caches warm: the full path
//   c  the first run, no cache: the full path, from nothing
//
//   node bench/publish.mjs [--cases a,b,c] [--runs N] [--guard]
//
// Caches persist in .site/bench-publish/caches, as GitHub keeps them between
// runs, and each job runs in .site/bench-publish/runners/<job>, the same paths
// every run, as a GitHub runner's are; case c starts each run from an empty
// store of its own. Case a's caches are warmed first: the generator by the
// deploy binary of this checkout (`make bench` builds it), kept under the key
// the workflow computes, as the last code commit's run would have left it, and
// the packages by one unmeasured run. Case b's by what case c left when it ran
// just before (`--cases c,b`), else by an unmeasured full run. Prints each run's
// seconds and its jobs' times, then JSON (the last line). --guard fails when
// case a's median is over A_BOUND seconds.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expandString } from "../deploy/tests/expressions.mjs";
import { Caches, logOf } from "../deploy/tests/pipeline.mjs";
import { edit, projectRepository, publish, startHosts } from "../deploy/tests/publish.mjs";
import { root, workflowJob } from "../deploy/tests/workflow.mjs";

/** The bound of case a (issue: an editor's change live in about a minute). */
export const A_BOUND = 90;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const cases = option("--cases", "a").split(",");
const runs = Number(option("--runs", "3"));
const guard = args.includes("--guard");
const warmStore = path.join(root, ".site", "bench-publish", "caches");
/** Each job's runner, at the same paths in every run, as on GitHub. */
const runners = path.join(root, ".site", "bench-publish", "runners");
mkdirSync(warmStore, { recursive: true });

const log = (line) => process.stderr.write(`${line}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * Keeps this checkout's deploy binary under the key site.yml's `generator`
 * step computes for `sha` of `repo`, unless an entry has it already.
 */
async function keepGenerator(repo, sha, store) {
  const binary = path.join(root, "target", "deploy", "site");
  if (!existsSync(binary)) throw new Error("no target/deploy/site: run cargo build --profile deploy first");
  const checkout = mkdtempSync(path.join(tmpdir(), "site-key-"));
  try {
    execFileSync("git", ["clone", "-q", "--no-checkout", repo.dir, checkout]);
    execFileSync("git", ["-C", checkout, "checkout", "-q", sha]);
    const { job } = workflowJob("site.yml", "content");
    const version = execFileSync("bash", ["-c", "rustc --version | cut -d' ' -f2"], { encoding: "utf8" }).trim();
    const key = expandString(job.steps.find((s) => s.id === "generator").with.key, { runner: { os: "Linux" }, steps: { rustc: { outputs: { version } } } }, { status: { ok: true }, workspace: checkout });
    await new Caches(store).save(key, [binary]);
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
}

const hosts = await startHosts();
const repo = projectRepository();
/**
 * One line of the terms of use, new words each time: a page no test reads and
 * none translates, so that the commit passes `make test` as well as the content
 * checks, and makes no translation stale.
 */
const PAGE = { file: "content/pages/terms-of-use.md", route: "/terms-of-use/", line: /^(These terms are governed by the laws of India, and the courts of Hyderabad have jurisdiction\.).*$/m };
const reword = (dir) => {
  const words = `Reviewed in round ${++rounds}.`;
  edit(dir, PAGE.file, PAGE.line, `$1 ${words}`);
  return words;
};
let rounds = 0;
/** A content commit: that one line. */
const contentCommit = () => {
  let words;
  const sha = repo.commit(`Publish the terms of use (${rounds + 1})`, (dir) => (words = reword(dir)));
  return { sha, words };
};
/** A commit that changes the generator (a comment in its command line) and that line. */
const generatorCommit = () => {
  let words;
  const sha = repo.commit(`Generator and the terms of use (${rounds + 1})`, (dir) => {
    words = reword(dir);
    edit(dir, "generator/src/main.rs", /\s*$/, `\n// ${words}\n`);
  });
  return { sha, words };
};

async function once(label, made, store) {
  const before = repo.git("rev-parse", `${made.sha}^`);
  const { seconds, jobs, run } = await publish({
    repo,
    sha: made.sha,
    event: { name: "push", ref: "refs/heads/main", before },
    hosts,
    store,
    runners,
    route: PAGE.route,
    words: made.words,
  });
  const times = Object.entries(jobs).map(([id, j]) => `${id} ${j.result} ${((j.ended - j.started) / 1000).toFixed(1)} s`);
  log(`(${label}) ${seconds === null ? "never served" : `${seconds.toFixed(1)} s`}: ${times.join(", ")}`);
  const failed = Object.entries(jobs).filter(([, j]) => j.result === "failure");
  for (const [id, j] of failed) log(`--- ${id} failed:\n${logOf(j).slice(-4000)}`);
  if (seconds === null || failed.length) throw new Error(`case ${label}: the commit was not published (its runners: ${run.dir})`);
  rmSync(run.dir, { recursive: true, force: true });
  return { seconds, jobs: Object.fromEntries(Object.entries(jobs).map(([id, j]) => [id, { result: j.result, started: j.started / 1000, ended: j.ended / 1000 }])) };
}

const results = {};
/** The caches the last run of case c left, which case b after it starts from. */
let coldLeft = null;
try {
  for (const c of cases) {
    const samples = [];
    if (c === "a") {
      const first = contentCommit();
      await keepGenerator(repo, first.sha, warmStore);
      await once("a, warming the caches", first, warmStore);
      for (let i = 0; i < runs; i++) samples.push(await once("a", contentCommit(), warmStore));
    } else if (c === "b") {
      // Warm: what a first run (case c, just before) left, or one run now.
      const store = coldLeft ?? warmStore;
      if (!coldLeft) await once("b, warming the caches", generatorCommit(), store);
      for (let i = 0; i < runs; i++) samples.push(await once("b", generatorCommit(), store));
    } else if (c === "c") {
      for (let i = 0; i < runs; i++) {
        if (coldLeft) rmSync(coldLeft, { recursive: true, force: true });
        coldLeft = mkdtempSync(path.join(tmpdir(), "site-caches-cold-"));
        samples.push(await once("c", generatorCommit(), coldLeft));
      }
    } else {
      throw new Error(`no case ${c} (a, b or c)`);
    }
    const seconds = samples.map((s) => s.seconds);
    results[c] = { median: median(seconds), min: Math.min(...seconds), max: Math.max(...seconds), runs: samples };
    log(`(${c}) median ${results[c].median.toFixed(1)} s (${results[c].min.toFixed(1)}–${results[c].max.toFixed(1)}), ${seconds.length} runs`);
  }
} finally {
  await hosts.stop();
  repo.remove();
  if (coldLeft) rmSync(coldLeft, { recursive: true, force: true });
}
console.log(JSON.stringify({ bound: A_BOUND, cases: results }));
if (guard && results.a && results.a.median > A_BOUND) {
  log(`REGRESSED: a one-line content commit took ${results.a.median.toFixed(1)} s from push to live (median), over its bound of ${A_BOUND} s`);
  process.exit(1);
}
