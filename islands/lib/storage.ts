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

/** Uploads `file` at `public/<now>_<name>` without overwriting; resolves to its key and public URL. */
export async function uploadAttachment(config: StorageConfig, file: File, now: number = Date.now()): Promise<{ key: string; url: string }> {
  const { StorageClient } = await import("@supabase/storage-js");
  const client = new StorageClient(storageEndpoint(config.url, window.location.origin), {
    apikey: config.anonKey,
    Authorization: `Bearer ${config.anonKey}`,
  });
  const bucket = client.from(config.bucket);
  const { data, error } = await bucket.upload(storageKey(file.name, now), file, {
    cacheControl: CACHE_CONTROL_SECONDS,
    upsert: false,
  });
  if (error) throw error;
  return { key: data.path, url: bucket.getPublicUrl(data.path).data.publicUrl };
}
