// One key for each message a visitor means to send (the forms' `send_key`
// column). A send whose answer is lost may have reached the table; the visitor
// who presses Send again sends the same key, and the table keeps the first
// (generator/src/forms/: `ON CONFLICT (send_key) DO NOTHING`, counted once by
// the rate limit). The key belongs to the words it was first sent with: when
// the visitor changes them after a failure, it is a new message and gets a new
// key (the table refuses a key sent again with other words). It is kept in the
// tab's session storage with the form's name, so a reload that keeps the
// form's values keeps it too, and dropped after a success.

/**
 * A message being sent: its key, the words it was first sent with, when (ms),
 * and the key of the file it stored, once stored.
 */
export type Send = { key: string; words: string; at: number; object?: string };

/** Where a form keeps its send: one per table and page. */
export function sendName(table: string, page: string): string {
  return `site:send:${table}:${page}`;
}

/**
 * The send for `words`: the kept one while its words are the same, else a new
 * one made now.
 */
export function sendFor(kept: Send | null, words: string, now: number, newKey: () => string): Send {
  if (kept && kept.words === words) return kept;
  return { key: newKey(), words, at: now };
}

/**
 * The words of a form, as one short text to compare: a hash of its values and
 * its file, if any, so that what the visitor wrote is not kept in the tab's
 * storage (the browser keeps the fields' values itself).
 */
export function wordsOf(values: object, file: { name: string; size: number; lastModified: number } | null): string {
  const text = JSON.stringify({ values, file: file && { name: file.name, size: file.size, lastModified: file.lastModified } });
  // cyrb53: 53 bits, enough that two versions of one visitor's words never meet.
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** The storage a send is kept in: the tab's session storage where the browser allows it. */
export type Keeping = Pick<Storage, "getItem" | "setItem" | "removeItem">;

function isSend(value: unknown): value is Send {
  const v = value as Send;
  return (
    !!v &&
    typeof v.key === "string" &&
    typeof v.words === "string" &&
    typeof v.at === "number" &&
    (v.object === undefined || typeof v.object === "string")
  );
}

/** The send kept under `name`, if any (nothing when storage is refused or holds something else). */
export function keptSend(storage: Keeping | null, name: string): Send | null {
  try {
    const value: unknown = JSON.parse(storage?.getItem(name) ?? "null");
    return isSend(value) ? value : null;
  } catch {
    return null;
  }
}

/** Keeps `send` under `name`; a browser that refuses storage keeps it for the page's life only. */
export function keepSend(storage: Keeping | null, name: string, send: Send): void {
  try {
    storage?.setItem(name, JSON.stringify(send));
  } catch {
    // Private mode or a full quota: the form still holds it.
  }
}

/** Drops the send kept under `name`: after a success, the next message is a new one. */
export function dropSend(storage: Keeping | null, name: string): void {
  try {
    storage?.removeItem(name);
  } catch {
    // As above.
  }
}

/** The tab's session storage, or null where reading it throws (some privacy settings). */
export function sessionKeeping(): Keeping | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
