// One stylesheet serves left-to-right pages (English, German) and right-to-left
// ones (Arabic, <html dir="rtl">), so the layout must mirror by itself: every
// stylesheet in styles/ uses logical properties (margin-inline-start, inset-inline-end,
// text-align: start…) rather than physical left and right. A physical one that is
// right in both directions (a centring trick, a transform that JavaScript measures
// in screen pixels) stays, marked on its own line or on a comment line just above
// it with `/* physical: <reason> */`. Also, since Arabic letters join, every
// tracked or uppercased text needs a `:lang(ar)` reset (see _base.css).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

const dir = new URL("./", import.meta.url);
const files = readdirSync(dir, { recursive: true })
  .filter((name) => name.endsWith(".css"))
  .sort()
  .map((name) => ({ name, css: readFileSync(new URL(name, dir), "utf8") }));

/** `css` without comments or string contents (same length, newlines kept), and its comments. */
function mask(css) {
  let code = "";
  const comments = [];
  for (let i = 0; i < css.length; ) {
    if (css.startsWith("/*", i)) {
      const end = css.indexOf("*/", i + 2);
      const stop = end < 0 ? css.length : end + 2;
      comments.push({ start: i, end: stop, text: css.slice(i + 2, end < 0 ? css.length : end) });
      code += css.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (css[i] === '"' || css[i] === "'") {
      let j = i + 1;
      while (j < css.length && css[j] !== css[i] && css[j] !== "\n") j += css[j] === "\\" ? 2 : 1;
      code += css[i] + "x".repeat(Math.max(0, Math.min(j, css.length) - i - 1)) + (j < css.length ? css[j] : "");
      i = j + 1;
    } else {
      code += css[i++];
    }
  }
  return { code: code.slice(0, css.length), comments };
}

/** Every declaration as `{ line, prop, value, selector }`, `selector` the innermost prelude. */
function declarations(css) {
  const { code } = mask(css);
  const lineAt = (offset) => code.slice(0, offset).split("\n").length;
  const text = (from, to) => css.slice(from, to).replace(/\/\*[\s\S]*?\*\//g, " ").trim();
  const out = [];
  const preludes = [];
  for (const m of code.matchAll(/([^{};]*)([{};]|$)/g)) {
    const [, segment, delimiter] = m;
    if (delimiter === "{") {
      preludes.push(text(m.index, m.index + segment.length));
      continue;
    }
    const colon = segment.indexOf(":");
    const lead = segment.length - segment.trimStart().length;
    if (colon >= 0 && preludes.length && !segment.trim().startsWith("@")) {
      out.push({
        line: lineAt(m.index + lead),
        prop: segment.slice(0, colon).trim().toLowerCase(),
        value: text(m.index + colon + 1, m.index + segment.length),
        selector: preludes.at(-1),
      });
    }
    if (delimiter === "}") preludes.pop();
    if (delimiter === "") break;
  }
  return out;
}

/** The lines a `/* physical: <reason> *\/` comment covers: its own, and the next if it stands alone. */
function markedLines(css) {
  const { code, comments } = mask(css);
  const lineAt = (offset) => css.slice(0, offset).split("\n").length;
  const lines = code.split("\n");
  const marked = new Set();
  for (const { start, end, text } of comments) {
    if (!/^\s*physical:(?=[\s\S]*\w)/.test(text)) continue;
    const [first, last] = [lineAt(start), lineAt(end)];
    for (let l = first; l <= last; l++) marked.add(l);
    if (lines[last - 1].trim() === "" && lines[first - 1].trim() === "") marked.add(last + 1);
  }
  return marked;
}

/** Top-level space-separated parts of a value, without `!important`. */
function parts(value) {
  const out = [];
  let depth = 0;
  let cur = "";
  for (const c of value.replace(/!\s*important\s*$/i, "").trim()) {
    depth += c === "(" ? 1 : c === ")" ? -1 : 0;
    if (/\s/.test(c) && depth === 0) {
      if (cur) out.push(cur);
      cur = "";
    } else cur += c;
  }
  return cur ? [...out, cur] : out;
}

const PHYSICAL_PROPERTY = new RegExp(
  "^(?:-(?:webkit|moz|ms)-)?(?:" +
    [
      "(?:margin|padding)-(?:left|right)",
      "border-(?:left|right)(?:-(?:width|color|style))?",
      "left|right",
      "border-(?:top|bottom)-(?:left|right)-radius",
      "scroll-(?:margin|padding)-(?:left|right)",
    ].join("|") +
    ")$",
);
const PHYSICAL_KEYWORD = /^(?:text-align|text-align-last|float|clear|justify-(?:content|items|self))$/;
const FOUR_SIDES = /^(?:margin|padding|inset|scroll-margin|scroll-padding|border-(?:width|style|color))$/;

/** Why a declaration is physical, or null. */
function physical({ prop, value }) {
  if (prop.startsWith("--")) return null;
  if (PHYSICAL_PROPERTY.test(prop)) return prop;
  if (PHYSICAL_KEYWORD.test(prop) && /(?:^|\s)(?:left|right)(?:\s|$|!)/i.test(value)) return `${prop}: ${value}`;
  if (FOUR_SIDES.test(prop)) {
    const p = parts(value);
    if (p.length === 4 && p[1] !== p[3]) return `${prop} with different right and left (${value})`;
  }
  if (prop === "border-radius") {
    for (const group of value.split("/").map(parts)) {
      const [tl, tr = tl, br = tl, bl = tr] = group;
      if (tl !== tr || br !== bl) return `border-radius with different left and right corners (${value})`;
    }
  }
  return null;
}

/** `line: why` for each physical declaration of `css` that carries no marker. */
function unmarked(css) {
  const marked = markedLines(css);
  return declarations(css)
    .filter((d) => !marked.has(d.line))
    .map((d) => ({ line: d.line, why: physical(d) }))
    .filter((d) => d.why)
    .map(({ line, why }) => `${line}: ${why}`);
}

test("the checker tells physical from logical declarations", () => {
  const flagged = (css) => unmarked(css).length > 0;
  assert.deepEqual(unmarked(".a {\n  margin-left: 1rem;\n}"), ["2: margin-left"]);
  assert.ok(!flagged(".a { margin-left: 1rem; /* physical: a reason */ }"));
  assert.ok(!flagged(".a {\n  /* physical: a reason */\n  left: 50%;\n}"));
  assert.ok(flagged(".a {\n  /* physical: */\n  left: 50%;\n}"), "a marker needs a reason");
  assert.ok(flagged(".a {\n  top: 0; /* physical: for top */\n  right: 0;\n}"), "a marker covers its own declaration");
  assert.ok(flagged(".a {\n  /* left: 0 */\n  right: 0;\n}"), "another comment is no marker");
  for (const css of [
    ".a { border-left-color: red; }",
    ".a { border-top-right-radius: 4px; }",
    ".a { text-align: right; }",
    ".a { float: left; }",
    ".a { padding: 0 1rem 0 2rem; }",
    ".a { border-radius: 0 4px 4px 0; }",
    ".a { -webkit-padding-right: 1px; }",
  ]) {
    assert.ok(flagged(css), css);
  }
  for (const css of [
    ".a { margin-inline-start: 1rem; }",
    ".a { margin-inline-end: 1rem; inset-inline-start: 0; inset-inline-end: 0; }",
    ".a { scroll-margin-top: 1rem; padding-inline: 1rem 2rem; }",
    ".a { border-inline-start: 3px solid; border-start-end-radius: 4px; }",
    ".a { text-align: start; float: inline-start; }",
    ".a:hover, .b::before, .c:lang(ar) { color: red; }",
    ".a { padding: 0 1rem 0; margin: 1px 2px 3px 2px; border-radius: 4px 4px 0 0; }",
    ".a { --offset-left: 1px; }",
    ".a { content: 'left: 0; right: 0'; }",
    "/* right: 0 */ .a { color: red; }",
    '@import "./_x.css";',
  ]) {
    assert.deepEqual(unmarked(css), [], css);
  }
});

test("every stylesheet in styles/ mirrors: physical left and right only with a reason", () => {
  assert.ok(files.length >= 10, `only ${files.length} stylesheets found`);
  const problems = files.flatMap(({ name, css }) => unmarked(css).map((p) => `styles/${name}:${p}`));
  assert.deepEqual(problems, [], `physical left/right without /* physical: <reason> */:\n${problems.join("\n")}`);
});

test("tracked and uppercased text has a reset for Arabic", () => {
  const all = files.flatMap(({ css }) => declarations(css));
  const selectors = (d) => d.selector.split(",").map((s) => s.trim().replace(/\s+/g, " "));
  const needs = (prop, ok) =>
    all
      .filter((d) => d.prop === prop && !ok.test(d.value) && !d.selector.includes(":lang("))
      .flatMap(selectors);
  const resets = (prop, ok) =>
    new Set(
      all
        .filter((d) => d.prop === prop && ok.test(d.value))
        .flatMap(selectors)
        .filter((s) => s.endsWith(":lang(ar)"))
        .map((s) => s.slice(0, -":lang(ar)".length)),
    );
  for (const [prop, ok] of [
    ["letter-spacing", /^(?:0[a-z]*|normal)$/],
    ["text-transform", /^none$/],
  ]) {
    const reset = resets(prop, ok);
    const missing = needs(prop, ok).filter((s) => !reset.has(s));
    assert.deepEqual(missing, [], `${prop} with no \`<selector>:lang(ar)\` reset: ${missing.join(", ")}`);
  }
});
