//! The careers application form's table, `job_applications`, and what its guard
//! answers an application to a posting that is closed or takes no one from the
//! applicant's country. The postings themselves are content (`content::openings`).

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
        SEND_KEY,
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
