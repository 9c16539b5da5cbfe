// The content editor at /admin/: Sveltia CMS, with the site's formats (a save
// keeps the rest of the file as it was), a field for values its widgets cannot
// describe, and, under `site serve`, the site's folder to work in.

import { parse, stringify } from "yaml";
import { createElement } from "react";
import { forgetRememberedFolders, siteFolder } from "./folder.ts";
import { type Data, Originals, setDefaults, readFrontMatter, readYaml, saveFrontMatter, saveYaml } from "./kept.ts";
import { loadPreview, PagePreview, setDraftText } from "./preview.ts";

type CMS = {
  init(options?: object): void;
  registerCustomFormat(name: string, extension: string, format: { fromFile(text: string): Data; toFile(data: Data): string }): void;
  registerFieldType(name: string, control: unknown, preview?: unknown): void;
  registerPreviewTemplate(name: string, component: unknown): void;
};

declare global {
  interface Window {
    CMS_MANUAL_INIT?: boolean;
    CMS?: CMS;
  }
}

function load(src: string): Promise<void> {
  return new Promise((done, fail) => {
    const element = document.createElement("script");
    element.src = src;
    element.onload = () => done();
    element.onerror = () => fail(new Error(`${src} did not load`));
    document.head.append(element);
  });
}

/** YAML as text, for a value that is a word or a mapping (an event's place). */
function YamlField(props: { value: unknown; forID: string; classNameWrapper: string; onChange(v: unknown): void }) {
  return createElement("textarea", {
    id: props.forID,
    className: props.classNameWrapper,
    rows: 4,
    spellCheck: false,
    defaultValue: props.value === undefined || props.value === null ? "" : stringify(props.value).trimEnd(),
    onChange: (event: { target: { value: string } }) => {
      try {
        props.onChange(parse(event.target.value));
      } catch {
        // Half-typed YAML: the value stays as it was until the text reads.
      }
    },
  });
}

/** Every field's `default` in the editor's configuration, by field name. */
async function fieldDefaults(): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      const field = value as { name?: unknown; default?: unknown };
      if (typeof field.name === "string" && "default" in field) found[field.name] = field.default;
      Object.values(value).forEach(walk);
    }
  };
  walk(await (await fetch("/admin/config.yml", { cache: "no-store" })).json());
  return found;
}

/**
 * A format that saves by editing the file it read: the editor hands a format
 * only data, so the files read are remembered and the nearest one is edited.
 */
function kept(read: (text: string) => Data, save: (text: string | undefined, data: Data) => string) {
  const originals = new Originals();
  return {
    fromFile(text: string): Data {
      const data = read(text);
      originals.remember(text, data);
      return data;
    },
    toFile(data: Data): string {
      const before = originals.of(data);
      const text = save(before, data);
      originals.replace(before, text, data);
      return text;
    },
    /** The text a save would write, for the preview: nothing is remembered. */
    draft(data: Data): string {
      return save(originals.of(data), data);
    },
  };
}

async function start(): Promise<void> {
  const tag = document.querySelector<HTMLScriptElement>("script[data-cms]");
  const src = tag?.dataset.cms;
  if (!src) throw new Error("the editor's page names no data-cms script");
  const served = tag?.hasAttribute("data-served") ?? false;
  if (served) {
    await forgetRememberedFolders();
    Object.assign(window, { showDirectoryPicker: async () => siteFolder() });
  }
  window.CMS_MANUAL_INIT = true;
  await load(src);
  const cms = window.CMS;
  if (!cms) throw new Error("the editor did not start");
  setDefaults(await fieldDefaults());
  const yaml = kept(readYaml, saveYaml);
  const markdown = kept(readFrontMatter, saveFrontMatter);
  cms.registerCustomFormat("yaml-kept", "yaml", yaml);
  cms.registerCustomFormat("kept-frontmatter", "md", markdown);
  cms.registerFieldType("yaml", YamlField);
  if (served) {
    setDraftText((path, data) => (path.endsWith(".md") ? markdown : yaml).draft(data));
    for (const name of Object.keys((await loadPreview()).folders)) cms.registerPreviewTemplate(name, PagePreview);
  }
  cms.init();
}

start().catch((error: unknown) => {
  document.body.textContent = `The editor could not start: ${error instanceof Error ? error.message : String(error)}`;
});
