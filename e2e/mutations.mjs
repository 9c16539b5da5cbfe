// Proof that the route checks catch what checking every page fully caught. Each
// defect below is one the route checks must catch; the script applies them one
// at a time to a copy of the site, runs the route checks against that copy in
// both plans, and prints a table of which plan failed:
//
// - `every`: every page at every width with every check (axe, the layout
//   checks), the sweep as it was before the plan;
// - `cover`: the plan `make test` runs (e2e/routes.test.mjs): the cheap checks
//   on every page, the full ones on the pages the build's cover names.
//
// A defect the `every` plan does not catch is no proof of anything, and one the
// `cover` plan misses is a hole in it: either makes the script fail. The copy
// without any defect must pass both, or the table means nothing.
//
// Usage: node e2e/mutations.mjs [name …]   (make mutations; SITE_BIN and
// CHROMIUM as for the tests, EVERY_FILE and PLANS below). Each run's output is
// kept in .site/mutations/.
// Not part of `make test`: it runs the route checks twenty times.

import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import path from "node:path";
import { copySite } from "./support.mjs";

const root = path.resolve(import.meta.dirname, "..");

/** Replaces `from` by `to` in `file` of `site`, failing when `from` is not there. */
function edit(site, file, from, to) {
  const at = path.join(site, file);
  const text = readFileSync(at, "utf8");
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${JSON.stringify(from)}: update the defect`);
  writeFileSync(at, text.replace(from, to));
}

/** Adds `css` at the end of the main stylesheet, after every part it imports: it wins over them. */
function style(site, css) {
  appendFileSync(path.join(site, "styles/main.css"), `\n${css}\n`);
}

/** The defects, each with what it breaks and where. */
export const DEFECTS = [
  {
    name: "contrast",
    what: "a text colour on one block type (team: a person's position) that fails contrast",
    apply: (site) => style(site, ".person__position { color: #b8bcc4; }"),
  },
  {
    name: "wide-on-one-layout",
    what: "an element 20 px wider than a 320 px screen on one layout (the entry layout's facts, on events and job postings)",
    apply: (site) => style(site, ".facts { min-width: 340px; }"),
  },
  {
    name: "unlabelled-input",
    what: "an input without a label in one island (ContactForm: the company field's label names no control)",
    apply: (site) => edit(site, "islands/ContactForm.tsx", '<Field id="contact-company"', '<Field id="contact-company-name"'),
  },
  {
    name: "rtl-overflow",
    what: "an overflow on right-to-left pages only (a person's position, wider than the screen)",
    apply: (site) => style(site, '[dir="rtl"] .person__position { width: 130vw; }'),
  },
  {
    name: "hydration-mismatch",
    what: "a hydration mismatch on one route (/leadership/: the header's text differs in the browser)",
    apply: (site) =>
      edit(
        site,
        "islands/Header.tsx",
        '<div className="site-header__bar container">',
        '<div className="site-header__bar container"><span hidden>{typeof window !== "undefined" && window.location.pathname === "/leadership/" ? "browser" : ""}</span>',
      ),
  },
  {
    name: "console-error",
    what: "a console error on one translated page only (/de/careers/)",
    apply: (site) =>
      edit(site, "islands/runtime.ts", "function start(): void {", 'if (location.pathname === "/de/careers/") console.error("a defect");\n\nfunction start(): void {'),
  },
  {
    name: "inline-script",
    what: "an inline script the CSP refuses on one page (/investors/)",
    apply: (site) =>
      edit(site, "templates/base.html", "{{ island_scripts() }}", '{% if page.route == "/investors/" %}<script>document.body.dataset.defect = "1";</script>{% endif %}{{ island_scripts() }}'),
  },
  {
    name: "image-without-alt",
    what: "an image without alt in one article's Markdown (the German CFO's guide: raw HTML, which Markdown allows)",
    apply: (site) =>
      edit(site, "content/pages/insights/cfo-guide-funding-by-value.de.md", "\n---\n", '\n---\n<img src="/images/article-supply-chain.svg">\n\n'),
  },
  {
    name: "long-title",
    // The site breaks a word too wide for an article's heading (overflow-wrap
    // and, in German, hyphens): the defect takes that away from the articles'
    // headings, and gives one article a title with a word too long for 320 px.
    // A translation's title, so that no other page's translation turns stale.
    what: "a heading too long to fit at 320 px, in one article's title (the German CFO's guide, with a word too long to fit and the articles' headings no longer breaking words)",
    apply: (site) => {
      style(site, ".article__header h1 { overflow-wrap: normal; hyphens: manual; }");
      edit(
        site,
        "content/pages/insights/cfo-guide-funding-by-value.de.md",
        'title: "Der CFO-Leitfaden: Transformation nach Wertbeitrag finanzieren"',
        'title: "Der CFO-Leitfaden: Transformationsfinanzierungsverantwortungsbereiche"',
      );
    },
  },
];

/** PLANS=cover runs the plan alone, such as in another browser (CHROMIUM). */
const PLANS = (process.env.PLANS ?? "every,cover").split(",");
if (!PLANS.length || PLANS.some((p) => !["every", "cover"].includes(p))) throw new Error(`PLANS is a list of every and cover, not ${process.env.PLANS}`);

/**
 * The file of each plan's route checks. EVERY_FILE names another for the `every`
 * plan, such as an older commit's e2e/routes.test.mjs (one that took SITE_ROOT),
 * to compare the plan with the suite as it was.
 */
const FILES = { every: process.env.EVERY_FILE ?? "e2e/routes.test.mjs", cover: "e2e/routes.test.mjs" };

const { ROUTES: _, ...inherited } = process.env;

/** Runs the route checks of `plan` against `site`: whether they failed, and why. */
function routeChecks(site, plan) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--test", "--test-reporter=spec", "--test-name-pattern=^every route", FILES[plan]], {
      cwd: root,
      // ROUTES=every is the old plan; the cover plan is the file as make test runs
      // it, without ROUTES (which would name a file of routes to check alone).
      env: { ...inherited, SITE_ROOT: site, ...(plan === "every" ? { ROUTES: "every" } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const started = Date.now();
    child.on("exit", (code) => resolve({ failed: code !== 0, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/** The first line that says why the checks failed: the first problem listed, or the assertion. */
function why(output) {
  const problem = output.match(/^\s*\+\s+["'](.*)/m)?.[1];
  const line = problem ?? output.split("\n").find((l) => /AssertionError|Error:/.test(l)) ?? "";
  return line.trim().slice(0, 140);
}

async function main() {
  const names = process.argv.slice(2);
  const chosen = names.length ? DEFECTS.filter((d) => names.includes(d.name)) : DEFECTS;
  if (chosen.length !== (names.length || DEFECTS.length)) {
    throw new Error(`unknown defect; the defects are ${DEFECTS.map((d) => d.name).join(", ")}`);
  }
  // Each run's whole output, to read why it failed.
  const logs = path.join(root, ".site/mutations");
  mkdirSync(logs, { recursive: true });
  const rows = [];
  let wrong = 0;
  for (const defect of [{ name: "none", what: "the site as it is (must pass)", apply: () => {} }, ...chosen]) {
    const site = copySite();
    try {
      defect.apply(site);
      const row = { defect };
      for (const plan of PLANS) {
        const result = await routeChecks(site, plan);
        row[plan] = result;
        writeFileSync(path.join(logs, `${defect.name}.${plan}.log`), result.output);
        console.log(`${defect.name} · ${plan}: ${result.failed ? "failed" : "passed"} in ${result.seconds.toFixed(0)} s${result.failed ? `: ${why(result.output)}` : ""}`);
      }
      const expected = defect.name !== "none";
      if (PLANS.some((p) => row[p].failed !== expected)) wrong++;
      rows.push(row);
    } finally {
      rmSync(site, { recursive: true, force: true });
    }
  }
  const cell = (r) => (r ? `${r.failed ? "**caught**" : "passed"} (${r.seconds.toFixed(0)} s)` : "not run");
  console.log("\n| defect | every page fully | the plan |\n|---|---|---|");
  for (const row of rows) console.log(`| ${row.defect.what} | ${cell(row.every)} | ${cell(row.cover)} |`);
  if (wrong) {
    console.log(`\n${wrong} row(s) not as they must be: the site without a defect passes both, and every defect fails both.`);
    process.exitCode = 1;
  }
}

await main();
