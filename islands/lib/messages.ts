// Delivery of a contact message to the `contact_messages` table of the Supabase
// project (`contact.messages: supabase`), over PostgREST's plain HTTP: one POST,
// no client library. The row's rules are the table's (generator/src/forms/).
// Each row carries its send's key (sends.ts), so a repeat is stored once.

import { RETRY_AFTER_MS, type Fields } from "./contact.ts";
import { CONTACT_MESSAGES } from "./forms.generated.ts";

/** Where messages go: the browser's console only, or the Supabase table. */
export type MessagesMode = "console" | "supabase";

/** The fewest milliseconds from the page's start to a message the table accepts. */
export const MIN_FILL_MS = CONTACT_MESSAGES.minFillMs;

export type MessageRow = {
  name: string;
  email: string;
  phone: string;
  company: string;
  subject: string;
  message: string;
  privacy: boolean;
  attachment_key: string | null;
  attachment_url: string | null;
  page: string;
  fill_ms: number;
  website: string;
  send_key: string;
};

/** The row the form inserts: the fields trimmed, as they were validated. */
export function messageRow(
  fields: Fields,
  extra: { attachment: { key: string; url: string } | null; page: string; fillMs: number; trap: string; sendKey: string },
): MessageRow {
  return {
    name: fields.name.trim(),
    email: fields.email.trim(),
    phone: fields.phone.trim(),
    company: fields.company.trim(),
    subject: fields.subject.trim(),
    message: fields.message.trim(),
    privacy: fields.agree,
    attachment_key: extra.attachment?.key ?? null,
    attachment_url: extra.attachment?.url ?? null,
    page: extra.page,
    fill_ms: Math.max(0, Math.round(extra.fillMs)),
    website: extra.trap,
    send_key: extra.sendKey,
  };
}

/** A table's address: the configured project URL, or this site's own origin. */
export function tableEndpoint(configuredUrl: string, origin: string, table: string): string {
  const base = configuredUrl.trim() || origin;
  return `${base.replace(/\/+$/, "")}/rest/v1/${table}`;
}

/** What a send that failed on the network, twice, is told. */
export const CONNECTION_FAILED = "The message could not be sent: the connection failed. Please check it and try again.";

/** The messages' table's address. */
export function messagesEndpoint(configuredUrl: string, origin: string): string {
  return tableEndpoint(configuredUrl, origin, CONTACT_MESSAGES.table);
}

/** How long to wait before sending, so a quick visitor is not taken for a script. */
export function waitBeforeSending(elapsedMs: number): number {
  return Math.max(0, MIN_FILL_MS - elapsedMs + 50);
}

/** PostgREST's and the gateway's refusals carry `message`; anything else its status. */
export function refusalMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string" && parsed.message) return parsed.message;
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return `The message could not be delivered (HTTP ${status}). Please try again.`;
}

/** Inserts a contact message; see insertRow. */
export function insertMessage(
  config: { url: string; anonKey: string },
  row: MessageRow,
  origin: string,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  return insertRow(config, CONTACT_MESSAGES.table, row, origin, fetchImpl);
}

/**
 * Inserts `row` into `table` with the anon key. `return=minimal`: the public
 * may not read the table, not even its own row. A row whose send key is
 * already stored is a repeat, which the table skips and answers as a success.
 * Throws an Error with the server's message.
 *
 * When the network fails (no answer at all, not a refusal), it sends once more
 * by itself, with the same key, after RETRY_AFTER_MS: a lost answer or a
 * dropped connection is most often a moment's (a tunnel, a change of network),
 * and the key makes the repeat safe. Only once: a second failure in a row means
 * the connection is down, and the visitor is better told now, with every value
 * kept, than left waiting; their own retry is as safe.
 */
export async function insertRow(
  config: { url: string; anonKey: string },
  table: string,
  row: object,
  origin: string,
  fetchImpl: typeof fetch = fetch,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  const send = () =>
    fetchImpl(tableEndpoint(config.url, origin, table), {
      method: "POST",
      headers: {
        apikey: config.anonKey,
        Authorization: `Bearer ${config.anonKey}`,
        "Content-Type": "application/json",
        Prefer: "return=minimal",
      },
      body: JSON.stringify(row),
    });
  let response: Response;
  try {
    response = await send();
  } catch {
    await wait(RETRY_AFTER_MS);
    try {
      response = await send();
    } catch {
      throw new Error(CONNECTION_FAILED);
    }
  }
  // Read whole either way, so the connection is free again.
  const text = await response.text();
  if (!response.ok) throw new Error(refusalMessage(response.status, text));
}
