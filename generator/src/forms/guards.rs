//! The guards a form's table keeps in BEFORE INSERT triggers, beyond what a
//! CHECK constraint can say: each as the migration's SQL and as `site serve`
//! decides it, side by side.

use super::applications;
use super::postgres::{sql_text, Refusal, Value};
use super::table::{Guard, Table};
use crate::content::openings::Opening;
use crate::storage::policy::BucketPolicy;

/// What the guards look up outside the row.
pub struct World<'a> {
    /// The project's URL, as Vault's `project_url` is to the migration.
    pub project_url: &'a str,
    /// The object stored at a key of a bucket: its size and type.
    pub stored: &'a dyn Fn(&BucketPolicy, &str) -> Option<Stored>,
    /// The row of `public.job_openings` for a posting, if any.
    pub opening: &'a dyn Fn(&str) -> Option<Opening>,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// What `storage.objects.metadata` says of a stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub size: u64,
    pub mimetype: String,
}

/// What a row whose attachment URL is not [`public_url`] is told.
pub const PUBLIC_URL_MESSAGE: &str =
    "The image's address is not this project's storage address for its key.";
/// What a row naming an object that is not stored is told.
pub const NOT_STORED_MESSAGE: &str = "The CV is not in storage: upload it first.";
/// What a row naming a stored object the bucket should not have taken is told:
/// an empty file, or one whose size or type the storage did not check (an
/// upload without a length is not measured by it).
pub const NOT_ACCEPTED_MESSAGE: &str =
    "The CV stored is empty, too large or not a PDF or Word document.";
/// The project's URL as Vault may hold it: https, or plain http on loopback
/// (the Supabase CLI's local stack, http://127.0.0.1:54321).
pub const PROJECT_URL_PATTERN: &str =
    "^(https://[A-Za-z0-9.-]+|http://(127\\.0\\.0\\.1|localhost))(:[0-9]{1,5})?$";

/// The one URL an attachment may have: the project's public URL of exactly its
/// key. Anything else (another host, `http`, another key) could be a link the
/// team opens from the dashboard.
pub fn public_url(project_url: &str, bucket: &BucketPolicy, key: &str) -> String {
    format!(
        "{}/storage/v1/object/public/{}/{key}",
        project_url.trim_end_matches('/'),
        bucket.name
    )
}

impl Guard {
    /// The trigger's verdict on a row; without the values it looks at, the
    /// constraints decide.
    pub fn refusal(&self, get: &dyn Fn(&str) -> Value, world: &World) -> Option<Refusal> {
        match self {
            Guard::PublicUrl { key, url, bucket } => match (get(key), get(url)) {
                (Value::Text(key), Value::Text(url))
                    if url != public_url(world.project_url, bucket, &key) =>
                {
                    Some(Refusal::new("23514", PUBLIC_URL_MESSAGE.into()))
                }
                _ => None,
            },
            Guard::StoredObject { key, bucket } => {
                let Value::Text(key) = get(key) else {
                    return None;
                };
                match (world.stored)(bucket, &key) {
                    None => Some(Refusal::new("23503", NOT_STORED_MESSAGE.into())),
                    Some(o)
                        if o.size == 0
                            || o.size > bucket.file_size_limit
                            || !bucket.allowed_mime_types.contains(&o.mimetype.as_str()) =>
                    {
                        Some(Refusal::new("23514", NOT_ACCEPTED_MESSAGE.into()))
                    }
                    Some(_) => None,
                }
            }
            Guard::OpenPosting { job, country } => {
                let Value::Text(job) = get(job) else {
                    return None;
                };
                let Some(opening) = (world.opening)(&job) else {
                    return Some(Refusal::new(
                        "PT404",
                        applications::NO_POSTING_MESSAGE.into(),
                    ));
                };
                if opening.closes_at <= world.now {
                    return Some(Refusal::new("PT410", applications::CLOSED_MESSAGE.into()));
                }
                match get(country) {
                    Value::Text(c)
                        if !opening.applicants_from.is_empty()
                            && !opening.applicants_from.contains(&c) =>
                    {
                        Some(Refusal::new(
                            "23514",
                            applications::country_message(&opening.applicants_from),
                        ))
                    }
                    _ => None,
                }
            }
        }
    }

    /// The migration's SQL for the guard on `table`: its function and trigger.
    pub fn sql(&self, table: &Table) -> String {
        let name = table.name;
        let trigger = format!("{name}_{}", self.suffix());
        let (comment, helpers, body) = match self {
            Guard::PublicUrl { key, url, bucket } => (
                "-- An image's URL must be the project's own public URL of exactly its key:\n\
                 -- another host, http, or another key's URL could be a link the team opens\n\
                 -- from the dashboard. The project's URL is not known to this migration: it\n\
                 -- is kept in Vault as the secret `project_url` (docs/deploy.md), which must\n\
                 -- be https (or http on loopback, the local stack). Without it, a message\n\
                 -- with an image is refused with a hint, not stored unchecked.\n"
                    .to_string(),
                format!(
                    "create or replace function private.contact_attachment_url(key text)\n\
                     returns text\n\
                     language plpgsql\n\
                     stable\n\
                     security definer\n\
                     set search_path = ''\n\
                     as $$\n\
                     declare\n  \
                       project text;\n\
                     begin\n  \
                       select rtrim(btrim(s.decrypted_secret), '/') into project\n    \
                         from vault.decrypted_secrets s where s.name = 'project_url';\n  \
                       if project is null or project !~ {project_pattern} then\n    \
                         raise exception using errcode = 'PT500',\n      \
                           message = 'The project''s URL is not set in Vault (or is not https), so the image''s address cannot be checked.',\n      \
                           hint = 'Once, in the SQL Editor: select vault.create_secret(''https://<project-ref>.supabase.co'', ''project_url''); see docs/deploy.md.';\n  \
                       end if;\n  \
                       return project || '/storage/v1/object/public/{bucket}/' || key;\n\
                     end\n\
                     $$;\n\
                     revoke all on function private.contact_attachment_url(text) from public, anon, authenticated;\n\
                     \n",
                    project_pattern = sql_text(PROJECT_URL_PATTERN),
                    bucket = bucket.name,
                ),
                format!(
                    "begin\n  \
                       if new.{key} is not null and new.{url} is not null\n     \
                          and new.{url} is distinct from private.contact_attachment_url(new.{key}) then\n    \
                         raise exception using errcode = '23514', message = {message};\n  \
                       end if;\n  \
                       return new;\n\
                     end\n",
                    message = sql_text(PUBLIC_URL_MESSAGE),
                ),
            ),
            Guard::StoredObject { key, bucket } => (
                format!(
                    "-- A row names its file by key: the object must be in the {bucket} bucket,\n\
                     -- uploaded before the row (the form uploads first), and be what the\n\
                     -- bucket takes by the storage's own record of it: not empty, within\n\
                     -- its size, of its types (the storage measures no upload sent without\n\
                     -- a length). {name}_cv_folder_check keeps it in its own posting's folder.\n",
                    bucket = bucket.name,
                ),
                String::new(),
                format!(
                    "declare\n  \
                       size bigint;\n  \
                       mimetype text;\n\
                     begin\n  \
                       if new.{key} is null then\n    \
                         return new;\n  \
                       end if;\n  \
                       select (o.metadata ->> 'size')::bigint, o.metadata ->> 'mimetype' into size, mimetype\n    \
                         from storage.objects o where o.bucket_id = {bucket} and o.name = new.{key};\n  \
                       if not found then\n    \
                         raise exception using errcode = '23503', message = {missing};\n  \
                       end if;\n  \
                       if coalesce(size, 0) not between 1 and {limit} or mimetype is null\n     \
                          or not (mimetype = any (array[{types}])) then\n    \
                         raise exception using errcode = '23514', message = {refused};\n  \
                       end if;\n  \
                       return new;\n\
                     end\n",
                    bucket = sql_text(bucket.name),
                    missing = sql_text(NOT_STORED_MESSAGE),
                    refused = sql_text(NOT_ACCEPTED_MESSAGE),
                    limit = bucket.file_size_limit,
                    types = bucket
                        .allowed_mime_types
                        .iter()
                        .map(|t| sql_text(t))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            ),
            Guard::OpenPosting { job, country } => (
                "-- Applications go to postings that are open: public.job_openings has each\n\
                 -- posting of the site, until when it takes applications, and, for a remote\n\
                 -- one, the countries its applicants may live in. The deploy writes it with\n\
                 -- the service key (deploy/sync-openings.mjs, from `site applications\n\
                 -- --openings`); the public can neither read nor write it.\n"
                    .to_string(),
                "create table if not exists public.job_openings (\n  \
                   job_id text primary key,\n  \
                   title text not null,\n  \
                   closes_at timestamptz not null,\n  \
                   applicants_from text[] not null default '{}'\n\
                 );\n\
                 comment on column public.job_openings.job_id is 'the posting: its file name in content/pages/careers/';\n\
                 comment on column public.job_openings.closes_at is 'the first moment it takes no applications: midnight after its valid_through';\n\
                 comment on column public.job_openings.applicants_from is 'for a remote posting, the countries applicants may live in; else empty';\n\
                 alter table public.job_openings enable row level security;\n\
                 revoke all on table public.job_openings from anon, authenticated;\n\
                 grant select, insert, update, delete on table public.job_openings to service_role;\n\
                 \n"
                .to_string(),
                format!(
                    "declare\n  \
                       opening public.job_openings;\n\
                     begin\n  \
                       if new.{job} is null then\n    \
                         return new;\n  \
                       end if;\n  \
                       select * into opening from public.job_openings o where o.job_id = new.{job};\n  \
                       if not found then\n    \
                         raise exception using errcode = 'PT404', message = {none};\n  \
                       end if;\n  \
                       if opening.closes_at <= now() then\n    \
                         raise exception using errcode = 'PT410', message = {closed};\n  \
                       end if;\n  \
                       if cardinality(opening.applicants_from) > 0 and new.{country} is not null\n     \
                          and not (new.{country} = any (opening.applicants_from)) then\n    \
                         raise exception using errcode = '23514', message =\n      \
                           'This posting takes applicants living in ' || array_to_string(opening.applicants_from, ', ') || ' only.';\n  \
                       end if;\n  \
                       return new;\n\
                     end\n",
                    none = sql_text(applications::NO_POSTING_MESSAGE),
                    closed = sql_text(applications::CLOSED_MESSAGE),
                ),
            ),
        };
        format!(
            "\n{comment}{helpers}\
             create or replace function private.{trigger}()\n\
             returns trigger\n\
             language plpgsql\n\
             security definer\n\
             set search_path = ''\n\
             as $$\n\
             {body}\
             $$;\n\
             revoke all on function private.{trigger}() from public, anon, authenticated;\n\
             drop trigger if exists {trigger} on public.{name};\n\
             create trigger {trigger}\n  \
               before insert on public.{name}\n  \
               for each row execute function private.{trigger}();\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::applications::JOB_APPLICATIONS;
    use crate::forms::contact::CONTACT_MESSAGES;
    use crate::storage::policy::CONTACT_ATTACHMENTS;
    use std::collections::HashMap;

    fn row(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Value {
        let map: HashMap<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Text(v.to_string())))
            .collect();
        move |k: &str| map.get(k).cloned().unwrap_or(Value::Null)
    }

    fn world<'a>(
        stored: &'a dyn Fn(&BucketPolicy, &str) -> Option<Stored>,
        opening: &'a dyn Fn(&str) -> Option<Opening>,
    ) -> World<'a> {
        World {
            project_url: "https://abc.supabase.co",
            stored,
            opening,
            now: chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
                .unwrap()
                .into(),
        }
    }

    #[test]
    fn an_attachment_url_is_the_projects_url_of_exactly_its_key() {
        let key = "public/1763800000000_plan.png";
        let own = public_url("https://abc.supabase.co/", &CONTACT_ATTACHMENTS, key);
        assert_eq!(
            own,
            "https://abc.supabase.co/storage/v1/object/public/contact-attachments/public/1763800000000_plan.png"
        );
        let guard = &CONTACT_MESSAGES.guards[0];
        let (stored, opening) = (|_: &BucketPolicy, _: &str| None, |_: &str| None);
        let w = world(&stored, &opening);
        let with = |url: &str| row(&[("attachment_key", key), ("attachment_url", url)]);
        assert!(guard.refusal(&with(&own), &w).is_none());
        for other in [
            own.replace("https://abc.supabase.co", "https://evil.example"),
            own.replace("https://", "http://"),
            own.replace("1763800000000_plan", "1763800000001_other"),
        ] {
            let refusal = guard.refusal(&with(&other), &w);
            assert_eq!(refusal.map(|r| r.code), Some("23514"), "{other}");
        }
        // Without both, the constraints decide.
        assert!(guard
            .refusal(&row(&[("attachment_url", "x")]), &w)
            .is_none());
    }

    #[test]
    fn an_application_needs_its_cv_stored_and_its_posting_open_for_its_country() {
        let [stored_guard, open_guard] = JOB_APPLICATIONS.guards else {
            panic!("two guards")
        };
        let stored = |_: &BucketPolicy, key: &str| match key {
            "remote-role/1763800000000_cv.pdf" => Some(Stored {
                size: 5000,
                mimetype: "application/pdf".into(),
            }),
            "remote-role/1763800000002_empty.pdf" => Some(Stored {
                size: 0,
                mimetype: "application/pdf".into(),
            }),
            "remote-role/1763800000003_huge.pdf" => Some(Stored {
                size: 10 * 1024 * 1024 + 1,
                mimetype: "application/pdf".into(),
            }),
            _ => None,
        };
        let opening = |job: &str| {
            let closes = |at: &str| chrono::DateTime::parse_from_rfc3339(at).unwrap().into();
            match job {
                "remote-role" => Some(Opening {
                    job_id: job.into(),
                    title: "Remote".into(),
                    closes_at: closes("2027-01-01T00:00:00Z"),
                    applicants_from: vec!["GB".into(), "IE".into()],
                }),
                "closed-role" => Some(Opening {
                    job_id: job.into(),
                    title: "Closed".into(),
                    closes_at: closes("2026-11-25T12:00:00Z"),
                    applicants_from: vec![],
                }),
                _ => None,
            }
        };
        let w = world(&stored, &opening);
        let code =
            |guard: &Guard, pairs: &[(&str, &str)]| guard.refusal(&row(pairs), &w).map(|r| r.code);
        assert_eq!(
            code(
                stored_guard,
                &[("cv_key", "remote-role/1763800000000_cv.pdf")]
            ),
            None
        );
        assert_eq!(
            code(
                stored_guard,
                &[("cv_key", "remote-role/1763800000001_cv.pdf")]
            ),
            Some("23503")
        );
        assert_eq!(
            code(
                stored_guard,
                &[("cv_key", "remote-role/1763800000002_empty.pdf")]
            ),
            Some("23514")
        );
        assert_eq!(
            code(
                stored_guard,
                &[("cv_key", "remote-role/1763800000003_huge.pdf")]
            ),
            Some("23514")
        );
        assert_eq!(
            code(open_guard, &[("job_id", "remote-role"), ("country", "IE")]),
            None
        );
        assert_eq!(
            code(open_guard, &[("job_id", "remote-role"), ("country", "FR")]),
            Some("23514")
        );
        // Closed at its closing moment, not a second later.
        assert_eq!(
            code(open_guard, &[("job_id", "closed-role"), ("country", "FR")]),
            Some("PT410")
        );
        assert_eq!(
            code(open_guard, &[("job_id", "no-such-role")]),
            Some("PT404")
        );
        assert_eq!(code(open_guard, &[("country", "FR")]), None);
    }

    #[test]
    fn the_project_url_pattern_takes_https_and_the_local_stack_only() {
        let pattern = regex::Regex::new(PROJECT_URL_PATTERN).unwrap();
        for ok in [
            "https://abc.supabase.co",
            "https://db.example.com:8443",
            "http://127.0.0.1:54321",
            "http://localhost:54321",
        ] {
            assert!(pattern.is_match(ok), "{ok}");
        }
        for bad in [
            "http://abc.supabase.co",
            "https://abc.supabase.co/path",
            "ftp://x",
            "https://",
        ] {
            assert!(!pattern.is_match(bad), "{bad}");
        }
    }
}
