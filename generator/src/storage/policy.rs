//! The production storage's rules, in one place: the bucket's limits and what the
//! public (`anon`) role may write. The Supabase migration that creates them in
//! production is rendered from here (`supabase/migrations/`, checked by a test),
//! and `site serve`'s storage enforces the same rules, so a key the live project
//! would refuse is refused in development too.

use regex::Regex;

/// A bucket and who may write to it.
#[derive(Debug)]
pub struct BucketPolicy {
    pub name: &'static str,
    /// Objects can be read by anyone through the public URL.
    pub public: bool,
    /// Bytes.
    pub file_size_limit: u64,
    pub allowed_mime_types: &'static [&'static str],
    /// The only folder the public may upload into; `None` when the pattern
    /// names the folders (one per job posting).
    pub insert_folder: Option<&'static str>,
    /// What every uploaded key must look like, as a regular expression that means
    /// the same to PostgreSQL (`~`), Rust's regex and JavaScript.
    pub insert_key_pattern: &'static str,
    /// The folder must be a job posting that takes applications now
    /// (`public.job_takes_applications`, from `public.job_openings`).
    pub open_postings_only: bool,
    /// Why the key looks like that, for the migration's reader.
    #[cfg_attr(not(test), allow(dead_code))]
    pub insert_key_form: &'static str,
}

/// The contact form's attachments: `public/<timestamp>_<file name>` (13 digits of
/// milliseconds, then the name made safe by `islands/lib/contact.ts`: ASCII
/// letters, digits, `.`, `_` and `-`, at most 80 + 1 + 10 characters).
pub const CONTACT_ATTACHMENTS: BucketPolicy = BucketPolicy {
    name: "contact-attachments",
    public: true,
    file_size_limit: 5 * 1024 * 1024,
    allowed_mime_types: &["image/jpeg", "image/png", "image/gif"],
    insert_folder: Some("public"),
    insert_key_pattern: "^public/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
    open_postings_only: false,
    insert_key_form: "public/<13-digit millisecond timestamp>_<safe file name>",
};

/// The MIME type of a Word document (.docx).
pub const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/// Job applicants' CVs: private, so nothing anonymous reads one back. Each under
/// its posting's folder, `<job id>/<timestamp>_<file name>`.
pub const APPLICATIONS: BucketPolicy = BucketPolicy {
    name: "applications",
    public: false,
    file_size_limit: 10 * 1024 * 1024,
    allowed_mime_types: &["application/pdf", DOCX],
    insert_folder: None,
    insert_key_pattern: "^[a-z0-9][a-z0-9-]{0,99}/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
    open_postings_only: true,
    insert_key_form: "<job id>/<13-digit millisecond timestamp>_<safe file name>",
};

/// Every bucket of the production project.
pub const BUCKETS: &[&BucketPolicy] = &[&CONTACT_ATTACHMENTS, &APPLICATIONS];

/// The migration's path below the repository root.
#[cfg_attr(not(test), allow(dead_code))]
pub const MIGRATION: &str = "supabase/migrations/20261122000000_contact_attachments.sql";

impl BucketPolicy {
    /// Whether the public may insert an object at `key`: the same test as the
    /// migration's row-level security policy. An unreadable pattern refuses all.
    /// (Uploads are rare; compiling the pattern each time costs microseconds.)
    pub fn permits_insert(&self, key: &str) -> bool {
        let folder = key.contains('/')
            && self
                .insert_folder
                .is_none_or(|f| key.split('/').next() == Some(f));
        folder
            && Regex::new(self.insert_key_pattern)
                .map(|p| p.is_match(key))
                .unwrap_or(false)
    }
}

fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The SQL that creates the contact form's bucket and its policy in a Supabase
/// project. It can run any number of times.
#[cfg_attr(not(test), allow(dead_code))]
pub fn migration_sql() -> String {
    let mut sql = String::from(
        "-- Production storage for the contact form: the bucket, its limits and who may\n\
         -- upload. Rendered from generator/src/storage/policy.rs, which `site serve`'s\n\
         -- storage enforces too; change the policy there and run\n\
         --     UPDATE_MIGRATION=1 cargo test migration\n\
         -- to write this file again. It can be applied any number of times.\n",
    );
    sql.push_str(&bucket_sql(&CONTACT_ATTACHMENTS));
    sql
}

/// The SQL that creates one bucket, its limits and the public's upload policy.
pub fn bucket_sql(b: &BucketPolicy) -> String {
    let types: Vec<String> = b.allowed_mime_types.iter().map(|t| sql_text(t)).collect();
    let name = sql_text(b.name);
    let policy = format!("\"{}: public uploads\"", b.name);
    let (place, folder_check) = match b.insert_folder {
        Some(folder) => (
            format!("only under\n-- {folder}/,"),
            format!(
                "\n    and (storage.foldername(name))[1] = {}",
                sql_text(folder)
            ),
        ),
        None if b.open_postings_only => (
            "only in the\n-- folder of a posting that takes applications now,".to_string(),
            String::new(),
        ),
        None => ("only in its\n-- folders,".to_string(), String::new()),
    };
    // A folder that is a posting taking applications: the function reads the
    // postings for the public, which may not read them itself (plpgsql, so it
    // may come before the table it reads).
    let (open_function, open_check) = if b.open_postings_only {
        (
            "-- Whether a posting takes applications now: the only folders the public\n\
             -- may upload into. public.job_openings is written by the deploy.\n\
             create or replace function public.job_takes_applications(job text)\n\
             returns boolean\n\
             language plpgsql\n\
             stable\n\
             security definer\n\
             set search_path = ''\n\
             as $$\n\
             begin\n  \
               return exists (select 1 from public.job_openings o where o.job_id = job and o.closes_at > now());\n\
             end\n\
             $$;\n\
             revoke all on function public.job_takes_applications(text) from public;\n\
             grant execute on function public.job_takes_applications(text) to anon, authenticated;\n\
             \n"
                .to_string(),
            "\n    and public.job_takes_applications((storage.foldername(name))[1])".to_string(),
        )
    } else {
        (String::new(), String::new())
    };
    let reads = if b.public {
        "Public reads\n-- go through the bucket's public URL, which needs no policy."
    } else {
        "The bucket is\n-- private: no public URL, and nothing anonymous reads an object back."
    };
    format!(
        "\n\
         insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)\n\
         values ({name}, {name}, {public}, {limit}, array[{types}])\n\
         on conflict (id) do update set\n  \
           public = excluded.public,\n  \
           file_size_limit = excluded.file_size_limit,\n  \
           allowed_mime_types = excluded.allowed_mime_types;\n\
         \n\
         {open_function}\
         -- The public may upload new objects, only into this bucket, {place} and only with keys of the form the site makes:\n\
         --     {form}\n\
         -- There is no UPDATE, DELETE or SELECT policy for anon: it cannot overwrite\n\
         -- (an upsert needs UPDATE), remove or list anyone's uploads. {reads}\n\
         drop policy if exists {policy} on storage.objects;\n\
         create policy {policy}\n  \
           on storage.objects\n  \
           for insert\n  \
           to anon\n  \
           with check (\n    \
             bucket_id = {name}{folder_check}\n    \
             and name ~ {pattern}{open_check}\n  \
           );\n",
        public = b.public,
        limit = b.file_size_limit,
        types = types.join(", "),
        form = b.insert_key_form,
        pattern = sql_text(b.insert_key_pattern),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_patterns_compile() {
        for b in BUCKETS {
            assert!(Regex::new(b.insert_key_pattern).is_ok(), "{}", b.name);
        }
    }

    #[test]
    fn only_keys_of_the_forms_shape_may_be_inserted() {
        let p = &CONTACT_ATTACHMENTS;
        for ok in [
            "public/1700000000000_photo.png",
            "public/1763800000000_Cafe_menu_final.jpg",
            "public/1700000000000_attachment",
        ] {
            assert!(p.permits_insert(ok), "{ok}");
        }
        for refused in [
            "private/1700000000000_photo.png",
            "photo.png",
            "public/photo.png",
            "public/170000000000_photo.png",
            "public/1700000000000_a b.png",
            "public/1700000000000_x/y.png",
            "public/1700000000000_",
            "Public/1700000000000_photo.png",
        ] {
            assert!(!p.permits_insert(refused), "{refused}");
        }
    }

    /// The committed migration is what this module renders, so production and
    /// `site serve` cannot drift apart. `UPDATE_MIGRATION=1` writes it again.
    #[test]
    fn the_committed_migration_is_rendered_from_the_policy() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(MIGRATION);
        let rendered = migration_sql();
        if std::env::var_os("UPDATE_MIGRATION").is_some() {
            std::fs::write(&path, &rendered).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == rendered,
            "{MIGRATION} differs from generator/src/storage/policy.rs; \
             run UPDATE_MIGRATION=1 cargo test migration"
        );
    }
}
