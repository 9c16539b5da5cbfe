// The preview beside the editor under `site serve`: the page the file makes, as
// served, again after every save (the server-sent events of live reload), and
// the build's own error, with its file, line and field, when a save does not
// build. A page is shown from its HTML (`srcdoc`), because the site's pages
// may not be framed.

import { createElement } from "react";

type Preview = { routes: Record<string, string>; collections: string[] };

const frames = new Map<HTMLIFrameElement, string>();
let preview: Promise<Preview> | undefined;
let events: EventSource | undefined;
/** The last build's errors, while it stands failed. */
let failure: string | undefined;

const escape = (text: string) => text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c] ?? c);

function message(title: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><body style="font:15px/1.5 system-ui,sans-serif;margin:1.5rem;color:#1c2330"><h2 style="margin:0 0 .5rem;font-size:1.1rem">${escape(title)}</h2><pre style="white-space:pre-wrap;font:13px/1.5 ui-monospace,monospace">${escape(text)}</pre>`;
}

export function loadPreview(): Promise<Preview> {
  preview ??= fetch("/admin/preview.json", { cache: "no-store" }).then((r) => r.json() as Promise<Preview>);
  return preview;
}

/** The served page's HTML, to stand in an iframe of the editor's page. */
export function framed(html: string, route: string): string {
  return html
    .replace(/<script[^>]*src="\/__site\/live\.js"[^>]*><\/script>/, "")
    .replace(/<head([^>]*)>/i, `<head$1><base href="${route}">`);
}

async function show(frame: HTMLIFrameElement, path: string): Promise<void> {
  if (failure !== undefined) {
    frame.srcdoc = message("The site did not build", failure);
    return;
  }
  const { routes } = await loadPreview();
  const route = routes[path];
  if (!route) {
    frame.srcdoc = message("Not built yet", "Save, and the page this entry makes appears here.");
    return;
  }
  const response = await fetch(route, { cache: "no-store" });
  const html = await response.text();
  // A save that failed to build while the page was fetched has the last word.
  if (failure === undefined) frame.srcdoc = framed(html, route);
}

function listen(): void {
  if (events) return;
  events = new EventSource("/__site/events");
  const again = () => {
    failure = undefined;
    preview = undefined;
    for (const [frame, path] of frames) void show(frame, path);
  };
  events.addEventListener("reload", again);
  events.addEventListener("build-ok", () => {
    if (failure !== undefined) again();
  });
  events.addEventListener("build-error", (event) => {
    failure = JSON.parse((event as MessageEvent<string>).data) as string;
    for (const [frame, path] of frames) void show(frame, path);
  });
}

/** The preview of an entry: its page as served. */
export function PagePreview(props: { entry?: { get?(key: string): unknown; path?: string } }) {
  const entry = props.entry;
  const path = String((typeof entry?.get === "function" ? entry.get("path") : entry?.path) ?? "");
  return createElement("iframe", {
    title: "Page preview",
    style: { width: "100%", height: "100%", minHeight: "80vh", border: "0", background: "#fff" },
    ref: (frame: HTMLIFrameElement | null) => {
      if (!frame) {
        for (const known of [...frames.keys()]) if (!known.isConnected) frames.delete(known);
        return;
      }
      if (frames.get(frame) === path) return;
      frames.set(frame, path);
      listen();
      void show(frame, path);
    },
  });
}
