//! The job postings' openings: every posting of a jobs collection with until when
//! it takes applications and from where. The applications' table guards each
//! application with them (`forms::applications`), the deploy writes them to
//! `public.job_openings`, and a posting's page shows its own.

use std::sync::Arc;

use super::page::Page;

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

/// The openings of the site's job postings, every one the content has (closed
/// ones too, so an application to one is told it is closed).
pub fn openings(pages: &[Arc<Page>], zone: chrono_tz::Tz) -> Vec<Opening> {
    let mut openings: Vec<Opening> = pages
        .iter()
        // A translation is the same posting.
        .filter(|p| p.route == p.translation_key())
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
pub fn job_id(page: &Page) -> String {
    job_id_of(page.translation_key())
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
