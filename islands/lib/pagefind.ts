// Pagefind's browser API, loaded from the site's own /pagefind/ on first use: its
// script, WebAssembly and index are never part of a page's first load.

/** One result, as the search dialog shows it. */
export type Found = { url: string; title: string; excerpt: string };

type PagefindResult = { data: () => Promise<{ url: string; excerpt: string; meta: { title?: string } }> };
type Pagefind = {
  options: (options: Record<string, unknown>) => Promise<void>;
  init: () => Promise<void>;
  debouncedSearch: (query: string, options?: object, ms?: number) => Promise<{ results: PagefindResult[] } | null>;
};

const SCRIPT = "/pagefind/pagefind.js";
let loading: Promise<Pagefind> | null = null;

/** The Pagefind module, loaded once. */
export function pagefind(): Promise<Pagefind> {
  loading ??= (async () => {
    // A URL the bundler leaves alone: the index is built after the islands.
    const script: string = SCRIPT;
    const module = (await import(/* @vite-ignore */ script)) as Pagefind;
    await module.options({ excerptLength: 24 });
    await module.init();
    return module;
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

/**
 * The first `limit` results for `query`, or null when a newer search replaced
 * this one while it waited.
 */
export async function search(query: string, limit = 8): Promise<Found[] | null> {
  const api = await pagefind();
  const found = await api.debouncedSearch(query, {}, 120);
  if (found === null) return null;
  const data = await Promise.all(found.results.slice(0, limit).map((r) => r.data()));
  return data.map((d) => ({ url: d.url, title: d.meta.title ?? d.url, excerpt: d.excerpt }));
}
