// The preview beside the editor under `site serve`: the page the entry makes,
// in the language shown, rendered by `site serve` from the text the editor
// would save, as the editor types (`POST /__site/preview`), and again when the
// site around it is rebuilt (the server-sent events of live reload). When the
// text does not build, the build's own errors are shown, with file, line and
// field; what the build says of a page it builds (a translation older than its
// source) is shown above the page. A page is shown from its HTML (`srcdoc`),
// because the site's pages may not be framed.

import { createElement } from "react";
import type { Data } from "./kept.ts";
import { localePath } from "./translations.ts";

type Preview = {
  routes: Record<string, string>;
  /** Each folder collection (each with a page preview): its folder and file extension, for an entry not saved yet. */
  folders: Record<string, { folder: string; extension?: string }>;
};
/** The text the editor would save for `data`, the entry at `path`, with the entry's other languages' values. */
type DraftText = (path: string, data: Data, others: Others) => string;
/** An entry's values in its other languages, by language. */
type Others = Record<string, { data?: Data }> | undefined;

/** How long the preview waits after a keystroke for the next. */
const TYPING_PAUSE_MS = 150;

const frames = new Map<HTMLIFrameElement, string>();
/** Where each frame's page was scrolled to, kept across its new pages (and gone with the frame). */
const scrolled = new WeakMap<HTMLIFrameElement, number>();
const drafts = new Map<string, { data: Data; others: Others }>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();
/** The latest preview asked for each path: an older answer is dropped. */
const asked = new Map<string, number>();
let preview: Promise<Preview> | undefined;
let events: EventSource | undefined;
let draftText: DraftText | undefined;
/**
 * The routes and folders last loaded, at hand when a preview first renders: the
 * templates are registered once they are loaded (main.ts), so a new entry's
 * first render, which may already hold a title, knows where its file would be.
 */
let known: Preview | undefined;

const escape = (text: string) => text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c] ?? c);

export function message(title: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><body style="font:15px/1.5 system-ui,sans-serif;margin:1.5rem;color:#1c2330"><h2 style="margin:0 0 .5rem;font-size:1.1rem">${escape(title)}</h2><pre style="white-space:pre-wrap;font:13px/1.5 ui-monospace,monospace">${escape(text)}</pre>`;
}

export function loadPreview(): Promise<Preview> {
  preview ??= fetch("/admin/preview.json", { cache: "no-store" })
    .then((r) => r.json() as Promise<Preview>)
    .then((loaded) => (known = loaded));
  return preview;
}

/** How the preview turns an entry's data into its file's text (the save formats). */
export function setDraftText(text: DraftText): void {
  draftText = text;
}

/** The served page's HTML, to stand in an iframe of the editor's page, with what the build says of it above it. */
export function framed(html: string, route: string, warnings: string[] = []): string {
  const said =
    warnings.length === 0
      ? ""
      : `<aside role="status" data-build-warnings style="all:initial;display:block;position:relative;z-index:2147483647;font:14px/1.5 system-ui,sans-serif;color:#1c2330;background:#fff4d6;border-block-end:2px solid #d9a400;padding:.75rem 1rem"><strong style="display:block;margin-block-end:.25rem">The build says</strong><pre style="margin:0;white-space:pre-wrap;font:12px/1.5 ui-monospace,monospace">${escape(warnings.join("\n"))}</pre></aside>`;
  return html
    .replace(/<script[^>]*src="\/__site\/live\.js"[^>]*><\/script>/, "")
    .replace(/<head([^>]*)>/i, `<head$1><base href="${route}">`)
    .replace(/<body([^>]*)>/i, `<body$1>${said}`);
}

/** The HTML the preview of `path` shows now. */
async function page(path: string, draft: { data: Data; others: Others } | undefined): Promise<string> {
  if (draft && draftText) {
    const response = await fetch("/__site/preview", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Site-Editor": "1" },
      body: JSON.stringify({ path, text: draftText(path, draft.data, draft.others) }),
    });
    const answer = (await response.json()) as { route?: string; html?: string; error?: string; warnings?: string[] };
    if (answer.html !== undefined) return framed(answer.html, answer.route ?? "/", answer.warnings);
    return message("The page does not build", answer.error ?? `The server answered ${response.status}.`);
  }
  const route = (await loadPreview()).routes[path];
  if (!route) return message("Not saved yet", "Save, and the page this entry makes appears here.");
  return framed(await (await fetch(route, { cache: "no-store" })).text(), route);
}

/** Replaces what a frame shows; its new page opens where the last was scrolled to. */
function put(frame: HTMLIFrameElement, html: string): void {
  // Read now too: a scroll just made may not have told its event yet.
  if (frame.contentDocument?.readyState === "complete" && frame.contentWindow) {
    scrolled.set(frame, frame.contentWindow.scrollY);
  }
  frame.srcdoc = html;
}

/**
 * Each page a frame loads goes straight (not smoothly, as the site's pages
 * scroll) to where the reader had scrolled, and tells where they scroll next:
 * a page replaced mid-load or mid-glide never loses the place.
 */
function keepScrolled(frame: HTMLIFrameElement): void {
  frame.addEventListener("load", () => {
    const view = frame.contentWindow;
    if (!view) return;
    view.scrollTo({ top: scrolled.get(frame) ?? 0, behavior: "instant" });
    view.addEventListener("scroll", () => scrolled.set(frame, view.scrollY), { passive: true });
  });
}

async function refresh(path: string): Promise<void> {
  const shown = [...frames].filter(([, p]) => p === path).map(([frame]) => frame);
  if (shown.length === 0) return;
  const n = (asked.get(path) ?? 0) + 1;
  asked.set(path, n);
  let html: string;
  try {
    html = await page(path, drafts.get(path));
  } catch (error) {
    html = message("No preview", error instanceof Error ? error.message : String(error));
  }
  if (asked.get(path) !== n) return;
  // A frame whose entry has since moved to another file (a new entry given its
  // title while this answer was on its way) waits for that file's page instead.
  for (const frame of shown) if (frame.isConnected && frames.get(frame) === path) put(frame, html);
}

/** The entry's data changed: its preview follows once typing pauses. */
function changed(path: string, data: Data | undefined, others: Others): void {
  if (!data) return;
  const before = drafts.get(path);
  drafts.set(path, { data, others });
  if (before !== undefined && JSON.stringify(before) === JSON.stringify({ data, others })) return;
  clearTimeout(timers.get(path));
  timers.set(path, setTimeout(() => void refresh(path), TYPING_PAUSE_MS));
}

function listen(): void {
  if (events) return;
  events = new EventSource("/__site/events");
  // The site around the entry was built again (a save, here or elsewhere).
  const again = () => {
    preview = undefined;
    // A new entry without a file yet keeps its "fill in its fields".
    for (const path of new Set(frames.values())) if (path) void refresh(path);
  };
  for (const name of ["reload", "build-ok", "build-error"]) events.addEventListener(name, again);
}

type Entry = { get?(key: string): unknown; path?: string; data?: unknown; i18n?: unknown; collection?: string; slug?: string };

const field = (entry: Entry | undefined, key: "path" | "collection" | "slug"): string =>
  String((typeof entry?.get === "function" ? entry.get(key) : entry?.[key]) ?? "");

/** A file name for a title, as the editor makes one (`Our new office` → `our-new-office`). */
export function slugOf(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The file of an entry in the language shown: its own, or for one not saved
 * yet (a new entry, or a language new to it), where a save would put it.
 */
function pathOf(entry: Entry | undefined, data: Data | undefined, preview: Preview | undefined, language: string): string {
  const path = field(entry, "path");
  // An entry new to the language shown has its name alone.
  if (/\.[^./]+$/.test(path)) return path;
  const place = preview?.folders?.[field(entry, "collection")];
  if (!place) return "";
  const name = field(entry, "slug") || slugOf(String(data?.title ?? "")) || "new-entry";
  return localePath(`${place.folder}/${name}.${place.extension ?? "md"}`, language);
}

const plain = (value: unknown): unknown =>
  value && typeof (value as { toJS?: unknown }).toJS === "function" ? (value as { toJS(): unknown }).toJS() : value;

function dataOf(entry: Entry | undefined): Data | undefined {
  const data = plain(typeof entry?.get === "function" ? entry.get("data") : entry?.data);
  return data && typeof data === "object" ? (data as Data) : undefined;
}

/** The entry's values in its other languages. */
function othersOf(entry: Entry | undefined): Others {
  const others = plain(typeof entry?.get === "function" ? entry.get("i18n") : entry?.i18n);
  return others && typeof others === "object" ? (others as Others) : undefined;
}

/** The preview of an entry: its page as the editor has it, in the language of the editor's preview pane. */
export function PagePreview(props: { entry?: Entry; document?: Document }) {
  const entry = props.entry;
  const data = dataOf(entry);
  // Loads them again after a rebuild.
  void loadPreview();
  const path = pathOf(entry, data, known, props.document?.documentElement.lang ?? "");
  if (path) changed(path, data, othersOf(entry));
  return createElement("iframe", {
    title: "Page preview",
    style: { width: "100%", height: "100%", minHeight: "80vh", border: "0", background: "#fff" },
    ref: (frame: HTMLIFrameElement | null) => {
      if (!frame) {
        for (const known of [...frames.keys()]) if (!known.isConnected) frames.delete(known);
        return;
      }
      const first = !frames.has(frame);
      frames.set(frame, path);
      // A new entry's file follows its title: its page comes with the typing's pause.
      if (!first) return;
      keepScrolled(frame);
      listen();
      if (path) void refresh(path);
      else put(frame, message("Not saved yet", "Fill in its fields, and the page this entry makes appears here."));
    },
  });
}
