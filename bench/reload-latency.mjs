// Edit-to-served latency of `site serve`: saves a file, then asks the server for
// what the edit changes until the new content comes back. The clock runs from
// just before the save to the first response that has it; that includes the
// watcher's debounce, the rebuild and the write. Reports p50, p95, min and max.
//
//   SITE_BIN=target/release/site node bench/reload-latency.mjs [edits] [--corpus SITE_DIR]
//
// Cases: a content edit (the home page's heading), a style edit (a custom
// property in a stylesheet, read back from the page's stylesheet), an island edit
// (the header's menu label, read back from the server-rendered HTML), and, with
// --corpus, one post of a large corpus site (bench/site around the shared corpus).

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { copySite, startServer } from "../e2e/support.mjs";

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `read()` until it returns true; resolves to the time it first did. */
async function until(read, timeoutMs = 20_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await read()) return performance.now();
    if (performance.now() > deadline) throw new Error("the edit never appeared");
    await pause(1);
  }
}

const text = async (url) => {
  try {
    return await (await fetch(url)).text();
  } catch {
    return "";
  }
};

/**
 * Edits `file` of `root` `times` times with `change(original, i)` and waits each
 * time for `served(i)`; the file is restored afterwards.
 */
async function edits(root, file, times, change, served) {
  const full = path.join(root, file);
  const original = readFileSync(full, "utf8");
  const samples = [];
  try {
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      writeFileSync(full, change(original, i));
      samples.push((await until(() => served(i))) - started);
      await pause(300);
    }
  } finally {
    writeFileSync(full, original);
  }
  return samples;
}

const summary = (s) => ({
  n: s.length,
  p50: Math.round(percentile(s, 50)),
  p95: Math.round(percentile(s, 95)),
  min: Math.round(Math.min(...s)),
  max: Math.round(Math.max(...s)),
});

export async function measure({ times = 20, corpus } = {}) {
  const results = {};
  const site = copySite();
  const server = await startServer({ siteRoot: site });
  try {
    await pause(500);
    const home = () => text(server.url + "/");
    results.content = summary(
      await edits(site, "content/pages/index.yaml", times,
        (t, i) => t.replace("Reinvent your enterprise", `Reinvent your enterprise ${i}`),
        async (i) => (await home()).includes(`Reinvent your enterprise ${i} around`)),
    );
    results.style = summary(
      await edits(site, "styles/_tokens.css", times,
        (t, i) => t.replace(":root {", `:root {\n  --bench-edit: ${i + 1}px;`),
        async (i) => {
          const href = /href="(\/assets\/styles\/main-\w+\.css)"/.exec(await home())?.[1];
          return Boolean(href) && (await text(server.url + href)).includes(`--bench-edit: ${i + 1}px`);
        }),
    );
    results.island = summary(
      await edits(site, "islands/Header.tsx", times,
        (t, i) => t.replace("aria-label={words.menu}", `aria-label="Menu ${i}"`),
        async (i) => (await home()).includes(`aria-label="Menu ${i}"`)),
    );
  } finally {
    await server.stop();
  }
  if (corpus) {
    const big = await startServer({ siteRoot: corpus, keepRoot: true });
    try {
      await pause(500);
      const post = "content/pages/posts/p05000.md";
      const body = () => text(big.url + "/posts/p05000/");
      results.corpus = summary(
        await edits(corpus, post, times,
          (t, i) => t.replace(/\n## /, `\nEdited ${i}.\n\n## `),
          async (i) => (await body()).includes(`Edited ${i}.`)),
      );
    } finally {
      await big.stop();
    }
  }
  return results;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const c = args.indexOf("--corpus");
  const corpus = c >= 0 ? path.resolve(args[c + 1]) : undefined;
  const times = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--corpus") ?? 20);
  console.log(JSON.stringify(await measure({ times, corpus })));
}
