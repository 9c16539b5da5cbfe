// PostgREST's insert, on a connection to a real PostgreSQL: what PostgREST (v12)
// does with `POST /rest/v1/<table>` for the anon key, so the tests can put the
// same request to the database with the migration applied and to `site serve`.
// PostgREST itself is not installable here (no Debian package, no release
// download), so its two parts that decide no row are written out:
//   - the request: one transaction with `set local role anon` and the request's
//     headers in `request.headers` (the trigger reads X-Forwarded-For there), and
//     the statement PostgREST builds (`json_to_recordset` over the body, the
//     body's keys as the column list, `RETURNING 1` unless a representation is
//     asked for); a key that is no column is its PGRST204 before any SQL;
//   - the answer: its table of SQLSTATE to HTTP status (Error.hs), and the body
//     `{code, details, hint, message}` from the PostgreSQL error.
// Everything about the row itself is decided by PostgreSQL.

/** The HTTP status PostgREST gives a PostgreSQL error (the anon key carries a role). */
export function statusOf(code) {
  if (code === "42501") return 403;
  if (code.startsWith("PT")) return Number(code.slice(2)) || 500;
  if (code === "23505" || code === "23503") return 409;
  if (code === "42P01") return 404;
  if (/^(08|53|54|57|58|F0|HV|P0|XX)/.test(code) && code !== "P0001") return code.startsWith("53") ? 503 : 500;
  return 400;
}

function refusal(status, code, message, details = null, hint = null) {
  return { status, body: { code, details, hint, message } };
}

/** The table's columns and their types, as PostgREST's schema cache has them. */
export async function columnsOf(db, table) {
  const { rows } = await db.query(
    "select column_name, data_type from information_schema.columns where table_schema = 'public' and table_name = $1",
    [table],
  );
  return new Map(rows.map((r) => [r.column_name, r.data_type === "timestamp with time zone" ? "timestamptz" : r.data_type]));
}

const quote = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * `POST /rest/v1/<table>` with `body` (a string) and `headers`: resolves to
 * `{ status, body }` as PostgREST answers, `body` null for a 201.
 */
export async function insert(db, table, columns, body, headers = {}) {
  let json;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return refusal(400, "PGRST102", `Empty or invalid json: ${error.message}`);
  }
  const objects = Array.isArray(json) ? json : [json];
  const keys = [...new Set(Object.keys(objects[0] ?? {}))].sort();
  for (const key of keys) {
    if (!columns.has(key)) return refusal(400, "PGRST204", `Could not find the '${key}' column of '${table}' in the schema cache`);
  }
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const representation = /return=representation/.test(lower.prefer ?? "");
  const list = keys.map(quote).join(", ");
  const sql =
    `with pgrst_source as (insert into "public".${quote(table)}(${list}) ` +
    `select ${keys.map((k) => `pgrst_body.${quote(k)}`).join(", ")} ` +
    `from (select $1::json as json_data) pgrst_payload, ` +
    `lateral (select case when json_typeof(pgrst_payload.json_data) = 'array' then pgrst_payload.json_data ` +
    `else json_build_array(pgrst_payload.json_data) end as val) pgrst_uniform_json, ` +
    `lateral (select * from json_to_recordset(pgrst_uniform_json.val) as _(${keys.map((k) => `${quote(k)} ${columns.get(k)}`).join(", ")})) pgrst_body ` +
    `returning ${representation ? `"public".${quote(table)}.*` : "1"}) select count(*) from pgrst_source`;
  return asAnon(db, { "request.headers": JSON.stringify(lower), "request.method": "POST" }, async () => {
    await db.query(sql, [body]);
    return { status: 201, body: null };
  });
}

/** `GET /rest/v1/<table>?select=*` as the anon role. */
export async function select(db, table) {
  return asAnon(db, { "request.method": "GET" }, async () => {
    const { rows } = await db.query(`select * from "public".${quote(table)}`);
    return { status: 200, body: rows };
  });
}

/**
 * Runs `work` in one transaction as `anon` with PostgREST's request settings,
 * committed when it succeeds; a PostgreSQL error becomes PostgREST's answer.
 */
async function asAnon(db, settings, work) {
  await db.query("begin");
  try {
    await db.query("set local role anon");
    for (const [name, value] of Object.entries(settings)) {
      await db.query("select set_config($1, $2, true)", [name, value]);
    }
    const answer = await work();
    await db.query("commit");
    return answer;
  } catch (error) {
    await db.query("rollback");
    if (!error.code) throw error;
    return refusal(statusOf(error.code), error.code, error.message, error.detail ?? null, error.hint ?? null);
  }
}
