// The generator's bundler: esbuild's JavaScript API in one Node process, driven by
// `site` over stdin and stdout, one JSON line each way:
//   {"id": 1, "live": false, "builds": [{"name": "styles", "options": {...}}, ...]}
//   {"id": 1, "results": [{"name": "styles", "metafile": {...}} | {"name", "errors": [...]}]}
// With "live", each build keeps an esbuild context and later requests rebuild it
// incrementally (site serve); otherwise each is a one-shot build (site build).
// The builds of one request run side by side.

"use strict";
const esbuild = require(process.env.SITE_ESBUILD_MODULE);
const readline = require("node:readline");

const contexts = new Map(); // name → { key, context }

function errorsOf(error) {
  const messages = Array.isArray(error && error.errors) ? error.errors : [];
  if (messages.length === 0) return [{ text: String((error && error.message) || error) }];
  return messages.map((m) => ({
    text: m.text,
    file: m.location ? m.location.file : undefined,
    line: m.location ? m.location.line : undefined,
    // esbuild counts columns from 0.
    column: m.location ? m.location.column + 1 : undefined,
    lineText: m.location ? m.location.lineText : undefined,
    length: m.location ? m.location.length : undefined,
  }));
}

async function run({ name, options }, live) {
  const settings = { ...options, metafile: true, write: true, logLevel: "silent" };
  try {
    if (!live) return { name, metafile: (await esbuild.build(settings)).metafile };
    const key = JSON.stringify(settings);
    let entry = contexts.get(name);
    if (!entry || entry.key !== key) {
      if (entry) await entry.context.dispose();
      entry = { key, context: await esbuild.context(settings) };
      contexts.set(name, entry);
    }
    return { name, metafile: (await entry.context.rebuild()).metafile };
  } catch (error) {
    return { name, errors: errorsOf(error) };
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", async (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: null, fatal: String(error) })}\n`);
    return;
  }
  const results = await Promise.all(request.builds.map((b) => run(b, request.live)));
  process.stdout.write(`${JSON.stringify({ id: request.id, results })}\n`);
});
lines.on("close", async () => {
  for (const { context } of contexts.values()) await context.dispose();
  process.exit(0);
});
