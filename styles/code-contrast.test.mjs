// The code blocks' colours (styles/_code.css) are readable: every text colour
// reaches the WCAG 2.x AA ratio of 4.5:1 on the block's background, and the main
// token kinds are coloured at all. Custom properties resolve from _tokens.css.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const read = (name) =>
  readFileSync(new URL(name, import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
const code = read("./_code.css");

/** Innermost rules as `{ selectors, decls }`; at-rule wrappers are skipped. */
function rules(css) {
  return [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(([, sel, body]) => ({
    selectors: sel.trim().split(",").map((s) => s.trim()),
    decls: body
      .split(";")
      .map((d) => d.split(/:(.*)/s).map((p) => p.trim()))
      .filter(([prop, value]) => prop && value),
  }));
}

const vars = new Map();
for (const css of [read("./_tokens.css"), code]) {
  for (const [, name, value] of css.matchAll(/(--[\w-]+)\s*:\s*([^;}]+)/g)) vars.set(name, value.trim());
}

/** `#rgb`/`#rrggbb` or `var(--name)` → `#rrggbb`; anything else throws. */
function hex(value, seen = new Set()) {
  const v = value.match(/^var\(\s*(--[\w-]+)\s*\)$/);
  if (v) {
    assert.ok(vars.has(v[1]) && !seen.has(v[1]), `unknown custom property ${v[1]}`);
    return hex(vars.get(v[1]), seen.add(v[1]));
  }
  const m = value.match(/#([0-9a-f]{3}|[0-9a-f]{6})\b/i);
  assert.ok(m, `not a hex colour: ${value}`);
  return m[1].length === 3 ? "#" + [...m[1]].map((c) => c + c).join("") : "#" + m[1];
}

function luminance(color) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const all = rules(code);
const background = (() => {
  for (const { selectors, decls } of all) {
    if (!selectors.some((s) => /\bpre\.code\b/.test(s))) continue;
    const bg = decls.find(([p]) => p === "background" || p === "background-color");
    if (bg) return hex(bg[1]);
  }
  assert.fail("_code.css gives pre.code no background colour");
})();

test("the contrast formula matches WCAG's known values", () => {
  assert.equal(contrast("#000000", "#ffffff"), 21);
  assert.equal(contrast("#777777", "#ffffff").toFixed(2), "4.48");
});

test("every text colour in _code.css reaches 4.5:1 on the code background", () => {
  const colors = all.flatMap(({ selectors, decls }) =>
    decls.filter(([p]) => p === "color").map(([, v]) => ({ where: selectors.join(", "), value: v })),
  );
  assert.ok(colors.length >= 6, `only ${colors.length} colour declarations found`);
  for (const { where, value } of colors) {
    const ratio = contrast(hex(value), background);
    assert.ok(ratio >= 4.5, `${where}: ${value} is ${ratio.toFixed(2)}:1 on ${background}, below 4.5:1`);
  }
});

test("comments, keywords, strings and constants are coloured", () => {
  for (const atom of ["hl-comment", "hl-keyword", "hl-string", "hl-constant"]) {
    const colored = all.some(
      ({ selectors, decls }) =>
        selectors.some((s) => new RegExp(`\\.${atom}(?![\\w-])`).test(s)) && decls.some(([p]) => p === "color"),
    );
    assert.ok(colored, `no colour for .${atom}`);
  }
});
