//! The careers application form's table, `job_applications`, and the postings it
//! takes applications for (`public.job_openings`).

use super::table::*;
use crate::storage::policy::APPLICATIONS;

/// A posting's id: the name of its file in the jobs collection, as a folder of
/// the applications bucket.
pub const JOB_ID_PATTERN: &str = "^[a-z0-9][a-z0-9-]{0,99}$";
/// Where the applicant lives: a two-letter ISO 3166 code.
pub const COUNTRY_PATTERN: &str = "^[A-Z]{2}$";
/// A profile or portfolio: https only, so no link the team opens is `javascript:`
/// or plain http.
pub const PROFILE_URL_PATTERN: &str = "^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$";

pub const JOB_APPLICATIONS: Table = Table {
    name: "job_applications",
    migration: "supabase/migrations/20261125000000_job_applications.sql",
    rows: "applications",
    about: "Job applications",
    columns: &[
        ID,
        RECEIVED_AT,
        server(
            "status",
            Type::Text,
            Fill::Text("new"),
            "the team's: new, reviewing, declined or hired",
        ),
        public(
            "job_id",
            Type::Text,
            true,
            "the posting: its file name in content/pages/careers/",
        ),
        public("name", Type::Text, true, "the applicant's full name"),
        public("email", Type::Text, true, "the applicant's e-mail address"),
        public("phone", Type::Text, true, "the applicant's phone number"),
        public(
            "profile_url",
            Type::Text,
            false,
            "optional: a profile or portfolio, https only",
        ),
        public(
            "country",
            Type::Text,
            true,
            "where the applicant lives, a two-letter ISO 3166 code",
        ),
        public("note", Type::Text, true, "the covering note"),
        public(
            "cv_key",
            Type::Text,
            true,
            "the CV's key in the private applications bucket",
        ),
        public(
            "privacy",
            Type::Boolean,
            true,
            "the applicants' privacy notice was accepted",
        ),
        PAGE,
        FILL_MS,
        WEBSITE,
    ],
    checks: &[
        Check {
            name: "job_applications_country_check",
            rule: Rule::Pattern {
                column: "country",
                max: 2,
                pattern: COUNTRY_PATTERN,
            },
        },
        Check {
            name: "job_applications_cv_folder_check",
            rule: Rule::FolderIs {
                column: "cv_key",
                folder: "job_id",
            },
        },
        Check {
            name: "job_applications_cv_key_check",
            rule: Rule::Pattern {
                column: "cv_key",
                max: 1024,
                pattern: APPLICATIONS.insert_key_pattern,
            },
        },
        Check {
            name: "job_applications_email_check",
            rule: EMAIL_RULE,
        },
        Check {
            name: "job_applications_job_id_check",
            rule: Rule::Pattern {
                column: "job_id",
                max: 100,
                pattern: JOB_ID_PATTERN,
            },
        },
        Check {
            name: "job_applications_name_check",
            rule: Rule::Length {
                column: "name",
                max: MAX_NAME,
                required: true,
            },
        },
        Check {
            name: "job_applications_note_check",
            rule: Rule::Length {
                column: "note",
                max: MAX_TEXT,
                required: true,
            },
        },
        Check {
            name: "job_applications_page_check",
            rule: PAGE_RULE,
        },
        Check {
            name: "job_applications_phone_check",
            rule: Rule::Length {
                column: "phone",
                max: MAX_PHONE,
                required: true,
            },
        },
        Check {
            name: "job_applications_privacy_check",
            rule: Rule::IsTrue("privacy"),
        },
        Check {
            name: "job_applications_profile_url_check",
            rule: Rule::Pattern {
                column: "profile_url",
                max: MAX_URL,
                pattern: PROFILE_URL_PATTERN,
            },
        },
        Check {
            name: "job_applications_status_check",
            rule: Rule::OneOf("status", &["new", "reviewing", "declined", "hired"]),
        },
    ],
    guards: &[
        Guard::StoredObject {
            key: "cv_key",
            bucket: &APPLICATIONS,
        },
        Guard::OpenPosting {
            job: "job_id",
            country: "country",
        },
    ],
    spam: Spam {
        trap: "website",
        fill: "fill_ms",
        min_fill_ms: MIN_FILL_MS,
        rate_limit: 5,
        window_seconds: 3600,
        email: "email",
        rate_table: "job_application_rate",
    },
    retention: Retention {
        setting: "careers.retention_months",
        default_months: 6,
        job: "job-applications-retention",
        since: "received_at",
        notice: "the applicants' privacy notice",
        files:
            "CVs go by\n-- deploy/delete-old-attachments.mjs: Supabase lets no SQL delete a file.",
    },
    defines_sender: false,
};

/// What the database is told of a posting: until when it takes applications,
/// and from where. A row of `public.job_openings`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Opening {
    pub job_id: String,
    pub title: String,
    /// The first moment it no longer takes applications: the day after its
    /// `valid_through`, at midnight in the site's time zone.
    pub closes_at: chrono::DateTime<chrono::Utc>,
    /// For a remote posting, the countries applicants may live in; else empty.
    pub applicants_from: Vec<String>,
}

/// Why an application is refused for its posting, as the trigger raises it.
pub const NO_POSTING_MESSAGE: &str = "There is no posting with this id.";
pub const CLOSED_MESSAGE: &str = "This posting is closed: applications are no longer accepted.";

/// The refusal of a country the posting does not take, with the ones it does.
pub fn country_message(allowed: &[String]) -> String {
    format!(
        "This posting takes applicants living in {} only.",
        allowed.join(", ")
    )
}

/// The openings of the site's job postings, every one the content has (closed
/// ones too, so an application to one is told it is closed).
pub fn openings(
    pages: &[std::sync::Arc<crate::content::page::Page>],
    zone: chrono_tz::Tz,
) -> Vec<Opening> {
    let mut openings: Vec<Opening> = pages
        .iter()
        // A translation is the same posting.
        .filter(|p| p.route == p.translation_key)
        .filter_map(|page| {
            let job = page.job.as_ref()?;
            let last = job.valid_through.naive()?;
            Some(Opening {
                job_id: job_id(page),
                title: page.title.clone(),
                closes_at: closes_at(last, zone),
                applicants_from: if job.remote {
                    job.applicants_from.clone()
                } else {
                    Vec::new()
                },
            })
        })
        .collect();
    openings.sort_by(|a, b| a.job_id.cmp(&b.job_id));
    openings
}

/// A posting's id: the last part of its address in the default language
/// (`/careers/security-consultant-london/` → `security-consultant-london`).
pub fn job_id(page: &crate::content::page::Page) -> String {
    job_id_of(&page.translation_key)
}

/// The id of the posting whose default-language address is `translation_key`.
pub fn job_id_of(translation_key: &str) -> String {
    let key = translation_key.trim_matches('/');
    key.rsplit('/').next().unwrap_or(key).to_string()
}

/// Midnight after `last` in `zone`, as a moment.
pub fn closes_at(last: chrono::NaiveDate, zone: chrono_tz::Tz) -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    let next = last
        .succ_opt()
        .unwrap_or(last)
        .and_time(chrono::NaiveTime::MIN);
    zone.from_local_datetime(&next)
        .earliest()
        .map(|t| t.with_timezone(&chrono::Utc))
        .unwrap_or_else(|| chrono::Utc.from_utc_datetime(&next))
}
