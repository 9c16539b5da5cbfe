// The island runtime: finds the server-rendered island markers on the page and
// hydrates each when its directive says. React itself is imported only when the
// first island hydrates, so the page's first paint never waits for it.

type Directive = "load" | "idle" | "visible";

import type { ComponentType } from "react";

type IslandModule = { default: ComponentType<Record<string, unknown>> };

const schedulers: Record<Directive, (el: HTMLElement, start: () => void) => void> = {
  load: (_el, start) => start(),
  idle: (_el, start) => {
    if ("requestIdleCallback" in window) {
      window.requestIdleCallback(start, { timeout: 2000 });
    } else {
      setTimeout(start, 200);
    }
  },
  visible: (el, start) => {
    // The marker is `display: contents` and has no box of its own: watch its children.
    const targets = el.children.length > 0 ? Array.from(el.children) : [el];
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          start();
        }
      },
      { rootMargin: "200px" },
    );
    for (const target of targets) observer.observe(target);
  },
};

function readProps(el: HTMLElement): Record<string, unknown> {
  const script = el.nextElementSibling;
  if (script instanceof HTMLScriptElement && script.hasAttribute("data-island-props")) {
    return JSON.parse(script.textContent || "{}") as Record<string, unknown>;
  }
  return {};
}

async function hydrate(el: HTMLElement): Promise<void> {
  const src = el.dataset.component;
  if (!src) return;
  const [{ hydrateIsland }, mod] = await Promise.all([
    import("./lib/hydrate.ts"),
    import(src) as Promise<IslandModule>,
  ]);
  hydrateIsland(el, mod.default, readProps(el));
  el.setAttribute("data-hydrated", "");
}

function start(): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-island][data-component]")) {
    const directive = el.dataset.hydrate as Directive | undefined;
    const schedule = directive ? schedulers[directive] : undefined;
    if (!schedule) continue;
    schedule(el, () => {
      hydrate(el).catch((error: unknown) => {
        console.error(`Island ${el.dataset.island} failed to load:`, error);
      });
    });
  }
}

start();
