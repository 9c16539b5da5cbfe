// The server-render entry: a long-lived Node process that reads one JSON request
// per line on stdin, `{"island": "Header", "props": {...}}`, and answers with one
// line on stdout, `{"html": "..."}` or `{"error": "..."}`. The generator bundles
// this with every island (see generator/src/bundle.rs).

import { createElement, type ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { createInterface } from "node:readline";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Registry = Record<string, ComponentType<any>>;

export type Reply = { html: string } | { error: string };

export function renderRequest(islands: Registry, line: string): Reply {
  try {
    const request = JSON.parse(line) as { island?: string; props?: Record<string, unknown> };
    const island = request.island ? islands[request.island] : undefined;
    if (!island) {
      return { error: `unknown island ${JSON.stringify(request.island)}` };
    }
    return { html: renderToString(createElement(island, request.props ?? {})) };
  } catch (error) {
    return { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

export function serve(islands: Registry): void {
  // Stdout carries the replies; anything an island logs goes to stderr.
  console.log = console.info = console.debug = console.warn = console.error;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    process.stdout.write(`${JSON.stringify(renderRequest(islands, line))}\n`);
  });
}
