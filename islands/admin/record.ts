// A translation's record of its source (`translated_from`), written into its
// file as `site translations --mark-current` writes it (with_record in
// generator/src/translations.rs): the old record's lines replaced, every other
// line as it was; in a page of blocks before `blocks:`, in a Markdown page at
// the end of its front matter.

import { parseDocument } from "yaml";
import { splitFrontMatter, type Fingerprint } from "./fingerprint.ts";

export const RECORD = "translated_from";

/** `text` (a page file) with its record replaced by `fingerprint`. */
export function withRecord(text: string, markdown: boolean, fingerprint: Fingerprint): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  // The part that holds the fields: the whole file, or the front matter.
  let start = 0;
  let end = lines.length;
  if (markdown) {
    const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
    start = Math.min(1, lines.length);
    end = close < 0 ? lines.length : close;
  }
  const kept: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (i >= start && i < end && lines[i].startsWith(`${RECORD}:`)) {
      i++;
      while (i < end && (lines[i].startsWith(" ") || lines[i].trim() === "")) i++;
      continue;
    }
    kept.push(lines[i]);
    i++;
  }
  end -= lines.length - kept.length;
  let at = end;
  if (!markdown) {
    const blocks = kept.slice(start, end).findIndex((line) => line.startsWith("blocks:"));
    if (blocks >= 0) at = start + blocks;
  }
  let record = `${RECORD}:\n`;
  for (const [path, print] of fingerprint) {
    const key = /^[A-Za-z0-9_]+$/.test(path) ? path : `"${path}"`;
    record += `  ${key}: "${print}"\n`;
  }
  let out = kept.slice(0, at).join("");
  if (out !== "" && !out.endsWith("\n")) out += "\n";
  return out + record + kept.slice(at).join("");
}

/** The record a page file's text holds, or none. */
export function recordIn(text: string | undefined, markdown: boolean): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const yaml = markdown ? splitFrontMatter(text)?.front : text;
  if (yaml === undefined) return undefined;
  const data = parseDocument(yaml).toJS() as unknown;
  const record = data && typeof data === "object" ? (data as Record<string, unknown>)[RECORD] : undefined;
  return flatRecord(record);
}

/**
 * A record as the editor hands it back. The editor keeps an entry's fields by
 * dotted paths, so a record's key `blocks[0].heading` comes back as
 * `{ "blocks[0]": { heading } }`: the keys are joined again. (A record's keys
 * never have a bare number between dots: list items are counted in brackets.)
 */
export function flatRecord(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  const walk = (node: unknown, path: string) => {
    if (node && typeof node === "object" && !Array.isArray(node)) {
      for (const [key, inner] of Object.entries(node)) walk(inner, path === "" ? key : `${path}.${key}`);
    } else if (typeof node === "string") out[path] = node;
  };
  walk(value, "");
  return out;
}

/** Whether two records say the same. */
export function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = Object.entries(a ?? {}).sort(([p], [q]) => (p < q ? -1 : 1));
  const y = Object.entries(b ?? {}).sort(([p], [q]) => (p < q ? -1 : 1));
  return JSON.stringify(x) === JSON.stringify(y);
}
