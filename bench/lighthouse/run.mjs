// `make lighthouse`: Lighthouse (npm, this folder's own package) against
// Debian's Chromium for the spec's routes (LIGHTHOUSE_ROUTES overrides), mobile
// and desktop presets, the median of LIGHTHOUSE_RUNS (3) runs each. Prints a Markdown table and writes it to
// bench/results/lighthouse.md.

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startServer } from "../../e2e/support.mjs";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const ROUTES = (process.env.LIGHTHOUSE_ROUTES ?? "/,/about/,/services/,/industries/,/insights/,/contact/").split(",");
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync";
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function lighthouse(url, preset, dir) {
  const out = path.join(dir, "report.json");
  const args = [url, "--quiet", `--chrome-flags=${FLAGS}`, "--only-categories=performance,accessibility,best-practices,seo", "--output=json", `--output-path=${out}`];
  if (preset === "desktop") args.push("--preset=desktop");
  await run(path.join(import.meta.dirname, "node_modules/.bin/lighthouse"), args, { env: { ...process.env, CHROME_PATH: "/usr/bin/chromium" }, maxBuffer: 1 << 26 });
  const report = JSON.parse(readFileSync(out, "utf8"));
  const score = (c) => Math.round(report.categories[c].score * 100);
  const audit = (a) => report.audits[a].numericValue;
  return {
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    fcp: audit("first-contentful-paint"),
    si: audit("speed-index"),
    lcp: audit("largest-contentful-paint"),
    tbt: audit("total-blocking-time"),
    cls: audit("cumulative-layout-shift"),
  };
}

/** Lighthouse sometimes fails to record a trace (NO_NAVSTART, NO_FCP); such a run is
 * run again, up to twice, and says so. Any other failure stops the report. */
async function retried(measure) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measure();
    } catch (error) {
      const transient = /Runtime error encountered/.test(String(error.stderr ?? error));
      if (!transient || attempt === 3) throw error;
      console.error(`lighthouse: ${String(error.stderr).trim()} (run again)`);
    }
  }
}

const server = await startServer();
const dir = mkdtempSync(path.join(tmpdir(), "lighthouse-"));
const lines = [
  "# Lighthouse",
  "",
  `Lighthouse from npm, Debian's Chromium, \`site serve\`; median of ${RUNS} runs. Reproduce with \`make lighthouse\`.`,
  "",
  "| route | preset | performance | accessibility | best practices | SEO | FCP | SI | LCP | TBT | CLS |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
];
try {
  for (const route of ROUTES) {
    for (const preset of ["mobile", "desktop"]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await retried(() => lighthouse(server.url + route, preset, dir)));
      const m = (k) => median(runs.map((r) => r[k]));
      const line = `| ${route} | ${preset} | ${m("performance")} | ${m("accessibility")} | ${m("bestPractices")} | ${m("seo")} | ${(m("fcp") / 1000).toFixed(2)} s | ${(m("si") / 1000).toFixed(2)} s | ${(m("lcp") / 1000).toFixed(2)} s | ${Math.round(m("tbt"))} ms | ${m("cls").toFixed(3)} |`;
      lines.push(line);
      console.error(line);
    }
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
const text = lines.join("\n") + "\n";
mkdirSync(path.join(root, "bench/results"), { recursive: true });
writeFileSync(path.join(root, "bench/results/lighthouse.md"), text);
// The report is also the last section of docs/performance.md, between its markers.
const doc = path.join(root, "docs/performance.md");
const page = readFileSync(doc, "utf8").replace(
  /(<!-- make lighthouse: report -->\n)[\s\S]*?(<!-- \/make lighthouse -->)/,
  (_, start, end) => `${start}${text}${end}`,
);
writeFileSync(doc, page);
console.log(text);
