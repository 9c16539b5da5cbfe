// Translations in the editor. An entry holds every language's file of a page
// (`about.yaml`, `about.de.yaml`), and a save writes each. A save decides, for
// each translation, what its file says:
// - a translation made in this save starts from its source: the source's file
//   edited to the translation's values, every field it leaves empty (words,
//   links, pictures, codes) taken from the source, addresses and the record
//   left out, as they are each file's own;
// - a translation that was changed or marked current records its source's
//   fingerprint as the source is now (`translated_from`), as the build takes it;
// - a translation left alone is written as it was, its record with it.
// The default language's file records nothing. The rules come from the
// models (`admin/translations.json`, written by the build).

import { createElement, type ReactNode } from "react";
import { changed, fingerprintOfText, recordOf, type Fingerprint, type Shape } from "./fingerprint.ts";
import { Files, SAVING, withoutSaving } from "./files.ts";
import { type Data, isEmpty } from "./kept.ts";
import { RECORD, flatRecord, recordIn, sameRecord, withRecord } from "./record.ts";

/** What the build tells the editor: the languages, each collection's kind of page file, each kind's rules. */
export type Translations = {
  default: string;
  languages: Record<string, string>;
  collections: Record<string, string>;
  shapes: Record<string, Shape>;
};

let known: Translations | undefined;

export async function loadTranslations(): Promise<Translations | undefined> {
  const response = await fetch("/admin/translations.json", { cache: "no-store" });
  known = response.ok ? ((await response.json()) as Translations) : undefined;
  return known;
}

export function setTranslations(translations: Translations | undefined): void {
  known = translations;
}

const isObject = (v: unknown): v is Data => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isMarkdown = (path: string) => path.endsWith(".md");

/** The file of `code`'s translation of the default language's file at `path`: `about.de.yaml` of `about.yaml`. */
export function localePath(path: string, code: string, translations = known): string {
  if (!translations || code === translations.default || !(code in translations.languages)) return path;
  // The words files are named by their language alone.
  const words = /^content\/strings\/[^/]+\.yaml$/;
  if (words.test(path)) return `content/strings/${code}.yaml`;
  return path.replace(/(\.[^./]+)$/, `.${code}$1`);
}

/** The default language's file of a translation's: `about.yaml` of `about.de.yaml`. */
export function sourcePath(path: string, code: string, translations = known): string {
  if (!translations || code === translations.default || !(code in translations.languages)) return path;
  if (/^content\/strings\/[^/]+\.yaml$/.test(path)) return `content/strings/${translations.default}.yaml`;
  return path.replace(new RegExp(`\\.${code.replace(/[^\w-]/g, "")}(\\.[^./]+)$`), "$1");
}

/** The language of a page file by its name, among the site's. */
export function languageOf(path: string, translations = known): string | undefined {
  if (!translations) return undefined;
  const match = /\.([^./]+)\.[^./]+$/.exec(path);
  if (match && match[1] in translations.languages) return match[1];
  return translations.default;
}

/**
 * A new translation's values from its source's: every value it leaves empty
 * is the source's (words for the translator to overwrite, links, pictures,
 * codes). Of each file's own values, a switch stays as the editor copied it (a
 * translation of a draft starts as a draft); others the editor copied go, as
 * two pages cannot share an old address and the record is the save's.
 */
export function prefill(shape: Shape, value: unknown, source: unknown): unknown {
  if ("value" in shape) {
    if (shape.value === "own") return typeof value === "boolean" || !same(value, source) ? value : undefined;
    return isEmpty(value) && !isEmpty(source) ? structuredClone(source) : value;
  }
  if ("fields" in shape) {
    if (!isObject(value)) return isEmpty(value) && !isEmpty(source) ? structuredClone(source) : value;
    const from = isObject(source) ? source : {};
    const out: Data = { ...value };
    for (const [name, inner] of shape.fields) {
      if (!(name in value) && !(name in from)) continue;
      const filled = prefill(inner, value[name], from[name]);
      if (filled === undefined) delete out[name];
      else out[name] = filled;
    }
    return out;
  }
  if ("list" in shape) {
    if (!Array.isArray(value) || value.length === 0) return isEmpty(value) && !isEmpty(source) ? structuredClone(source) : value;
    const items = value
      .map((item, i) => prefill(shape.list, item, Array.isArray(source) ? source[i] : undefined))
      .filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (!isObject(value)) return value;
  const type = shape.typed.find(([name]) => name === value.type);
  if (!type) return value;
  return prefill(type[1], value, isObject(source) && source.type === value.type ? source : undefined);
}

/** The source of a translation: its file, the text it has after this save, and its fingerprint. */
export type Source = { path: string; text: string; fingerprint: Fingerprint };

/** A page file's source as it is when saved with `data`, with its fingerprint. */
export function sourceOf(files: Files, shape: Shape, path: string, data: Data): Source | undefined {
  const text = files.textFor(path, data);
  const fingerprint = fingerprintOfText(shape, isMarkdown(path), text);
  return fingerprint && { path, text, fingerprint };
}

/**
 * A translation's file after a save of `data`, and the data it says (which
 * the editor keeps for the entry). `marking`: whether a change (or a record
 * the translator marked current) records the source as it is now; the
 * preview shows a translation as it is before it is saved, so it marks nothing.
 */
export function translationFile(
  files: Files,
  shape: Shape,
  path: string,
  data: Data,
  source: Source,
  marking: boolean,
): { text: string; data: Data } {
  const markdown = isMarkdown(path);
  let plain = withoutSaving(data);
  const before = files.before(path, plain);
  const recordBefore = recordIn(before, markdown);
  const recordNow = flatRecord(plain[RECORD]);
  let base = before;
  if (before === undefined) {
    plain = prefill(shape, plain, files.read(source.path, source.text)) as Data;
    base = source.text;
  }
  // The record is written as the build writes it, never by the field's value.
  const kept = { ...plain, [RECORD]: recordBefore };
  let text = files.edit(path, base, kept);
  const untouched = before !== undefined && text.trim() === before.trim() && sameRecord(recordNow, recordBefore);
  let record = recordBefore;
  if (marking && !untouched) record = recordOf(source.fingerprint);
  else if (!marking && recordNow && !sameRecord(recordNow, recordBefore)) record = recordNow;
  if (record && !sameRecord(record, recordBefore)) text = withRecord(text, markdown, Object.entries(record));
  return { text, data: { ...plain, [RECORD]: record } };
}

type EntryMap = { toJS(): unknown; setIn(path: unknown[], value: unknown): EntryMap };
type SavedEntry = { data?: Data; i18n?: Record<string, { data?: Data }>; path?: string; collection?: string };

/**
 * The editor's `preSave`: the text of every file of the entry, decided here
 * where every language's values are at hand, and handed to the format by path.
 */
export function beforeSave(files: Files, entry: EntryMap): EntryMap | undefined {
  const saved = entry.toJS() as SavedEntry;
  const path = saved.path;
  if (!path || !saved.data) return undefined;
  const kind = known?.collections[saved.collection ?? ""];
  const shape = kind ? known?.shapes[kind] : undefined;
  const data = withoutSaving(saved.data);
  let out = entry;
  const write = (at: unknown[], file: string, text: string, values: Data) => {
    files.willWrite(file, text);
    out = out.setIn(at, { ...values, [SAVING]: file });
  };
  const sourceText = files.textFor(path, data);
  // A new page is written by the format, its fields in the editor's order.
  if (files.before(path, data) !== undefined) write(["data"], path, sourceText, data);
  const source = shape && fingerprintOfText(shape, isMarkdown(path), sourceText);
  for (const [code, locale] of Object.entries(saved.i18n ?? {})) {
    // A language the entry is not in has no values.
    if (!locale.data || Object.keys(locale.data).length === 0) continue;
    const file = localePath(path, code);
    if (shape && source) {
      const made = translationFile(files, shape, file, locale.data, { path, text: sourceText, fingerprint: source }, true);
      write(["i18n", code, "data"], file, made.text, made.data);
    } else {
      const values = withoutSaving(locale.data);
      write(["i18n", code, "data"], file, files.textFor(file, values), values);
    }
  }
  return out;
}

/** The preview's text of a file of an entry: a translation as it would be saved, marking nothing. */
export function draftText(files: Files, path: string, data: Data, others: Record<string, { data?: Data }> | undefined): string {
  const translations = known;
  const code = languageOf(path);
  const kind = translations && collectionKindOf(path, translations);
  const shape = kind ? translations?.shapes[kind] : undefined;
  const sourceData = translations && others?.[translations.default]?.data;
  if (!translations || !code || code === translations.default || !shape || !sourceData) {
    return files.textFor(path, withoutSaving(data));
  }
  const from = sourcePath(path, code);
  const source = sourceOf(files, shape, from, withoutSaving(sourceData));
  if (!source) return files.textFor(path, withoutSaving(data));
  return translationFile(files, shape, path, data, source, false).text;
}

/** A page file's kind by where it is: a folder's collection, or a page of blocks or a Markdown page. */
function collectionKindOf(path: string, translations: Translations): string | undefined {
  if (path.endsWith(".yaml")) return path.startsWith("content/pages/") ? "page" : undefined;
  const folder = path.split("/").slice(2, -1).join("/");
  return translations.collections[folder] ?? "document";
}

/** What a record says of its translation: none yet, up to date, or the fields of its source changed since. */
export function recordState(record: Record<string, string> | undefined, now: Fingerprint): { state: "none" | "current" | "stale"; fields: string[] } {
  if (!record || Object.keys(record).length === 0) return { state: "none", fields: [] };
  const fields = changed(now, record);
  return { state: fields.length === 0 ? "current" : "stale", fields };
}

type ControlProps = {
  value: unknown;
  entry?: { toJS?(): unknown };
  forID: string;
  classNameWrapper: string;
  onChange(value: unknown): void;
};

/**
 * The field of a translation's record: whether the translation is older than
 * its source, and a way to say it still says the same (a save then records
 * the source as it is now). In the default language's form it says what the
 * record is for.
 */
export function recordControl(files: Files) {
  return function TranslationRecord(props: ControlProps) {
    const translations = known;
    const entry = (props.entry?.toJS?.() ?? {}) as SavedEntry;
    const note = (text: string, ...more: ReactNode[]) =>
      createElement("div", { id: props.forID, role: "status", style: { fontSize: "0.9em", lineHeight: 1.5 } }, text, ...more);
    const sourceData = translations && entry.i18n?.[translations.default]?.data;
    if (!translations || !sourceData) {
      return note("The page each translation translates. A translation records it when it is saved.");
    }
    const name = translations.languages[translations.default] ?? translations.default;
    const path = entry.path ?? "";
    const code = languageOf(path);
    const kind = collectionKindOf(path, translations) ?? translations.collections[entry.collection ?? ""];
    const shape = kind ? translations.shapes[kind] : undefined;
    if (!shape || !code || !/\.[^./]+$/.test(path)) {
      return note(`A new translation: saved, it starts from the ${name} page, and records it.`);
    }
    const source = sourceOf(files, shape, sourcePath(path, code), withoutSaving(sourceData));
    if (!source) return note(`The ${name} page does not read.`);
    const { state, fields } = recordState(flatRecord(props.value), source.fingerprint);
    const mark = createElement(
      "button",
      {
        type: "button",
        style: { marginInlineStart: "0.5em" },
        onClick: () => props.onChange(recordOf(source.fingerprint)),
      },
      "Mark as current",
    );
    if (state === "current") return note(`Up to date with the ${name} page.`);
    if (state === "none") {
      return note(`No record yet of what the ${name} page said when this was translated. Saving a change records it.`, mark);
    }
    const list = fields.map((f) => `\`${f}\``).join(", ");
    return note(
      `Older than the ${name} page: its words changed since this translation was last checked, in ${list}. Bring the translation up to date and save; if it still says the same,`,
      mark,
    );
  };
}
