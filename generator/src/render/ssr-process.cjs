// The server-render process. It loads the site's server bundle (the islands, each
// with its props schema, and the site's `render`) and answers one JSON line with
// one JSON line:
//   {"load": "/…/server.cjs"}                → {"ok": true}   (a new bundle; React stays loaded)
//   {"island": "Header", "props": {...}}     → {"html": "…"}
//                                            | {"invalid": ["links[1].href: …", …]}
//                                            | {"error": "…"}
"use strict";
const { relative, sep } = require("node:path");
const { createInterface } = require("node:readline");

let site = null;
let loaded = null;

/** Where a schema issue is: `links[1].href`. */
function where(path) {
  let out = "";
  for (const part of path || []) {
    const key = typeof part === "object" && part !== null ? part.key : part;
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * An island's error in one line: its message and where in the site's sources it
 * was thrown (the bundle has a source map, and Node runs with --enable-source-maps).
 */
function describe(error) {
  if (!(error instanceof Error)) return String(error);
  // The first frame in the site's own files: judged by its path within the site
  // (the process runs in its root), so that a site that itself lies below a
  // `node_modules` or `.site` folder keeps its places; never this process's own
  // code (`[eval]`).
  const frame = (error.stack || "")
    .split("\n")
    .map((line) => /\(?([^()\s]+):(\d+):(\d+)\)?$/.exec(line.trim()))
    .map((m) => m && !m[1].startsWith("node:") && { file: relative(process.cwd(), m[1]), line: m[2], column: m[3] })
    .find((f) => f && !f.file.startsWith("..") && !f.file.startsWith("[") && !f.file.split(sep).includes("node_modules") && f.file.split(sep)[0] !== ".site");
  const at = frame ? ` (${frame.file}:${frame.line}:${frame.column})` : "";
  return `${error.name}: ${error.message}${at}`;
}

function load(file) {
  if (loaded) delete require.cache[require.resolve(loaded)];
  site = require(file);
  loaded = file;
  return { ok: true };
}

function answer(request) {
  if (!site) return { error: "no server bundle is loaded" };
  const island = site.islands[request.island];
  if (!island) return { error: `unknown island ${JSON.stringify(request.island)}` };
  const props = request.props || {};
  // Each props module exports a Standard Schema (zod, valibot, …).
  const checked = island.props["~standard"].validate(props);
  if (checked instanceof Promise) return { error: "its props schema is asynchronous; the build needs a synchronous one" };
  if (checked.issues) {
    return { invalid: checked.issues.map((i) => (where(i.path) ? `${where(i.path)}: ${i.message}` : i.message)) };
  }
  return { html: site.render(island.component, props) };
}

// Stdout carries the answers; anything an island logs goes to stderr.
const out = process.stdout;
console.log = console.info = console.debug = console.warn = console.error;
createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  let reply;
  try {
    const request = JSON.parse(line);
    reply = request.load ? load(request.load) : answer(request);
  } catch (error) {
    reply = { error: describe(error) };
  }
  out.write(`${JSON.stringify(reply)}\n`);
});
