// Pure rules of the site search, kept apart from React so they can be unit tested.

/** A run of an excerpt's text, and whether it matched the query. */
export type Part = { text: string; marked: boolean };

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: "\u00a0" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16) || 0xfffd);
    if (lower.startsWith("#") && lower !== "#39") return String.fromCodePoint(parseInt(lower.slice(1), 10) || 0xfffd);
    return ENTITIES[lower] ?? whole;
  });
}

/**
 * Pagefind's excerpt (escaped text with `<mark>` around the matched words) as
 * plain runs of text, so it is shown as text and never parsed as HTML.
 */
export function excerptParts(excerpt: string): Part[] {
  const parts: Part[] = [];
  const pattern = /<mark>([\s\S]*?)<\/mark>/g;
  let last = 0;
  for (const match of excerpt.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ text: decode(stripTags(excerpt.slice(last, index))), marked: false });
    parts.push({ text: decode(stripTags(match[1])), marked: true });
    last = index + match[0].length;
  }
  if (last < excerpt.length) parts.push({ text: decode(stripTags(excerpt.slice(last))), marked: false });
  return parts.filter((p) => p.text !== "");
}

function stripTags(text: string): string {
  return text.replace(/<[^>]*>/g, "");
}

/**
 * Where focus goes on an arrow key, from `current` (-1 is the search field,
 * 0… the results) among `count` results: down from the field to the first
 * result, up from the first back to the field, and no further either way.
 */
export function nextFocus(current: number, key: string, count: number): number {
  if (count === 0) return -1;
  if (key === "ArrowDown") return Math.min(current + 1, count - 1);
  if (key === "ArrowUp") return Math.max(current - 1, -1);
  if (key === "Home") return current === -1 ? -1 : 0;
  if (key === "End") return current === -1 ? -1 : count - 1;
  return current;
}

/** The words read out after a search: how many pages were found. */
export function resultsSummary(query: string, count: number, words: Record<string, string>, locale: string): string {
  if (query.trim() === "") return "";
  const fill = (text: string) => text.replaceAll("{query}", query.trim()).replaceAll("{count}", count.toLocaleString(locale));
  if (count === 0) return fill(words.none ?? "");
  // The language's own plural forms (Arabic has six), `other` for any it lacks.
  const category = new Intl.PluralRules(locale).select(count);
  return fill(words[`found.${category}`] ?? words["found.other"] ?? "");
}

/** The most characters kept of a query typed while the search's code loads. */
export const MAX_TYPE_AHEAD = 200;

/** A key press as the type-ahead reads it. */
export type TypedKey = { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean };

/**
 * The query typed while the search's code loads (on a slow connection, a
 * second or more after the visitor opened it): a printable key adds its
 * character, Backspace takes the last one back, anything else changes nothing.
 * The field starts with it, so no keystroke is lost.
 */
export function typeAhead(typed: string, press: TypedKey): string {
  if (press.ctrlKey || press.metaKey || press.altKey) return typed;
  const chars = Array.from(typed);
  if (press.key === "Backspace") return chars.slice(0, -1).join("");
  // A printable key's name is the one character it types.
  if (Array.from(press.key).length !== 1 || chars.length >= MAX_TYPE_AHEAD) return typed;
  return typed + press.key;
}
