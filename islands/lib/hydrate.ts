// React's part of the island runtime, loaded on demand by runtime.ts so that pages
// fetch React only when an island is about to hydrate.

import { createElement, type ComponentType } from "react";
import { hydrateRoot } from "react-dom/client";

export function hydrateIsland(
  el: HTMLElement,
  component: ComponentType<Record<string, unknown>>,
  props: Record<string, unknown>,
): void {
  const name = el.dataset.island ?? "island";
  hydrateRoot(el, createElement(component, props), {
    onRecoverableError(error: unknown) {
      console.error(`Island ${name} did not hydrate cleanly:`, error);
    },
  });
}
