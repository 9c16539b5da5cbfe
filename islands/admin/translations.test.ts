import { test } from "node:test";
import assert from "node:assert/strict";
import { fingerprintOfText, recordOf, type Shape } from "./fingerprint.ts";
import { Files, SAVING } from "./files.ts";
import { type Data, readYaml } from "./kept.ts";
import { recordIn, withRecord } from "./record.ts";
import { beforeSave, draftText, localePath, prefill, setTranslations, sourcePath, type Translations } from "./translations.ts";

/** A page of blocks' rules, as the build hands them (the parts these pages use). */
const page: Shape = {
  fields: [
    ["title", { value: "translate" }],
    ["description", { value: "translate" }],
    ["aliases", { list: { value: "own" } }],
    ["translated_from", { value: "own" }],
    [
      "blocks",
      {
        list: {
          typed: [
            [
              "hero",
              {
                fields: [
                  ["heading", { value: "translate" }],
                  ["image", { fields: [["src", { value: "copy" }], ["alt", { value: "translate" }]] }],
                  [
                    "actions",
                    {
                      list: {
                        fields: [
                          ["label", { value: "translate" }],
                          ["href", { value: "copy" }],
                        ],
                      },
                    },
                  ],
                ],
              },
            ],
            ["text", { fields: [["id", { value: "share" }], ["heading", { value: "translate" }], ["text", { value: "translate" }]] }],
          ],
        },
      },
    ],
  ],
};

const translations: Translations = {
  default: "en",
  languages: { en: "English", de: "Deutsch", ar: "العربية" },
  collections: { pages: "page" },
  shapes: { page },
};
setTranslations(translations);

const english = `# yaml-language-server: $schema=../../schemas/page.schema.json
title: About us
description: Who we are.
aliases: [/company/]
blocks:
  - type: hero
    heading: Practitioners who deliver
    image: { src: /images/hero.svg, alt: Cubes }
    actions:
      - { label: Contact us, href: /contact/ }
  # Our story
  - type: text
    id: story
    heading: Our story
    text: We started in 2021.
`;

const fingerprint = fingerprintOfText(page, false, english) ?? [];

const german = withRecord(
  `# yaml-language-server: $schema=../../schemas/page.schema.json
title: Über uns
description: Wer wir sind.
blocks:
  - type: hero
    heading: Praktiker, die umsetzen
    image: { src: /images/hero.svg, alt: Würfel }
    actions:
      - { label: Kontakt, href: /de/contact/ }
  - type: text
    id: story
    heading: Unsere Geschichte
    text: Wir begannen 2021.
`,
  false,
  fingerprint,
);

/** The site's folder as the editor found it. */
function site(): Files {
  const files = new Files(true);
  files.known("content/pages/about.yaml", english);
  files.known("content/pages/about.de.yaml", german);
  return files;
}

type Plain = Record<string, unknown>;

/** An entry as the editor hands it to its `preSave` listeners (an Immutable map in the editor). */
type Entry = { toJS(): Plain; setIn(at: unknown[], value: unknown): Entry };

function entry(value: Plain): Entry {
  const setIn = (target: Plain, at: unknown[], v: unknown): Plain => {
    const [head, ...rest] = at as string[];
    return { ...target, [head]: rest.length === 0 ? v : setIn((target[head] as Plain) ?? {}, rest, v) };
  };
  return { toJS: () => structuredClone(value), setIn: (at, inner) => entry(setIn(value, at, inner)) };
}

/** Saves the About entry with these values, as the editor does; gives the text written into each file. */
function save(files: Files, en: Data, others: Record<string, Data>): Record<string, string> {
  const saved = beforeSave(
    files,
    entry({ path: "content/pages/about.yaml", collection: "pages", data: en, i18n: Object.fromEntries(Object.entries(others).map(([code, data]) => [code, { data }])) }),
  )?.toJS() as { data: Data; i18n: Record<string, { data: Data }> };
  const format = files.format(false);
  const written: Record<string, string> = {};
  for (const data of [saved.data, ...Object.values(saved.i18n).map((l) => l.data)]) written[String(data[SAVING])] = format.toFile(data);
  return written;
}

const lines = (a: string, b: string) => {
  const x = a.split("\n");
  return b.split("\n").filter((line, i) => line !== x[i]);
};

test("a translation's file is named by its language beside the default's", () => {
  assert.equal(localePath("content/pages/about.yaml", "de"), "content/pages/about.de.yaml");
  assert.equal(localePath("content/pages/insights/edge-ai.md", "ar"), "content/pages/insights/edge-ai.ar.md");
  assert.equal(localePath("content/pages/about.yaml", "en"), "content/pages/about.yaml");
  assert.equal(localePath("content/strings/en.yaml", "de"), "content/strings/de.yaml");
  assert.equal(sourcePath("content/pages/insights/edge-ai.ar.md", "ar"), "content/pages/insights/edge-ai.md");
});

test("editing one German field changes that line of the German file alone, its record still current", () => {
  const files = site();
  const de = readYaml(german);
  (de.blocks as Plain[])[1].heading = "Unsere Geschichte seit 2021";
  const written = save(files, readYaml(english), { de });
  assert.equal(written["content/pages/about.yaml"].trim(), english.trim(), "the English file is written as it was");
  assert.deepEqual(lines(german, written["content/pages/about.de.yaml"]), ["    heading: Unsere Geschichte seit 2021"]);
});

test("saving the English page records nothing, in it or in a translation left alone", () => {
  const files = site();
  const en = readYaml(english);
  en.title = "About Meridian";
  const written = save(files, en, { de: readYaml(german) });
  assert.deepEqual(lines(english, written["content/pages/about.yaml"]), ["title: About Meridian"]);
  assert.equal(recordIn(written["content/pages/about.yaml"], false), undefined);
  assert.equal(written["content/pages/about.de.yaml"].trim(), german.trim(), "the German file, now older than the English, is left as it was");
});

test("a translation saved after its source changed records the source as it is now", () => {
  const files = site();
  const en = readYaml(english);
  en.title = "About Meridian";
  const now = recordOf(fingerprintOfText(page, false, english.replace("About us", "About Meridian")) ?? []);
  const de = readYaml(german);
  de.title = "Über Meridian";
  const written = save(files, en, { de });
  assert.deepEqual(recordIn(written["content/pages/about.de.yaml"], false), now);
  assert.deepEqual(lines(german, written["content/pages/about.de.yaml"]), ["title: Über Meridian", `  title: "${now.title}"`]);
});

test("a translation marked current records its source without another change", () => {
  const files = site();
  const en = readYaml(english);
  en.description = "Who we are, and what we do.";
  const now = recordOf(fingerprintOfText(page, false, english.replace("Who we are.", "Who we are, and what we do.")) ?? []);
  // The editor keeps a record's fields by their dotted paths.
  const de = { ...readYaml(german), translated_from: { title: now.title, description: now.description, "blocks[0]": { heading: now["blocks[0].heading"] } } };
  const written = save(files, en, { de });
  assert.deepEqual(recordIn(written["content/pages/about.de.yaml"], false), now);
  assert.deepEqual(lines(german, written["content/pages/about.de.yaml"]), [`  description: "${now.description}"`]);
});

test("a new translation starts from its source: its empty fields filled, the source's addresses left out, its record written", () => {
  const files = site();
  const en = readYaml(english);
  // The editor copies what is not words and leaves words empty, but for those typed.
  const ar = structuredClone(en);
  ar.title = "من نحن";
  ar.description = "";
  (ar.blocks as Plain[])[0].heading = "";
  ((ar.blocks as Plain[])[0].actions as Plain[])[0] = { label: "", href: "" };
  const written = save(files, en, { ar })["content/pages/about.ar.yaml"];
  assert.match(written, /^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/page\.schema\.json\ntitle: من نحن\ndescription: Who we are\.\n/);
  assert.match(written, /\n    heading: Practitioners who deliver\n/);
  assert.match(written, /\n      - \{ label: Contact us, href: \/contact\/ \}\n/);
  assert.doesNotMatch(written, /aliases/, "two pages cannot share an old address");
  assert.match(written, /\n  # Our story\n/, "the source's comments come with it");
  assert.deepEqual(recordIn(written, false), recordOf(fingerprint));
});

test("the preview shows a translation as it is before it is saved: an edit records nothing yet", () => {
  const files = site();
  const en = readYaml(english.replace("About us", "About Meridian"));
  const de = readYaml(german);
  de.title = "Über Meridian";
  const text = draftText(files, "content/pages/about.de.yaml", de, { en: { data: en } });
  assert.deepEqual(recordIn(text, false), recordOf(fingerprint), "still the record of the English it was translated from");
  assert.match(text, /\ntitle: Über Meridian\n/);
});

test("a new translation's values: words and copies from the source where empty, its own words kept", () => {
  const source = readYaml(english);
  const made = prefill(page, { title: "Titel", description: "", aliases: ["/company/"], blocks: [{ type: "text", id: "", heading: "", text: "Text" }] }, source) as Data;
  assert.equal(made.title, "Titel");
  assert.equal(made.description, "Who we are.");
  assert.equal("aliases" in made, false);
  // Items are matched by place and type: a hero in the source is no text block.
  assert.deepEqual(made.blocks, [{ type: "text", id: "", heading: "", text: "Text" }]);
});
