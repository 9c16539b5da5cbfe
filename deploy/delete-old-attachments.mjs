// Deletes the contact form's images that are older than contact.retention_months
// (content/site.yaml), as the privacy policy promises: the messages' table
// deletes its rows itself (a pg_cron job), but Supabase lets no SQL delete a
// stored file, so the images go through the Storage API, with the service key.
// `.github/workflows/retention.yml` runs it every night.
//
//   SUPABASE_URL=https://<ref>.supabase.co SUPABASE_SERVICE_ROLE_KEY=… \
//     node deploy/delete-old-attachments.mjs --site content/site.yaml

import { readFileSync } from "node:fs";
import { parse } from "yaml";

export const BUCKET = "contact-attachments";
const FOLDER = "public";
const PAGE = 1000;

/** `contact.retention_months` of a site.yaml's text (12 when absent). */
export function retentionMonths(siteYaml) {
  const months = parse(siteYaml)?.contact?.retention_months ?? 12;
  if (!Number.isInteger(months) || months < 1 || months > 120) {
    throw new Error(`contact.retention_months must be a number of months from 1 to 120, not ${JSON.stringify(months)}`);
  }
  return months;
}

/** The moment `months` calendar months before `now`, as PostgreSQL's `now() - interval 'N months'`. */
export function cutoff(now, months) {
  const date = new Date(now);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() - months);
  // The same day of that month, or its last day when it is shorter.
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, last));
  return date;
}

async function call(url, key, method, path, body) {
  const response = await fetch(`${url}/storage/v1${path}`, {
    method,
    headers: { apikey: key, Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text.slice(0, 200);
    try {
      message = JSON.parse(text).message ?? message;
    } catch {
      // Not JSON: the text itself.
    }
    throw new Error(`${method} ${path} answered HTTP ${response.status}: ${message}`);
  }
  return JSON.parse(text);
}

/**
 * Deletes every image of the bucket's public folder stored before `before`,
 * oldest first, a thousand at a time. Resolves to the keys deleted.
 */
export async function deleteOldAttachments({ url, key, before }) {
  const base = url.replace(/\/+$/, "");
  const deleted = [];
  for (;;) {
    const page = await call(base, key, "POST", `/object/list/${BUCKET}`, {
      prefix: FOLDER,
      limit: PAGE,
      offset: 0,
      sortBy: { column: "created_at", order: "asc" },
    });
    // Folders come back with no id; the rest are files, oldest first.
    const old = page.filter((o) => o.id && new Date(o.created_at) < before).map((o) => `${FOLDER}/${o.name}`);
    if (old.length === 0) return deleted;
    const removed = await call(base, key, "DELETE", `/object/${BUCKET}`, { prefixes: old });
    if (removed.length === 0) throw new Error(`the Storage API deleted none of ${old.length} images it listed`);
    deleted.push(...removed.map((o) => o.name));
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf("--site");
  const sitePath = at > 0 ? process.argv[at + 1] : "content/site.yaml";
  const { SUPABASE_URL: url, SUPABASE_SERVICE_ROLE_KEY: key } = process.env;
  if (!url || !key) {
    console.error("error: SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY must be set (docs/deploy.md, \"Contact messages\")");
    process.exit(2);
  }
  try {
    const months = retentionMonths(readFileSync(sitePath, "utf8"));
    const before = cutoff(Date.now(), months);
    const deleted = await deleteOldAttachments({ url, key, before });
    console.log(`Deleted ${deleted.length} image${deleted.length === 1 ? "" : "s"} of ${BUCKET} stored before ${before.toISOString()} (${months} months).`);
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}
