// The toast queue shared by the islands: one toast at a time, a new one replaces
// the current one. Islands import this module; esbuild puts it in a chunk they
// share, so they share its state (no global object).

export type Toast = {
  id: number;
  title: string;
  description?: string;
  variant: "default" | "destructive";
};

type Listener = (toast: Toast | null) => void;

let current: Toast | null = null;
let nextId = 1;
const listeners = new Set<Listener>();

/** Shows a toast, replacing the one on screen. */
export function showToast(toast: Omit<Toast, "id" | "variant"> & { variant?: Toast["variant"] }): Toast {
  current = { variant: "default", ...toast, id: nextId++ };
  for (const listener of listeners) listener(current);
  return current;
}

/** Removes the toast `id` if it is still the one on screen. */
export function dismissToast(id: number): void {
  if (current?.id !== id) return;
  current = null;
  for (const listener of listeners) listener(null);
}

/** Calls `listener` with the current toast now and with every change; returns the unsubscribe. */
export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  listener(current);
  return () => listeners.delete(listener);
}
