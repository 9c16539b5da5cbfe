// The content files as the editor has them, and the text a save of an entry
// writes into each (kept.ts: every line the edit did not touch as the file
// had it). Under `site serve` every file is read and written through the
// site's folder (folder.ts), so each one's text is known by its path. On the
// live site the editor hands its formats only data, so the file an entry came
// from is the one read whose data is nearest.

import { type Data, Originals, readFrontMatter, readYaml, saveFrontMatter, saveYaml } from "./kept.ts";

/** The field a save's data carries to the format: which file it is for (see `Files.toFile`). */
export const SAVING = "__site_file";

const isMarkdown = (path: string) => path.endsWith(".md");

export class Files {
  private byPath = new Map<string, string>();
  private originals = new Originals();
  /** The texts a save is about to write, by path, made before the editor asks its format. */
  private saving = new Map<string, string>();

  /** `served`: the files are the site's folder, read and written through `known`. */
  constructor(private served = false) {}

  /** A file's text as read or written through the site's folder; none once it is gone. */
  known(path: string, text: string | undefined): void {
    if (text === undefined) this.byPath.delete(path);
    else this.byPath.set(path, text);
  }

  /** The text of the file at `path` before the save of `data`; none for a new file. */
  before(path: string, data: Data): string | undefined {
    return this.served ? this.byPath.get(path) : this.originals.of(withoutSaving(data));
  }

  /** The text of `base` edited to say `data` (a new file's when there is no base). */
  edit(path: string, base: string | undefined, data: Data): string {
    const plain = base === undefined ? withoutSaving(data) : (untrimmed(withoutSaving(data), this.read(path, base)) as Data);
    return isMarkdown(path) ? saveFrontMatter(base, plain) : saveYaml(base, plain);
  }

  /** The text a save of `data` writes at `path`. */
  textFor(path: string, data: Data): string {
    return this.edit(path, this.before(path, data), data);
  }

  /** A file's data as the editor reads it. */
  read(path: string, text: string): Data {
    return isMarkdown(path) ? readFrontMatter(text) : readYaml(text);
  }

  /** The text the next save writes at `path`, decided before the editor asks its format. */
  willWrite(path: string, text: string): void {
    this.saving.set(path, text);
  }

  /** A format of the editor's (`markdown` or not) that saves by editing the file it read. */
  format(markdown: boolean) {
    const read = markdown ? readFrontMatter : readYaml;
    return {
      fromFile: (text: string): Data => {
        const data = read(text);
        this.originals.remember(text, data);
        return data;
      },
      toFile: (data: Data): string => {
        const path = typeof data[SAVING] === "string" ? data[SAVING] : undefined;
        const decided = path === undefined ? undefined : this.saving.get(path);
        const plain = withoutSaving(data);
        const before = this.originals.of(plain);
        let text: string;
        if (path !== undefined && decided !== undefined) {
          this.saving.delete(path);
          text = decided;
        } else {
          const kept = before === undefined ? plain : (untrimmed(plain, read(before)) as Data);
          text = markdown ? saveFrontMatter(before, kept) : saveYaml(before, kept);
        }
        this.originals.replace(before, text, plain);
        return text;
      },
    };
  }
}

/** An entry's data without what a save carries to the format. */
export function withoutSaving(data: Data): Data {
  if (!(SAVING in data)) return data;
  const { [SAVING]: _, ...plain } = data;
  return plain;
}

/**
 * `data` with each string that differs from the file's only by the spaces
 * around it as the file has it: the editor trims every string it saves, and
 * words such as "I agree to the " keep their space.
 */
export function untrimmed(data: unknown, before: unknown): unknown {
  if (typeof data === "string") return typeof before === "string" && before !== data && before.trim() === data ? before : data;
  if (Array.isArray(data)) return data.map((item, i) => untrimmed(item, Array.isArray(before) ? before[i] : undefined));
  if (data && typeof data === "object") {
    const from = before && typeof before === "object" && !Array.isArray(before) ? (before as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, untrimmed(value, from[key])]));
  }
  return data;
}
