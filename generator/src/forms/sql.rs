//! A form's table as a Supabase migration: the table, what the public may
//! write, the guards, the spam measures and the retention job. Each migration
//! can be applied any number of times.

use super::postgres::{
    rate_limit_message, sql_text, ADDRESS_KEY, EMAIL_KEY, REUSED_KEY_CODE, REUSED_KEY_MESSAGE,
};
use super::table::{send_key_index, Table, RATE_LIMIT_CODE, SEND_KEY};
use crate::storage::policy::{bucket_sql, BucketPolicy};

/// The migration of `table`, keeping rows `retention_months`, after the buckets
/// its rows' files go to.
pub fn migration_sql(table: &Table, retention_months: u32, buckets: &[&BucketPolicy]) -> String {
    let name = table.name;
    let rows = table.rows;
    let mut sql = format!(
        "-- {about}: the table, what the public may write, the spam\n\
         -- measures and how long {rows} are kept. Rendered from generator/src/forms/,\n\
         -- by whose rules `site serve`'s built-in backend decides too, and from\n\
         -- {setting} in content/site.yaml ({retention_months}); after changing\n\
         -- either, run\n\
         --     site forms --write\n\
         -- It can be applied any number of times. It needs pg_cron, which every\n\
         -- Supabase project can enable (Database > Extensions).\n",
        about = table.about,
        setting = table.retention.setting,
    );
    for bucket in buckets {
        sql.push_str(&bucket_sql(bucket));
    }
    sql.push_str(&format!("\ncreate table if not exists public.{name} (\n"));
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| {
            let mut line = format!("  {} {}", c.name, c.ty.sql());
            if c.name == "id" {
                line.push_str(" primary key");
            }
            if c.not_null && c.name != "id" {
                line.push_str(" not null");
            }
            if let Some(d) = c.default {
                line.push_str(&format!(" default {}", d.sql()));
            }
            line
        })
        .collect();
    sql.push_str(&columns.join(",\n"));
    sql.push_str("\n);\n");
    sql.push_str(&format!(
        "\n\
         -- A repeat of a send whose answer was lost is stored once: the form's key\n\
         -- for the message is unique, and the rate limit's trigger skips a repeat.\n\
         -- A table made before the key gets the column; its rows have none, and\n\
         -- read as before.\n\
         alter table public.{name} add column if not exists {key} {ty};\n\
         create unique index if not exists {index} on public.{name} ({key});\n\
         \n",
        key = SEND_KEY.name,
        ty = SEND_KEY.ty.sql(),
        index = send_key_index(table),
    ));
    for c in table.columns {
        if !c.doc.is_empty() {
            sql.push_str(&format!(
                "comment on column public.{name}.{} is {};\n",
                c.name,
                sql_text(c.doc)
            ));
        }
    }
    sql.push_str(
        "\n-- The form's own validation, and a bound on every field, where the database\n\
         -- enforces it whoever writes.\n",
    );
    for check in table.checks {
        sql.push_str(&format!(
            "alter table public.{name} drop constraint if exists {check};\n\
             alter table public.{name} add constraint {check} check ({rule});\n",
            check = check.name,
            rule = check.rule.sql(),
        ));
    }
    sql.push_str(&policy_sql(table));
    sql.push_str(&rate_limit_sql(table));
    for guard in table.guards {
        sql.push_str(&guard.sql(table));
    }
    sql.push_str(&retention_sql(table, retention_months));
    sql
}

/// The public's grants and the row-level security policy.
fn policy_sql(table: &Table) -> String {
    let insertable: Vec<&str> = table
        .columns
        .iter()
        .filter(|c| c.anon_insert)
        .map(|c| c.name)
        .collect();
    format!(
        "\n\
         -- The public may insert a row, naming only the form's columns, and nothing\n\
         -- else: no SELECT (so no `return=representation`, and no reading back even its\n\
         -- own row), UPDATE or DELETE. The team reads {rows} in the dashboard, as a\n\
         -- role that bypasses row-level security.\n\
         alter table public.{name} enable row level security;\n\
         revoke all on table public.{name} from anon, authenticated;\n\
         grant insert ({cols}) on table public.{name} to anon;\n\
         \n\
         -- Spam: the honeypot `{trap}` must be empty (people never see it; scripts that\n\
         -- fill every field do), and the form must have been open at least\n\
         -- {min_fill} ms (a person takes longer; a script that posts at once does not).\n\
         drop policy if exists \"{name}: public inserts\" on public.{name};\n\
         create policy \"{name}: public inserts\"\n  \
           on public.{name}\n  \
           for insert\n  \
           to anon\n  \
           with check (coalesce({trap}, '') = '' and {fill} >= {min_fill});\n",
        name = table.name,
        rows = table.rows,
        cols = insertable.join(", "),
        trap = table.spam.trap,
        fill = table.spam.fill,
        min_fill = table.spam.min_fill_ms,
    )
}

/// Who sent a row, in SQL: `sender::sender`'s rule.
const SENDER_SQL: &str = "\n\
    -- The sender is the address Cloudflare, in front of Supabase's API, saw:\n\
    -- CF-Connecting-IP, which it overwrites, else the last entry of\n\
    -- X-Forwarded-For, the one the last proxy appended (the entries before it\n\
    -- are the client's to write). An IPv6 address counts as its /64, which one\n\
    -- client holds whole. See docs/deploy.md, \"Who sent a message\".\n\
    create or replace function private.contact_sender(headers json)\n\
    returns text\n\
    language plpgsql\n\
    immutable\n\
    set search_path = ''\n\
    as $$\n\
    declare\n  \
      given text := coalesce(\n    \
        nullif(btrim(headers ->> 'cf-connecting-ip'), ''),\n    \
        nullif(btrim(substring(headers ->> 'x-forwarded-for' from '[^,]*$')), ''));\n  \
      address inet;\n\
    begin\n  \
      if given is null then\n    \
        return null;\n  \
      end if;\n  \
      begin\n    \
        address := given::inet;\n  \
      exception when others then\n    \
        return given;\n  \
      end;\n  \
      if family(address) = 6 and address << '::ffff:0:0/96'::inet then\n    \
        return host('0.0.0.0'::inet + (address - '::ffff:0.0.0.0'::inet));\n  \
      elsif family(address) = 6 then\n    \
        return host(network(set_masklen(address, 64))) || '/64';\n  \
      end if;\n  \
      return host(address);\n\
    end\n\
    $$;\n\
    revoke all on function private.contact_sender(json) from public, anon, authenticated;\n";

/// The rate limit: a count per sender and per e-mail address, by a trigger.
fn rate_limit_sql(table: &Table) -> String {
    let spam = &table.spam;
    let repeat: Vec<&str> = table.repeat_columns().map(|c| c.name).collect();
    let mut sql = format!(
        "\n\
         -- Spam: at most {limit} {rows} an hour from one sender and {limit} to one\n\
         -- e-mail address. Counted in a table the public cannot reach, by a\n\
         -- security-definer trigger; a refused row is not counted (its transaction\n\
         -- rolls back). PostgREST answers the raised PT429 with HTTP 429.\n\
         create schema if not exists private;\n\
         revoke all on schema private from public, anon, authenticated;\n",
        limit = spam.rate_limit,
        rows = table.rows,
    );
    if table.defines_sender {
        sql.push_str(SENDER_SQL);
    }
    sql.push_str(&format!(
        "create table if not exists private.{rate} (\n  \
           key_hash text not null,\n  \
           at timestamptz not null default now()\n\
         );\n\
         create index if not exists {rate}_key_at\n  \
           on private.{rate} (key_hash, at);\n\
         \n\
         create or replace function private.{name}_rate_limit()\n\
         returns trigger\n\
         language plpgsql\n\
         security definer\n\
         set search_path = ''\n\
         as $$\n\
         declare\n  \
           headers json := nullif(current_setting('request.headers', true), '')::json;\n  \
           sender text := private.contact_sender(headers);\n  \
           key text;\n  \
           hash text;\n  \
           earlier public.{name};\n\
         begin\n  \
           -- A repeat of a send, its key already in the table, is skipped (a\n  \
           -- BEFORE trigger's null inserts nothing) and answered as a success,\n  \
           -- uncounted. ON CONFLICT DO NOTHING would need the public to hold\n  \
           -- SELECT on the key; this needs no right beyond the insert. The\n  \
           -- attempts of one key are decided one at a time, so a repeat that\n  \
           -- overtakes its first attempt waits for it. A key sent again with\n  \
           -- other words is refused: a new message needs a new key.\n  \
           if new.{send_key} is not null then\n    \
             perform pg_advisory_xact_lock(hashtextextended('{send_key}:' || new.{send_key}::text, 0));\n    \
             select * into earlier from public.{name} t where t.{send_key} = new.{send_key};\n    \
             if found then\n      \
               if ({earlier}) is distinct from ({new}) then\n        \
                 raise exception using errcode = '{reused_code}', message = {reused_message};\n      \
               end if;\n      \
               return null;\n    \
             end if;\n  \
           end if;\n  \
           foreach key in array array['{address_key}' || sender, '{email_key}' || lower(new.{email})] loop\n    \
             continue when key is null;\n    \
             hash := encode(sha256(convert_to(key, 'UTF8')), 'hex');\n    \
             -- One sender's {rows} are counted one at a time.\n    \
             perform pg_advisory_xact_lock(hashtextextended(hash, 0));\n    \
             if (select count(*) from private.{rate} r\n        \
                 where r.key_hash = hash and r.at > now() - interval '{window} seconds') >= {limit} then\n      \
               raise exception using errcode = '{code}', message = case\n        \
                 when key like '{address_key}%' then {address_message}\n        \
                 else {email_message} end;\n    \
             end if;\n    \
             insert into private.{rate} (key_hash) values (hash);\n  \
           end loop;\n  \
           return new;\n\
         end\n\
         $$;\n\
         revoke all on function private.{name}_rate_limit() from public, anon, authenticated;\n\
         drop trigger if exists {name}_rate_limit on public.{name};\n\
         create trigger {name}_rate_limit\n  \
           before insert on public.{name}\n  \
           for each row execute function private.{name}_rate_limit();\n",
        name = table.name,
        rows = table.rows,
        rate = spam.rate_table,
        email = spam.email,
        limit = spam.rate_limit,
        window = spam.window_seconds,
        code = RATE_LIMIT_CODE,
        address_key = ADDRESS_KEY,
        email_key = EMAIL_KEY,
        send_key = SEND_KEY.name,
        earlier = repeat.iter().map(|c| format!("earlier.{c}")).collect::<Vec<_>>().join(", "),
        new = repeat.iter().map(|c| format!("new.{c}")).collect::<Vec<_>>().join(", "),
        reused_code = REUSED_KEY_CODE,
        reused_message = sql_text(REUSED_KEY_MESSAGE),
        address_message = sql_text(&rate_limit_message(table, true)),
        email_message = sql_text(&rate_limit_message(table, false)),
    ));
    sql
}

/// The nightly job that deletes rows past the retention, and old counts.
fn retention_sql(table: &Table, months: u32) -> String {
    let r = &table.retention;
    format!(
        "\n\
         -- Retention: every night, {rows} older than {months} months are deleted\n\
         -- ({setting} in content/site.yaml; {notice} says so),\n\
         -- and the rate limit's counts older than a day. cron.schedule replaces the job\n\
         -- of the same name. {files}\n\
         create extension if not exists pg_cron with schema pg_catalog;\n\
         select cron.schedule(\n  \
           '{job}',\n  \
           '17 3 * * *',\n  \
           $$delete from public.{name} where {since} < now() - interval '{months} months';\n    \
           delete from private.{rate} where at < now() - interval '1 day'$$\n\
         );\n",
        rows = table.rows,
        setting = r.setting,
        notice = r.notice,
        files = r.files,
        job = r.job,
        name = table.name,
        since = r.since,
        rate = table.spam.rate_table,
    )
}
