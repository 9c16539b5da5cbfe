// A page file's fingerprint of its words, exactly as the build takes it
// (generator/src/content/staleness.rs, translatable.rs): each translated
// field, by its path in the build's form (`blocks[2].cards[0].title`, `body`
// for a Markdown page's text), and FNV-1a (32 bits) of its words joined by
// single spaces. A translation records its source's fingerprint when it is
// saved; the build compares it with the source's at each build. Both sides
// are held to one table of texts and fingerprints (generator/tests/fingerprints.json).

import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from "yaml";

/** What a field is to a translation (`Rule` of translatable.rs). */
export type Rule = "translate" | "copy" | "share" | "own";

/** A file's fields as a translation sees them (`Shape` of translatable.rs, as serde writes it). */
export type Shape = { value: Rule } | { fields: [string, Shape][] } | { list: Shape } | { typed: [string, Shape][] };

/** Each translated field's path and the fingerprint of its words, in the file's order. */
export type Fingerprint = [string, string][];

const WORD = /[\p{Alphabetic}\p{N}]+/gu;
const utf8 = new TextEncoder();

/**
 * FNV-1a (32 bits) of the text's words (runs of letters and digits, as Rust's
 * `char::is_alphanumeric` takes them) joined by single spaces, as 8 hex digits.
 */
export function wordsFingerprint(text: string): string {
  let hash = 0x811c9dc5;
  const bytes = utf8.encode((text.match(WORD) ?? []).join(" "));
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

const child = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** A scalar's text as the build reads it: a number as written, words as they are, nothing else. */
function scalarText(node: YamlNode): string | undefined {
  if (!isScalar(node)) return undefined;
  if (typeof node.value === "string") return node.value;
  if (typeof node.value === "number" || typeof node.value === "bigint") return node.source ?? String(node.value);
  return undefined;
}

function walk(shape: Shape, node: YamlNode | null | undefined, path: string, found: Fingerprint): void {
  if (!node) return;
  if ("value" in shape) {
    if (shape.value !== "translate") return;
    if (isSeq(node)) node.items.forEach((item, i) => walk(shape, item as YamlNode, `${path}[${i}]`, found));
    const text = scalarText(node);
    if (text !== undefined) found.push([path, text]);
    return;
  }
  if ("fields" in shape && isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const field = shape.fields.find(([name]) => name === key);
      if (key !== undefined && field) walk(field[1], pair.value as YamlNode, child(path, key), found);
    }
    return;
  }
  if ("list" in shape && isSeq(node)) {
    node.items.forEach((item, i) => walk(shape.list, item as YamlNode, `${path}[${i}]`, found));
    return;
  }
  if ("typed" in shape && isMap(node)) {
    const tag = node.get("type");
    const type = shape.typed.find(([name]) => name === tag);
    if (type) walk(type[1], node, path, found);
  }
}

/** The translated texts of a YAML document by the shape of its file, with their paths, in order. */
export function textsOf(shape: Shape, yaml: string): [string, string][] | undefined {
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0) return undefined;
  const found: [string, string][] = [];
  walk(shape, doc.contents as YamlNode | null, "", found);
  return found;
}

/** A Markdown file's front matter and text, split where the build splits them; none without front matter. */
export function splitFrontMatter(text: string): { front: string; body: string } | undefined {
  const rest = text.startsWith("\ufeff") ? text.slice(1) : text;
  const firstEnd = rest.indexOf("\n");
  if (firstEnd < 0 || rest.slice(0, firstEnd).trimEnd() !== "---") return undefined;
  const frontStart = firstEnd + 1;
  let pos = frontStart;
  for (;;) {
    const found = rest.indexOf("\n", pos);
    const lineEnd = found < 0 ? rest.length : found;
    if (rest.slice(pos, lineEnd).trimEnd() === "---") {
      return { front: rest.slice(frontStart, pos), body: rest.slice(Math.min(lineEnd + 1, rest.length)) };
    }
    if (lineEnd >= rest.length) return undefined;
    pos = lineEnd + 1;
  }
}

/**
 * The fingerprint of a page file's text: a page of blocks' whole YAML, or a
 * Markdown page's front matter and then its text as `body`. None when the
 * file does not read (the build reports it).
 */
export function fingerprintOfText(shape: Shape, markdown: boolean, text: string): Fingerprint | undefined {
  let yaml = text;
  let body: string | undefined;
  if (markdown) {
    const split = splitFrontMatter(text);
    if (!split) return undefined;
    yaml = split.front;
    body = split.body;
  }
  const texts = yaml.trim() === "" ? [] : textsOf(shape, yaml);
  if (!texts) return undefined;
  if (body !== undefined) texts.push(["body", body]);
  return texts.map(([path, words]) => [path, wordsFingerprint(words)]);
}

/** A record (`translated_from`) as a map of path to fingerprint. */
export const recordOf = (fingerprint: Fingerprint): Record<string, string> => Object.fromEntries(fingerprint);

/** The fields of `now` whose fingerprint is not the recorded one, then the recorded fields that are gone. */
export function changed(now: Fingerprint, record: Record<string, string>): string[] {
  const fields = now.filter(([path, print]) => record[path] !== print).map(([path]) => path);
  const present = new Set(now.map(([path]) => path));
  return [...fields, ...Object.keys(record).filter((path) => !present.has(path))];
}
