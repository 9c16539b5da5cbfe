// Deletes the forms' files past their retention (content/site.yaml), as the
// privacy notices promise: the contact form's images after
// contact.retention_months, applicants' CVs after careers.retention_months. The
// tables delete their rows themselves (pg_cron jobs), but Supabase lets no SQL
// delete a stored file, so the files go through the Storage API, with the
// service key. `.github/workflows/retention.yml` runs it every night.
//
//   SUPABASE_URL=https://<ref>.supabase.co SUPABASE_SERVICE_ROLE_KEY=… \
//     node deploy/delete-old-attachments.mjs --site content/site.yaml

import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { callApi } from "./api.mjs";
import { APPLICATIONS, CONTACT_ATTACHMENTS, CONTACT_MESSAGES, JOB_APPLICATIONS } from "../islands/lib/forms.generated.ts";

export const BUCKET = CONTACT_ATTACHMENTS.name;
const PAGE = 1000;

/**
 * Each bucket whose files go with their table's rows: its table (whose
 * retention setting counts), the folders its files are in (null: every folder
 * at its top, one per job posting), and what its files are called.
 */
export const HOLDINGS = [
  { bucket: CONTACT_ATTACHMENTS.name, table: CONTACT_MESSAGES, folders: ["public"], files: ["image", "images"] },
  { bucket: APPLICATIONS.name, table: JOB_APPLICATIONS, folders: null, files: ["CV", "CVs"] },
];

/** The retention setting of `table` (contact.retention_months) in a site.yaml's text, or its default. */
export function retentionMonths(siteYaml, table = CONTACT_MESSAGES) {
  const setting = table.retention.setting;
  const [section, key] = setting.split(".");
  const months = parse(siteYaml)?.[section]?.[key] ?? table.retention.defaultMonths;
  if (!Number.isInteger(months) || months < 1 || months > 120) {
    throw new Error(`${setting} must be a number of months from 1 to 120, not ${JSON.stringify(months)}`);
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

/** A request to the Storage API (`<url>/storage/v1<path>`). */
const call = (url, key, method, path, body) => callApi(`${url}/storage/v1`, key, method, path, body);

const list = (base, key, bucket, prefix, offset = 0) =>
  call(base, key, "POST", `/object/list/${bucket}`, { prefix, limit: PAGE, offset, sortBy: { column: "created_at", order: "asc" } });

/** The folders at the top of `bucket`. */
async function topFolders(base, key, bucket) {
  const folders = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await list(base, key, bucket, "", offset);
    folders.push(...page.filter((o) => !o.id).map((o) => o.name));
    if (page.length < PAGE) return folders;
  }
}

/**
 * Deletes every file of `bucket`'s `folders` (every top folder when null)
 * stored before `before`, oldest first, a thousand at a time. Resolves to the
 * keys deleted.
 */
export async function deleteOldFiles({ url, key, bucket = BUCKET, folders = ["public"], before }) {
  const base = url.replace(/\/+$/, "");
  const deleted = [];
  for (const folder of folders ?? (await topFolders(base, key, bucket))) {
    for (;;) {
      const page = await list(base, key, bucket, folder);
      // Folders come back with no id; the rest are files, oldest first.
      const old = page.filter((o) => o.id && new Date(o.created_at) < before).map((o) => `${folder}/${o.name}`);
      if (old.length === 0) break;
      const removed = await call(base, key, "DELETE", `/object/${bucket}`, { prefixes: old });
      if (removed.length === 0) throw new Error(`the Storage API deleted none of ${old.length} files it listed in ${bucket}`);
      deleted.push(...removed.map((o) => o.name));
    }
  }
  return deleted;
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
    const site = readFileSync(sitePath, "utf8");
    for (const { bucket, table, folders, files } of HOLDINGS) {
      const months = retentionMonths(site, table);
      const before = cutoff(Date.now(), months);
      const deleted = await deleteOldFiles({ url, key, bucket, folders, before });
      console.log(`Deleted ${deleted.length} ${files[deleted.length === 1 ? 0 : 1]} of ${bucket} stored before ${before.toISOString()} (${months} months).`);
    }
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}
