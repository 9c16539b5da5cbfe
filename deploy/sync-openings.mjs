// Tells the applications' table which job postings take applications, and
// until when: the rows of `public.job_openings`, from `site applications
// --openings`. Each posting is written (inserted, or its row updated); a
// posting no longer on the site that was still open is closed now, so a role
// taken down early stops taking applications at once. With the service key,
// through PostgREST; the public can neither read nor write the table.
// `.github/workflows/site.yml` runs it after each deploy of main.
//
//   site applications --openings > openings.json
//   SUPABASE_URL=https://<ref>.supabase.co SUPABASE_SERVICE_ROLE_KEY=… \
//     node deploy/sync-openings.mjs openings.json

import { readFileSync } from "node:fs";
import { callApi } from "./api.mjs";

const TABLE = "job_openings";

/** A request to PostgREST (`<url>/rest/v1/<path>`). */
async function call(url, key, method, path, body, prefer) {
  try {
    return await callApi(url, key, method, `/rest/v1/${path}`, body, { Prefer: prefer });
  } catch (error) {
    if (error.status === 404) error.message += " (apply supabase/migrations/20261125000000_job_applications.sql: docs/deploy.md)";
    throw error;
  }
}

/** A PostgREST list of values, each quoted. */
const list = (values) => `(${values.map((v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")})`;

/**
 * Writes `openings` to the table and closes, as of `now`, every open posting
 * not among them. Resolves to `{ written, closed }`: the ids of each.
 */
export async function syncOpenings({ url, key, openings, now = new Date() }) {
  const base = url.replace(/\/+$/, "");
  for (const o of openings) {
    if (!/^[a-z0-9][a-z0-9-]{0,99}$/.test(o.job_id ?? "") || Number.isNaN(Date.parse(o.closes_at))) {
      throw new Error(`not a posting's opening: ${JSON.stringify(o)}`);
    }
  }
  if (openings.length > 0) {
    await call(base, key, "POST", `${TABLE}?on_conflict=job_id`, openings, "resolution=merge-duplicates,return=minimal");
  }
  const ids = openings.map((o) => o.job_id);
  const others = ids.length ? `job_id=not.in.${encodeURIComponent(list(ids))}&` : "";
  const closed = await call(base, key, "PATCH", `${TABLE}?${others}closes_at=gt.${encodeURIComponent(now.toISOString())}&select=job_id`, { closes_at: now.toISOString() }, "return=representation");
  return { written: ids, closed: closed.map((c) => c.job_id) };
}

if (import.meta.main) {
  const file = process.argv[2];
  const { SUPABASE_URL: url, SUPABASE_SERVICE_ROLE_KEY: key } = process.env;
  if (!file || !url || !key) {
    console.error("usage: SUPABASE_URL=… SUPABASE_SERVICE_ROLE_KEY=… node deploy/sync-openings.mjs OPENINGS.json\n(the JSON of `site applications --openings`; docs/deploy.md, \"Job applications\")");
    process.exit(2);
  }
  try {
    const openings = JSON.parse(readFileSync(file, "utf8"));
    const { written, closed } = await syncOpenings({ url, key, openings });
    const open = openings.filter((o) => Date.parse(o.closes_at) > Date.now()).length;
    console.log(`Wrote ${written.length} posting${written.length === 1 ? "" : "s"} to ${TABLE} (${open} open)${closed.length ? `; closed ${closed.join(", ")}, no longer on the site` : ""}.`);
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}
