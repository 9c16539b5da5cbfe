// The server-render process: one JSON request per line on stdin,
// `{"island": "Header", "props": {...}}`, one answer per line on stdout:
// `{"html": "..."}`, `{"invalid": ["links[1].href: …", …]}` when the props do not
// match the island's `<Name>.props.ts`, or `{"error": "..."}`.
// The generator appends the imports and the `ISLANDS` table of the site.

import { relative } from "node:path";
import { createInterface } from "node:readline";

type Issue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> };
/** A Standard Schema (zod, valibot, …): what a props module exports as `props`. */
type Schema = { "~standard": { validate(value: unknown): { issues?: ReadonlyArray<Issue> } | Promise<unknown> } };
type Island = { component: unknown; props: Schema };

function where(path: Issue["path"]): string {
  let out = "";
  for (const part of path ?? []) {
    const key = typeof part === "object" ? part.key : part;
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function answer(islands: Record<string, Island>, render: (component: never, props: never) => string, line: string): object {
  try {
    const request = JSON.parse(line) as { island?: string; props?: Record<string, unknown> };
    const island = request.island ? islands[request.island] : undefined;
    if (!island) return { error: `unknown island ${JSON.stringify(request.island)}` };
    const props = request.props ?? {};
    const checked = island.props["~standard"].validate(props);
    if (checked instanceof Promise) return { error: "its props schema is asynchronous; the build needs a synchronous one" };
    if (checked.issues) {
      return { invalid: checked.issues.map((i) => (where(i.path) ? `${where(i.path)}: ${i.message}` : i.message)) };
    }
    return { html: render(island.component as never, props as never) };
  } catch (error) {
    return { error: describe(error) };
  }
}

/**
 * An island's error in one line: its message and where in the site's sources it
 * was thrown (the bundle has a source map, and Node runs with --enable-source-maps).
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const frame = (error.stack ?? "")
    .split("\n")
    .map((line) => /\(?([^()\s]+):(\d+):(\d+)\)?$/.exec(line.trim()))
    .find((m) => m && !m[1].startsWith("node:") && !m[1].includes("/node_modules/") && !m[1].includes("/.site/"));
  const where = frame ? ` (${relative(process.cwd(), frame[1])}:${frame[2]}:${frame[3]})` : "";
  return `${error.name}: ${error.message}${where}`;
}

export function serve(islands: Record<string, Island>, render: (component: never, props: never) => string): void {
  // Stdout carries the answers; anything an island logs goes to stderr.
  console.log = console.info = console.debug = console.warn = console.error;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => process.stdout.write(`${JSON.stringify(answer(islands, render, line))}\n`));
}
