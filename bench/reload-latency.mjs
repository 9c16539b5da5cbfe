// Edit-to-reload latency of `site serve`: saves a file, then waits for the reload
// event that open pages receive. Reports p50 and p95 for content and island edits.
//
//   SITE_BIN=target/release/site node bench/reload-latency.mjs [content edits] [island edits]

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { copySite, startServer } from "../e2e/support.mjs";

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Subscribes to the reload stream; `next(name)` resolves at the next event of that name. */
async function subscribe(url) {
  const response = await fetch(`${url}/__site/events`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const waiting = [];
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const name = /^event: (.+)$/m.exec(buffer.slice(0, end))?.[1];
        buffer = buffer.slice(end + 2);
        const i = waiting.findIndex((w) => w.name === name);
        if (i >= 0) waiting.splice(i, 1)[0].resolve(performance.now());
      }
    }
  })();
  return {
    next: (name) => new Promise((resolve) => waiting.push({ name, resolve })),
    close: () => reader.cancel(),
  };
}

export async function measure({ contentEdits = 20, islandEdits = 5 } = {}) {
  const site = copySite();
  const server = await startServer({ siteRoot: site });
  const events = await subscribe(server.url);
  const pause = () => new Promise((r) => setTimeout(r, 250));
  try {
    await pause();
    const edit = async (file, change, times) => {
      const full = path.join(site, file);
      const original = readFileSync(full, "utf8");
      const samples = [];
      for (let i = 0; i < times; i++) {
        const reloaded = events.next("reload");
        const started = performance.now();
        writeFileSync(full, change(original, i));
        samples.push((await reloaded) - started);
        await pause();
      }
      return samples;
    };
    const content = await edit(
      "content/pages/index.yaml",
      (text, i) => text.replace("Reinvent your enterprise", `Reinvent your enterprise ${i}`),
      contentEdits,
    );
    const island = await edit(
      "islands/Header.tsx",
      (text, i) => text.replace('aria-label="Menu"', `aria-label="Menu ${i}"`),
      islandEdits,
    );
    const summary = (s) => ({ n: s.length, p50: Math.round(percentile(s, 50)), p95: Math.round(percentile(s, 95)) });
    return { content: summary(content), island: summary(island) };
  } finally {
    events.close();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measure({ contentEdits: Number(process.argv[2] ?? 20), islandEdits: Number(process.argv[3] ?? 5) });
  console.log(JSON.stringify(result));
}
