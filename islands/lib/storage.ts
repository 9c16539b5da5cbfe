// Uploads the contact form's attachment with @supabase/storage-js, which is
// imported only when a form with a file is sent.

import { CACHE_CONTROL_SECONDS, RETRY_AFTER_MS, storageEndpoint, storageKey } from "./contact.ts";
import type { Send } from "./sends.ts";

export type StorageConfig = { url: string; anonKey: string; bucket: string };

/** Whether a storage client can be made from `config`, as storage-js would check it. */
export function checkStorageConfig(config: StorageConfig, origin: string): { ok: true; endpoint: string } | { ok: false; reason: string } {
  const endpoint = storageEndpoint(config.url, origin);
  try {
    new URL(endpoint);
  } catch {
    return { ok: false, reason: `the storage URL ${JSON.stringify(config.url)} is not a valid URL` };
  }
  if (!config.bucket) return { ok: false, reason: "no storage bucket is configured" };
  return { ok: true, endpoint };
}

/** Starts loading the storage client, so that an upload about to come finds it loaded. */
export function warmStorage(): void {
  void import("@supabase/storage-js");
}

/** A bucket of the storage API, with the anon key. */
async function bucketOf(config: StorageConfig) {
  const { StorageClient } = await import("@supabase/storage-js");
  const client = new StorageClient(storageEndpoint(config.url, window.location.origin), {
    apikey: config.anonKey,
    Authorization: `Bearer ${config.anonKey}`,
  });
  return client.from(config.bucket);
}

/** Whether storage-js's `error` is the storage's answer that the key is taken. */
function isDuplicate(error: unknown): boolean {
  return (error as { statusCode?: unknown })?.statusCode === "409";
}

/** Whether storage-js's `error` is a failure of the network rather than the storage's answer. */
function isNetworkFailure(error: unknown): boolean {
  return (error as { name?: unknown })?.name === "StorageUnknownError";
}

/**
 * Uploads `body` at `key` without overwriting. A key already taken is this
 * send's own earlier upload (the key holds the send's key, which no one else
 * has), whose answer was lost: it is stored, and the form goes on with it. A
 * failure of the network is tried once more, as the insert is (messages.ts).
 */
async function uploadOnce(config: StorageConfig, key: string, body: Blob, options: { contentType?: string; cacheControl: string }): Promise<void> {
  const bucket = await bucketOf(config);
  const attempt = () => bucket.upload(key, body, { ...options, upsert: false });
  let { error } = await attempt();
  if (error && isNetworkFailure(error)) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
    ({ error } = await attempt());
  }
  if (error && !isDuplicate(error)) throw error;
}

/**
 * Uploads `file` at `public/<at>_<send key>_<name>`, unless an earlier attempt
 * of the send stored it (`send.object`); resolves to its key and public URL.
 */
export async function uploadAttachment(config: StorageConfig, file: File, send: Send): Promise<{ key: string; url: string }> {
  const key = send.object ?? storageKey(file.name, send.at, send.key);
  if (!send.object) await uploadOnce(config, key, file, { cacheControl: CACHE_CONTROL_SECONDS });
  const bucket = await bucketOf(config);
  return { key, url: bucket.getPublicUrl(key).data.publicUrl };
}

/**
 * Uploads `file` at `key` of a private bucket, as `contentType` (what its bytes
 * are, not what the browser guessed), without overwriting; resolves to the key.
 */
export async function uploadPrivate(config: StorageConfig, key: string, file: Blob, contentType: string): Promise<string> {
  // storage-js sends a Blob as a form part of the Blob's own type.
  const typed = new Blob([file], { type: contentType });
  await uploadOnce(config, key, typed, { contentType, cacheControl: "0" });
  return key;
}
