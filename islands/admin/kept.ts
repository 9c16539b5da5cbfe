// Saving a content file the way a person would edit it: the file's own YAML
// document is changed where its value changed, so comments, key order,
// quoting and blank lines elsewhere stay, and `git diff` shows the edit alone.

import { Document, isMap, isScalar, isSeq, parseDocument, stringify, YAMLMap, YAMLSeq, Scalar } from "yaml";

export type Data = Record<string, unknown>;

/**
 * What the build takes for a field the file leaves out, where that is not
 * "nothing": the editor shows it (a switch that is on unless turned off) and
 * hands it back, and a file without it needs no line for it.
 */
const defaults = new Map<string, unknown>();

export function setDefaults(values: Record<string, unknown>): void {
  defaults.clear();
  for (const [key, value] of Object.entries(values)) defaults.set(key, value);
}

const isDefault = (key: string, value: unknown) => defaults.has(key) && same(defaults.get(key), value);

type Node = unknown;

const isObject = (v: unknown): v is Data => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value that, absent from the file, the editor may hand back empty. */
export function isEmpty(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === "" ||
    (Array.isArray(v) && v.length === 0) ||
    (isObject(v) && Object.values(v).every(isEmpty))
  );
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Changes `node` (a map, list or scalar of `doc`) from `before` to `after`; gives the node to keep. */
function apply(doc: Document, node: Node, before: unknown, after: unknown): Node {
  if (same(before, after) && node !== undefined) return node;
  if (isMap(node) && isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!(key in after) || (after[key] === undefined)) node.delete(key);
    }
    for (const [key, value] of Object.entries(after)) {
      if (!(key in before)) {
        // The editor shows an absent switch as off (or as its default), and hands it back so.
        if (!isEmpty(value) && value !== false && !isDefault(key, value)) node.set(key, doc.createNode(value));
        continue;
      }
      if (isEmpty(value) && isEmpty(before[key]) && !same(value, before[key])) continue;
      const child = node.get(key, true);
      const kept = apply(doc, child, before[key], value);
      if (kept !== child) node.set(key, kept);
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(before) && Array.isArray(after)) {
    node.items = items(doc, node, before, after);
    return node;
  }
  if (isScalar(node) && !isObject(after) && !Array.isArray(after)) {
    // The same scalar node keeps its quoting and its comments.
    (node as Scalar).value = after;
    return node;
  }
  return doc.createNode(after);
}

/** A list's items after an edit: each unchanged item keeps its node, an edited one is changed in place. */
function items(doc: Document, node: YAMLSeq, before: unknown[], after: unknown[]): unknown[] {
  if (before.length === after.length) {
    return after.map((value, i) => apply(doc, node.items[i], before[i], value));
  }
  // Added or removed items: the longest run of equal items keeps its nodes.
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = same(before[i], after[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (j < m) {
    if (i < n && same(before[i], after[j])) {
      out.push(node.items[i]);
      i++;
      j++;
    } else if (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
      i++;
    } else {
      out.push(doc.createNode(after[j]));
      j++;
    }
  }
  return out;
}

/**
 * A new file's data as a person would write it: without the empty values and
 * the switches left off that the editor hands back for every field. An empty
 * `alt` stays: it says a picture is decoration.
 */
export function compact(data: Data): Data {
  const out: Data = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "alt" && value === "") {
      out[key] = value;
      continue;
    }
    if (isEmpty(value) || value === false || isDefault(key, value)) continue;
    out[key] = Array.isArray(value)
      ? value.map((item) => (isObject(item) ? compact(item) : item))
      : isObject(value)
        ? compact(value)
        : value;
  }
  return out;
}

/** A YAML file's text after its data became `after`; a new file's, without one. */
export function saveYaml(text: string | undefined, after: Data): string {
  if (text === undefined) return stringify(compact(after), { lineWidth: 0 });
  const doc = parseDocument(text);
  const before = doc.toJS() as unknown;
  if (!isMap(doc.contents)) return stringify(after);
  const options = { lineWidth: 0 };
  // What the library writes for the file as it is: its lines differ from the
  // file's only in spacing the library normalises (`[{ a }]`, `x  # note`).
  const base = doc.toString(options);
  apply(doc, doc.contents as YAMLMap, before, after);
  return keepLines(text, base, doc.toString(options));
}

/** The pairs of equal lines of `a` and `b` that keep their order (longest common subsequence). */
function common(a: string[], b: string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/**
 * `next` (the library's text of the edited document), with every stretch it
 * shares with `base` (its text of the document as read) written as the file
 * had it: the library re-spaces flow lists and comments and re-folds long
 * text, and none of that is the editor's change.
 */
export function keepLines(text: string, base: string, next: string): string {
  const original = text.split("\n");
  const from = base.split("\n");
  const to = next.split("\n");
  // Each line of `base` belongs to a stretch: one line the file has as is, or
  // the lines between two such, which stand for the file's lines between them.
  const stretchOf = new Int32Array(from.length);
  const stretches: { from: [number, number]; file: [number, number] }[] = [];
  let lastFrom = 0;
  let lastFile = 0;
  for (const [i, j] of [...common(original, from), [original.length, from.length] as [number, number]]) {
    if (j > lastFrom || i > lastFile) {
      for (let k = lastFrom; k < j; k++) stretchOf[k] = stretches.length;
      stretches.push({ from: [lastFrom, j], file: [lastFile, i] });
    }
    if (j < from.length) {
      stretchOf[j] = stretches.length;
      stretches.push({ from: [j, j + 1], file: [i, i + 1] });
    }
    lastFrom = j + 1;
    lastFile = i + 1;
  }
  const match = new Int32Array(to.length).fill(-1);
  for (const [j, k] of common(from, to)) match[k] = j;
  const out: string[] = [];
  for (let k = 0; k < to.length; ) {
    const j = match[k];
    if (j >= 0) {
      const stretch = stretches[stretchOf[j]];
      const [start, end] = stretch.from;
      const whole = j === start && Array.from({ length: end - start }, (_, d) => match[k + d] === start + d).every(Boolean);
      if (whole) {
        out.push(...original.slice(stretch.file[0], stretch.file[1]));
        k += end - start;
        continue;
      }
    }
    out.push(to[k]);
    k++;
  }
  return out.join("\n");
}

export function readYaml(text: string): Data {
  const data = parseDocument(text).toJS() as unknown;
  return isObject(data) ? data : {};
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A Markdown file's front matter and its body (`body`). */
export function readFrontMatter(text: string): Data {
  const match = FENCE.exec(text);
  if (!match) return { body: text };
  return { ...readYaml(match[1]), body: text.slice(match[0].length).replace(/^\r?\n/, "") };
}

/**
 * A Markdown line as it reads, not as it is spelled: the editor writes tables'
 * rules `| --- |`, bullets `-` and no trailing spaces, however the file had them.
 */
function meaning(line: string): string {
  const trimmed = line.trimEnd();
  const cells = trimmed.trim().replace(/^\|/, "").replace(/\|$/, "").split("|");
  if (cells.length > 0 && cells.every((c) => /^\s*:?-+:?\s*$/.test(c))) {
    return `|${cells.map((c) => `${c.trim().startsWith(":") ? ":" : ""}-${c.trim().endsWith(":") ? ":" : ""}`).join("|")}|`;
  }
  return trimmed.replace(/^(\s*)[*+] /, "$1- ");
}

/** The edited body, with each line that reads as the file's written as the file had it. */
export function keepBody(before: string, after: string): string {
  const original = before.split("\n");
  const next = after.split("\n");
  const kept = new Map(common(original.map(meaning), next.map(meaning)).map(([i, j]) => [j, i]));
  return next.map((line, j) => (kept.has(j) ? original[kept.get(j) as number] : line)).join("\n");
}

/** A Markdown file's text after its front matter and body became `after`. */
export function saveFrontMatter(text: string | undefined, after: Data): string {
  const { body: edited = "", ...matter } = after;
  const previous = text === undefined ? undefined : readFrontMatter(text).body;
  const body = typeof previous === "string" && typeof edited === "string" ? keepBody(previous, edited) : edited;
  const match = text === undefined ? null : FENCE.exec(text);
  const yaml = match ? saveYaml(match[1] + "\n", matter) : stringify(compact(matter), { lineWidth: 0 });
  const gap = match && text !== undefined ? (/^\r?\n/.test(text.slice(match[0].length)) ? "\n" : "") : "\n";
  const bodyText = String(body);
  return `---\n${yaml.replace(/\n*$/, "\n")}---\n${gap}${bodyText.endsWith("\n") || bodyText === "" ? bodyText : `${bodyText}\n`}`;
}

/** How far two files' data are apart: the number of their top-level fields that differ. */
export function distance(a: Data, b: Data): number {
  let d = 0;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key];
    const y = b[key];
    if (same(x, y) || (isEmpty(x) && isEmpty(y))) continue;
    d++;
  }
  return d;
}

/**
 * The files the editor has read, by their data: the editor hands a format only
 * the data it saves, so the file it came from is the one whose data is nearest.
 */
export class Originals {
  private read: { data: Data; text: string }[] = [];

  remember(text: string, data: Data): void {
    this.read.push({ data, text });
  }

  /** The text of the file `data` was edited from; none for a new file. */
  of(data: Data): string | undefined {
    let best: { data: Data; text: string } | undefined;
    let bestDistance = Infinity;
    for (const file of this.read) {
      const d = distance(file.data, data);
      if (d < bestDistance) {
        best = file;
        bestDistance = d;
      }
    }
    if (!best) return undefined;
    const fields = new Set([...Object.keys(best.data), ...Object.keys(data)]).size;
    // A new file shares a few settled fields with many; an edited one differs in few.
    return bestDistance * 2 <= fields ? best.text : undefined;
  }

  /** After a save, the file's text is what a next save starts from. */
  replace(before: string | undefined, text: string, data: Data): void {
    this.read = this.read.filter((f) => f.text !== before);
    this.remember(text, data);
  }
}
