// The site's folder as `site serve` shares it (`/__site/files/`), in the shape
// of the File System Access API's handles, which the editor's "Work with Local
// Repository" reads and writes. So the editor works on `site serve` in any
// browser, with no folder to pick, and every save lands in the working tree.

const BASE = "/__site/files";
const HEADERS = { "X-Site-Editor": "1" };

/** Told each content file's text as it is read or written here, and when it is gone. */
type Listener = (path: string, text: string | undefined) => void;
let listener: Listener | undefined;

/** Who is told each content file's text (files.ts, which edits each file as it is). */
export function onText(listen: Listener): void {
  listener = listen;
}

const isText = (path: string) => /\.(ya?ml|md)$/i.test(path);
const decoder = new TextDecoder();

function told(path: string, bytes: ArrayBuffer | undefined): void {
  if (listener && isText(path)) listener(path, bytes === undefined ? undefined : decoder.decode(bytes));
}

type Kind = "file" | "directory";

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${BASE}/${path}`, { ...init, headers: { ...HEADERS, ...(init.headers ?? {}) } });
  if (response.status === 404) throw new DOMException(`${path} was not found`, "NotFoundError");
  if (!response.ok) throw new DOMException(`${path}: ${await response.text()}`, "NotAllowedError");
  return response;
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** A file's type by its name, as a browser gives it for a file on disk (so a picture's preview decodes). */
const TYPES: Record<string, string> = {
  avif: "image/avif",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  md: "text/markdown",
  pdf: "application/pdf",
  png: "image/png",
  svg: "image/svg+xml",
  webp: "image/webp",
  yaml: "application/yaml",
  yml: "application/yaml",
};
export const typeOf = (name: string) => TYPES[name.split(".").pop()?.toLowerCase() ?? ""] ?? "";

abstract class Handle {
  constructor(
    readonly kind: Kind,
    readonly name: string,
    readonly path: string,
  ) {}
  async queryPermission(): Promise<PermissionState> {
    return "granted";
  }
  async requestPermission(): Promise<PermissionState> {
    return "granted";
  }
  async isSameEntry(other: Handle): Promise<boolean> {
    return other.kind === this.kind && other.path === this.path;
  }
}

class Writable {
  private chunks: BlobPart[] = [];
  constructor(private file: FileHandle) {}
  async write(data: BlobPart | { type: "write"; data: BlobPart }): Promise<void> {
    this.chunks.push(typeof data === "object" && data !== null && "type" in data && (data as { type: string }).type === "write" ? (data as { data: BlobPart }).data : (data as BlobPart));
  }
  async close(): Promise<void> {
    const body = new Blob(this.chunks);
    await call(this.file.path, { method: "PUT", body });
    told(this.file.path, await body.arrayBuffer());
  }
  async abort(): Promise<void> {
    this.chunks = [];
  }
}

export class FileHandle extends Handle {
  constructor(name: string, path: string) {
    super("file", name, path);
  }
  async getFile(): Promise<File> {
    const response = await call(this.path);
    const modified = Number(response.headers.get("Last-Modified")) || Date.now();
    const bytes = await response.arrayBuffer();
    told(this.path, bytes);
    return new File([bytes], this.name, { lastModified: modified, type: typeOf(this.name) });
  }
  async createWritable(): Promise<Writable> {
    return new Writable(this);
  }
  /** Moves (renames) the file, as Chromium's handles can. */
  async move(dir: DirectoryHandle | string, name?: string): Promise<void> {
    const target = typeof dir === "string" ? join(this.path.split("/").slice(0, -1).join("/"), dir) : join(dir.path, name ?? this.name);
    const bytes = await (await call(this.path)).arrayBuffer();
    await call(target, { method: "PUT", body: bytes });
    await call(this.path, { method: "DELETE" });
    told(target, bytes);
    told(this.path, undefined);
    (this as { path: string }).path = target;
    (this as { name: string }).name = target.split("/").pop() ?? this.name;
  }
}

export class DirectoryHandle extends Handle {
  constructor(name: string, path: string) {
    super("directory", name, path);
  }
  private async list(): Promise<{ name: string; kind: Kind }[]> {
    const response = await call(this.path);
    const { entries } = (await response.json()) as { entries: { name: string; kind: Kind }[] };
    return entries;
  }
  private child(name: string, kind: Kind): Handle {
    const path = join(this.path, name);
    return kind === "directory" ? new DirectoryHandle(name, path) : new FileHandle(name, path);
  }
  async *entries(): AsyncGenerator<[string, Handle]> {
    for (const { name, kind } of await this.list()) yield [name, this.child(name, kind)];
  }
  async *values(): AsyncGenerator<Handle> {
    for await (const [, handle] of this.entries()) yield handle;
  }
  async *keys(): AsyncGenerator<string> {
    for await (const [name] of this.entries()) yield name;
  }
  [Symbol.asyncIterator]() {
    return this.entries();
  }
  async getDirectoryHandle(name: string, { create = false } = {}): Promise<DirectoryHandle> {
    const found = (await this.list()).find((e) => e.name === name);
    if (found?.kind === "file") throw new DOMException(`${name} is a file`, "TypeMismatchError");
    if (!found) {
      if (!create) throw new DOMException(`${name} was not found`, "NotFoundError");
      await call(join(this.path, name), { method: "POST" });
    }
    return new DirectoryHandle(name, join(this.path, name));
  }
  async getFileHandle(name: string, { create = false } = {}): Promise<FileHandle> {
    const found = (await this.list()).find((e) => e.name === name);
    if (found?.kind === "directory") throw new DOMException(`${name} is a folder`, "TypeMismatchError");
    if (!found) {
      if (!create) throw new DOMException(`${name} was not found`, "NotFoundError");
      await call(join(this.path, name), { method: "PUT", body: "" });
    }
    return new FileHandle(name, join(this.path, name));
  }
  async removeEntry(name: string, { recursive = false } = {}): Promise<void> {
    const path = join(this.path, name);
    if (recursive) {
      const found = (await this.list()).find((e) => e.name === name);
      if (found?.kind === "directory") {
        const dir = new DirectoryHandle(name, path);
        for await (const [child] of dir.entries()) await dir.removeEntry(child, { recursive: true });
      }
    }
    await call(path, { method: "DELETE" });
    told(path, undefined);
  }
}

/** The site's folder, as the directory picker would give it. */
export function siteFolder(): DirectoryHandle {
  return new DirectoryHandle("site", "");
}

/**
 * The editor remembers the folder it was given in IndexedDB, where a handle
 * of ours cannot live (only its fields would be kept): it is forgotten, and
 * the editor asks `showDirectoryPicker` again, which answers at once.
 */
export async function forgetRememberedFolders(): Promise<void> {
  if (!("databases" in indexedDB)) return;
  const databases = await indexedDB.databases();
  await Promise.all(
    databases.map(
      ({ name }) =>
        new Promise<void>((done) => {
          if (!name) return done();
          const open = indexedDB.open(name);
          open.onerror = () => done();
          open.onsuccess = () => {
            const db = open.result;
            const store = "file-system-handles";
            if (!db.objectStoreNames.contains(store)) {
              db.close();
              return done();
            }
            const clear = db.transaction(store, "readwrite").objectStore(store).clear();
            clear.onsuccess = clear.onerror = () => {
              db.close();
              done();
            };
          };
        }),
    ),
  );
}
