// Uploads the contact form's attachment with @supabase/storage-js, which is
// imported only when a form with a file is sent.

import { CACHE_CONTROL_SECONDS, storageEndpoint, storageKey } from "./contact.ts";

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

/** A bucket of the storage API, with the anon key. */
async function bucketOf(config: StorageConfig) {
  const { StorageClient } = await import("@supabase/storage-js");
  const client = new StorageClient(storageEndpoint(config.url, window.location.origin), {
    apikey: config.anonKey,
    Authorization: `Bearer ${config.anonKey}`,
  });
  return client.from(config.bucket);
}

/** Uploads `file` at `public/<now>_<name>` without overwriting; resolves to its key and public URL. */
export async function uploadAttachment(config: StorageConfig, file: File, now: number = Date.now()): Promise<{ key: string; url: string }> {
  const bucket = await bucketOf(config);
  const { data, error } = await bucket.upload(storageKey(file.name, now), file, {
    cacheControl: CACHE_CONTROL_SECONDS,
    upsert: false,
  });
  if (error) throw error;
  return { key: data.path, url: bucket.getPublicUrl(data.path).data.publicUrl };
}

/**
 * Uploads `file` at `key` of a private bucket, as `contentType` (what its bytes
 * are, not what the browser guessed), without overwriting; resolves to the key.
 */
export async function uploadPrivate(config: StorageConfig, key: string, file: Blob, contentType: string): Promise<string> {
  const bucket = await bucketOf(config);
  // storage-js sends a Blob as a form part of the Blob's own type.
  const typed = new Blob([file], { type: contentType });
  const { data, error } = await bucket.upload(key, typed, { contentType, cacheControl: "0", upsert: false });
  if (error) throw error;
  return data.path;
}
