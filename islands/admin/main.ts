// The content editor at /admin/: Sveltia CMS, with the site's formats (a save
// keeps the rest of the file as it was), its languages (a translation records
// its source when saved), a field for values its widgets cannot describe, and,
// under `site serve`, the site's folder to work in.

import { parse, stringify } from "yaml";
import { createElement } from "react";
import { Files } from "./files.ts";
import { forgetRememberedFolders, onText, siteFolder } from "./folder.ts";
import { type Data, setDefaults } from "./kept.ts";
import { loadPreview, PagePreview, setDraftText } from "./preview.ts";
import { beforeSave, draftText, loadTranslations, recordControl } from "./translations.ts";

type CMS = {
  init(options?: object): void;
  registerCustomFormat(name: string, extension: string, format: { fromFile(text: string): Data; toFile(data: Data): string }): void;
  registerFieldType(name: string, control: unknown, preview?: unknown): void;
  registerPreviewTemplate(name: string, component: unknown): void;
  registerEventListener(listener: { name: string; handler(args: { entry: never }): unknown }): void;
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
  walk(await (await fetch("/admin/config.json", { cache: "no-store" })).json());
  return found;
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
  const files = new Files(served);
  if (served) onText((path, text) => files.known(path, text));
  window.CMS_MANUAL_INIT = true;
  await load(src);
  const cms = window.CMS;
  if (!cms) throw new Error("the editor did not start");
  setDefaults(await fieldDefaults());
  await loadTranslations();
  cms.registerCustomFormat("yaml-kept", "yaml", files.format(false));
  cms.registerCustomFormat("kept-frontmatter", "md", files.format(true));
  cms.registerFieldType("yaml", YamlField);
  cms.registerFieldType("translation", recordControl(files));
  // Each file of the entry is decided where every language's values are at hand.
  cms.registerEventListener({ name: "preSave", handler: ({ entry }) => beforeSave(files, entry) });
  if (served) {
    setDraftText((path, data, others) => draftText(files, path, data, others));
    for (const name of Object.keys((await loadPreview()).folders)) cms.registerPreviewTemplate(name, PagePreview);
  }
  // Under `site serve` the editor works in the site's folder: its GitHub
  // backend points at the site itself (which it never asks), so it asks no
  // other host, GitHub's status page included.
  cms.init(served ? { config: { backend: { api_root: `${location.origin}/__site/github` } } } : undefined);
}

start().catch((error: unknown) => {
  document.body.textContent = `The editor could not start: ${error instanceof Error ? error.message : String(error)}`;
});
