// How an island becomes HTML at build time. The generator's server-render process
// (see generator/src/bundle/server-entry.ts) checks each island's props against
// its `<Name>.props.ts` and then calls this.

import { createElement, type ComponentType } from "react";
import { renderToString } from "react-dom/server";

export function render(component: ComponentType<Record<string, unknown>>, props: Record<string, unknown>): string {
  return renderToString(createElement(component, props));
}
