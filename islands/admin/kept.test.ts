import { test } from "node:test";
import assert from "node:assert/strict";
import { Originals, readFrontMatter, readYaml, saveFrontMatter, saveYaml, setDefaults } from "./kept.ts";

const page = `# yaml-language-server: $schema=../../schemas/page.schema.json
title: About us
description: "Who we are."   # quoted on purpose
intro: >-
  A folded text whose lines
  are shorter than the library would make them.

blocks:
  - type: hero
    heading: Built for what comes next
    text: 'Since 2004.'
    actions: [{ label: Contact, href: /contact }]

  # The figures
  - type: stats
    items:
      - { value: "40", label: Countries }
`;

function changedLines(a: string, b: string): string[] {
  const x = a.split("\n");
  const y = b.split("\n");
  assert.equal(x.length, y.length, `line count changed:\n${b}`);
  return y.filter((line, i) => line !== x[i]);
}

test("editing one heading changes that one line and keeps comments, quotes and blank lines", () => {
  const data = readYaml(page);
  const blocks = structuredClone(data.blocks) as Record<string, unknown>[];
  blocks[0].heading = "Built for the next decade";
  const saved = saveYaml(page, { ...data, blocks });
  assert.deepEqual(changedLines(page, saved), ["    heading: Built for the next decade"]);
});

test("a value the editor hands back empty where the file had none adds nothing", () => {
  const data = readYaml(page);
  const blocks = structuredClone(data.blocks) as Record<string, unknown>[];
  blocks[0].eyebrow = "";
  blocks[0].image = null;
  blocks[1].numbered = false;
  const saved = saveYaml(page, { ...data, layout: undefined, aliases: [], blocks });
  assert.equal(saved, page);
});

test("a removed field and an added block change only their own lines", () => {
  const data = readYaml(page);
  const blocks = structuredClone(data.blocks) as Record<string, unknown>[];
  blocks.push({ type: "cta", heading: "Talk to us" });
  const saved = saveYaml(page, { ...data, blocks });
  assert.ok(saved.startsWith(page.trimEnd()), saved);
  assert.match(saved, /- type: cta\n\s+heading: Talk to us\n$/);
  const { description: _, ...rest } = data;
  const without = saveYaml(page, rest);
  assert.ok(!without.includes("Who we are"));
  assert.ok(without.includes("# The figures"));
});

test("front matter keeps its order and the body is kept as written", () => {
  const text = "---\ntitle: Cloud\n# when\ndate: 2026-01-05\ntags: [a, b]\n---\n\nBody *text*.\n";
  const data = readFrontMatter(text);
  assert.equal(data.body, "Body *text*.\n");
  assert.equal(data.date, "2026-01-05", "a date stays the text it was");
  const saved = saveFrontMatter(text, { ...data, title: "Cloud services" });
  assert.equal(saved, text.replace("title: Cloud", "title: Cloud services"));
  assert.equal(saveFrontMatter(text, data), text);
});

test("a new file is written whole, without the empty fields the editor hands back", () => {
  assert.equal(saveYaml(undefined, { title: "New", layout: "", blocks: [{ type: "hero", eyebrow: "" }] }), "title: New\nblocks:\n  - type: hero\n");
  const saved = saveFrontMatter(undefined, {
    title: "New",
    date: "2026-11-26",
    layout: "",
    aliases: [],
    draft: false,
    image: { src: "/images/a.png", alt: "" },
    body: "Hello",
  });
  assert.equal(saved, '---\ntitle: New\ndate: 2026-11-26\nimage:\n  src: /images/a.png\n  alt: ""\n---\n\nHello\n');
});

test("the file a save comes from is the one whose data is nearest; a new entry has none", () => {
  const originals = new Originals();
  const a = "title: A\ndescription: First\nblocks: []\n";
  const b = "title: B\ndescription: Second\nblocks: []\n";
  originals.remember(a, readYaml(a));
  originals.remember(b, readYaml(b));
  assert.equal(originals.of({ title: "B", description: "Second, edited", blocks: [] }), b);
  assert.equal(originals.of({ title: "C", description: "Third", blocks: [{ type: "hero" }] }), undefined);
});

test("every content file of the site saves unchanged, and with an edited title changes in that line alone", async () => {
  const { readdirSync, readFileSync, statSync } = await import("node:fs");
  const path = await import("node:path");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ya?ml|md)$/.test(name)) files.push(full);
    }
  };
  walk("content");
  assert.ok(files.length > 40, `only ${files.length} files`);
  let edited = 0;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const markdown = file.endsWith(".md");
    const data = markdown ? readFrontMatter(text) : readYaml(text);
    const save = (d: Record<string, unknown>) => (markdown ? saveFrontMatter(text, d) : saveYaml(text, d));
    assert.equal(save(data), text, file);
    // A title edited: that one line changes, however the rest of the file is written.
    if (typeof data.title === "string" && text.includes(`\ntitle: ${data.title}\n`)) {
      assert.deepEqual(changedLines(text, save({ ...data, title: `${data.title} (edited)` })), [`title: ${data.title} (edited)`], file);
      edited++;
    }
  }
  assert.ok(edited > 30, `only ${edited} titles edited`);
});

test("an edit inside folded text keeps the file's other lines", () => {
  const data = readYaml(page);
  const saved = saveYaml(page, { ...data, title: "About Meridian" });
  assert.deepEqual(changedLines(page, saved), ["title: About Meridian"]);
});

test("a switch the editor shows at its default, and the file leaves out, stays out", () => {
  setDefaults({ highlight_code: true });
  const text = "name: Meridian\ntagline: Old\n";
  const saved = saveYaml(text, { name: "Meridian", tagline: "New", highlight_code: true });
  assert.equal(saved, "name: Meridian\ntagline: New\n");
  assert.equal(saveYaml(text, { name: "Meridian", tagline: "Old", highlight_code: false }), text, "off where off is not the default is the editor's own empty");
  setDefaults({});
});

test("a body the editor writes back in its own spelling changes only where it was edited", () => {
  const text = "---\ntitle: T\n---\n\nIntro.\n\n| a | b |\n|---|:--:|\n| 1 | 2 |\n\n* one  \n* two\n";
  const data = readFrontMatter(text);
  const respelled = "Intro, edited.\n\n| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n- one\n- two\n";
  assert.equal(
    saveFrontMatter(text, { ...data, body: respelled }),
    text.replace("Intro.", "Intro, edited."),
  );
});
