// Checks, before a deploy, that the storage the contact form will upload to has
// its bucket: a public read of a key that does not exist answers NoSuchKey when
// the bucket exists and NoSuchBucket when it does not (or is not public). It needs
// no credentials and writes nothing.
//
//   node deploy/check-storage.mjs https://<project-ref>.supabase.co contact-attachments

/** Resolves to null when the bucket exists and is public, else to why not. */
export async function bucketProblem(storageUrl, bucket) {
  const base = storageUrl.replace(/\/+$/, "");
  const probe = `${base}/storage/v1/object/public/${encodeURIComponent(bucket)}/public/site-deploy-check`;
  let response;
  try {
    response = await fetch(probe, { redirect: "manual" });
  } catch (error) {
    return `${base} cannot be reached: ${error.cause?.message ?? error.message}`;
  }
  const text = await response.text();
  let body = {};
  try {
    body = JSON.parse(text);
  } catch {
    return `${base} did not answer as Supabase Storage does (HTTP ${response.status}: ${text.slice(0, 120)})`;
  }
  if (body.code === "NoSuchKey" || body.error === "not_found") return null;
  if (body.code === "NoSuchBucket") {
    return `the bucket ${bucket} does not exist in ${base}, or is not public: apply supabase/migrations (docs/deploy.md)`;
  }
  return `${base} answered the probe with HTTP ${response.status}: ${text.slice(0, 200)}`;
}

if (import.meta.main) {
  const [url, bucket = "contact-attachments"] = process.argv.slice(2);
  if (!url) {
    console.error("usage: node deploy/check-storage.mjs STORAGE_URL [BUCKET]");
    process.exit(2);
  }
  const problem = await bucketProblem(url, bucket);
  if (problem) {
    console.error(`error: ${problem}`);
    process.exit(1);
  }
  console.log(`The bucket ${bucket} exists in ${url} and is public.`);
}
