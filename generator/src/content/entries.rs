//! The entries of the collections that are not articles: events and job
//! postings, each a Markdown page in its collection's folder with front matter of
//! its own kind.

use schemars::JsonSchema;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::publishing::TimeZone;
use super::values::{Date, DateTime, Href, ImageSrc, Layout, SitePath, TranslationOf};

/// The front matter of an event: a Markdown page in a collection of kind
/// `events`, such as `content/pages/events/`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Event front matter")]
pub struct EventMatter {
    /// The event's name.
    pub title: String,
    /// One or two sentences: the card's text, search results and calendars.
    pub description: String,
    /// When it starts, in its own time zone: YYYY-MM-DD HH:MM.
    pub start: DateTime,
    /// When it ends, in its own time zone: YYYY-MM-DD HH:MM.
    pub end: DateTime,
    /// The time zone of `start` and `end`, an IANA name such as `Europe/London`.
    /// Default: the site's `timezone`.
    #[serde(default)]
    pub timezone: Option<TimeZone>,
    /// Where it happens: `Online`, or a venue `{ name, street, city, country }`.
    pub place: Place,
    /// Where visitors register: an https address.
    pub registration: Href,
    /// Who speaks, by name.
    #[serde(default)]
    pub speakers: Vec<String>,
    /// A picture for its card and page: a file under public/.
    #[serde(default)]
    pub image: Option<ImageSrc>,
    /// What the picture shows, for people who cannot see it.
    #[serde(default)]
    pub alt: Option<String>,
    /// Not published yet: shown by `site serve` with a Draft badge, left out of
    /// `site build` (`--drafts` builds it).
    #[serde(default)]
    pub draft: bool,
    /// Old addresses of this page, each redirected here, e.g. `[/events/old-name/]`.
    #[serde(default)]
    pub aliases: Vec<SitePath>,
    /// In a translation (`about.de.yaml`) whose name differs from the page it
    /// translates: that page's address in the default language, e.g. `/about/`.
    #[serde(default)]
    #[allow(dead_code)]
    pub translation_of: Option<TranslationOf>,
    /// A file in templates/layouts/. Default: `event`.
    #[serde(default)]
    pub layout: Option<Layout>,
    /// Words the page is about, for search.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Where an event happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Place {
    /// `Online`.
    Online(String),
    /// A venue.
    Venue(Venue),
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Venue {
    /// The venue's name, e.g. `The Meridian Centre`.
    pub name: String,
    /// Its street address.
    pub street: String,
    /// Its city.
    pub city: String,
    /// Its country's two-letter code, e.g. `GB`.
    pub country: String,
}

impl Place {
    pub fn is_online(&self) -> bool {
        matches!(self, Place::Online(_))
    }
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Place;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`Online`, or a venue `{ name, street, city, country }`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Place, E> {
                if v.trim().eq_ignore_ascii_case("online") {
                    Ok(Place::Online("Online".into()))
                } else {
                    Err(E::custom(format!(
                        "`{v}` is not a place: write `Online`, or the venue as `{{ name: …, street: …, city: …, country: … }}`"
                    )))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Place, A::Error> {
                Venue::deserialize(de::value::MapAccessDeserializer::new(map)).map(Place::Venue)
            }
        }
        d.deserialize_any(V)
    }
}

/// An event, as pages and templates see it: times in UTC and in its own zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    pub collection: String,
    /// In UTC, `2026-12-03T09:30:00Z`: what calendars need, and what compares
    /// with the build's `now`.
    pub start: String,
    pub end: String,
    /// With the zone's offset, `2026-12-03T09:30:00+05:30`: what structured data
    /// shows.
    pub start_local: String,
    pub end_local: String,
    /// The local date and times as written, and the zone's name and abbreviation.
    pub day: String,
    pub end_day: String,
    pub start_time: String,
    pub end_time: String,
    pub timezone: String,
    pub zone: String,
    pub place: Place,
    pub registration: String,
    pub speakers: Vec<String>,
    pub image: Option<ImageSrc>,
    pub alt: Option<String>,
    /// The address of its calendar file: `/events/summit.ics` for `/events/summit/`.
    pub calendar: String,
}

/// The front matter of a job posting: a Markdown page in a collection of kind
/// `jobs`, such as `content/pages/careers/`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Job posting front matter")]
pub struct JobMatter {
    /// The job's title, e.g. `Senior Cloud Engineer`.
    pub title: String,
    /// One or two sentences: the card's text and search results.
    pub description: String,
    /// Where the job is: an office's `city` from `offices` in site.yaml, or `Remote`.
    pub location: String,
    /// For a `Remote` job, the countries applicants may live in, by two-letter
    /// code, e.g. `[GB, IE]`.
    #[serde(default)]
    pub applicants_from: Vec<String>,
    /// The team it is in, e.g. `Cloud Engineering`.
    pub team: String,
    /// `full_time`, `part_time`, `contract`, `temporary` or `internship`.
    pub employment_type: EmploymentType,
    /// The day it was posted, YYYY-MM-DD. A day in the future holds it back.
    pub date_posted: Date,
    /// Its last day, YYYY-MM-DD: the first build after it takes it off the site.
    pub valid_through: Date,
    /// What it pays, when it is said.
    #[serde(default)]
    pub salary: Option<Salary>,
    /// Not published yet: shown by `site serve` with a Draft badge, left out of
    /// `site build` (`--drafts` builds it).
    #[serde(default)]
    pub draft: bool,
    /// Old addresses of this page, each redirected here.
    #[serde(default)]
    pub aliases: Vec<SitePath>,
    /// In a translation (`about.de.yaml`) whose name differs from the page it
    /// translates: that page's address in the default language, e.g. `/about/`.
    #[serde(default)]
    #[allow(dead_code)]
    pub translation_of: Option<TranslationOf>,
    /// A file in templates/layouts/. Default: `job`.
    #[serde(default)]
    pub layout: Option<Layout>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EmploymentType {
    FullTime,
    PartTime,
    Contract,
    Temporary,
    Internship,
}

impl EmploymentType {
    /// schema.org's value, as Google for Jobs reads it.
    pub fn schema_org(self) -> &'static str {
        match self {
            EmploymentType::FullTime => "FULL_TIME",
            EmploymentType::PartTime => "PART_TIME",
            EmploymentType::Contract => "CONTRACTOR",
            EmploymentType::Temporary => "TEMPORARY",
            EmploymentType::Internship => "INTERN",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            EmploymentType::FullTime => "Full-time",
            EmploymentType::PartTime => "Part-time",
            EmploymentType::Contract => "Contract",
            EmploymentType::Temporary => "Temporary",
            EmploymentType::Internship => "Internship",
        }
    }
}

/// A salary range.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Salary {
    /// The currency's three-letter code, e.g. `GBP`.
    pub currency: String,
    /// The least it pays, in whole units of the currency, e.g. `65000`.
    pub min: u64,
    /// The most it pays, at least `min`, e.g. `80000`.
    pub max: u64,
    /// `year`, `month` or `hour`.
    pub per: SalaryUnit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SalaryUnit {
    Year,
    Month,
    Hour,
}

/// A job posting, as pages and templates see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Job {
    pub collection: String,
    pub location: String,
    pub applicants_from: Vec<String>,
    pub team: String,
    pub employment_type: EmploymentType,
    pub employment: &'static str,
    pub date_posted: Date,
    pub valid_through: Date,
    pub salary: Option<Salary>,
    /// The salary as visitors read it: `GBP 70,000–85,000 a year`.
    pub salary_text: Option<String>,
    pub remote: bool,
}

impl Salary {
    pub fn text(&self) -> String {
        let per = match self.per {
            SalaryUnit::Year => "year",
            SalaryUnit::Month => "month",
            SalaryUnit::Hour => "hour",
        };
        format!(
            "{} {}–{} a {per}",
            self.currency,
            thousands(self.min),
            thousands(self.max)
        )
    }
}

/// `70000` → `70,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl EventMatter {
    /// The event as pages see it; `site_zone` when it names no zone of its own.
    /// An end before its start is an error, as is a time the zone skips.
    pub fn event(
        &self,
        collection: &str,
        site_zone: &TimeZone,
    ) -> Result<Event, (&'static str, String)> {
        use chrono::TimeZone as _;
        let zone = self.timezone.clone().unwrap_or_else(|| site_zone.clone());
        let tz = zone.tz();
        let local = |t: &DateTime, which: &'static str| {
            let naive = t
                .naive()
                .ok_or_else(|| (which, format!("{which} is not a date and time")))?;
            tz.from_local_datetime(&naive).earliest().ok_or_else(|| {
                (
                    which,
                    format!(
                        "`{}` does not exist in {}: the clocks skip it",
                        t.as_str(),
                        zone.0
                    ),
                )
            })
        };
        let start = local(&self.start, "start")?;
        let end = local(&self.end, "end")?;
        if end < start {
            return Err((
                "end",
                format!(
                    "the event ends (`{}`) before it starts (`{}`)",
                    self.end.as_str(),
                    self.start.as_str()
                ),
            ));
        }
        let utc = |t: &chrono::DateTime<chrono_tz::Tz>| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        };
        let offset =
            |t: &chrono::DateTime<chrono_tz::Tz>| t.format("%Y-%m-%dT%H:%M:%S%:z").to_string();
        Ok(Event {
            collection: collection.to_string(),
            start: utc(&start),
            end: utc(&end),
            start_local: offset(&start),
            end_local: offset(&end),
            day: start.format("%Y-%m-%d").to_string(),
            end_day: end.format("%Y-%m-%d").to_string(),
            start_time: start.format("%H:%M").to_string(),
            end_time: end.format("%H:%M").to_string(),
            timezone: zone.0.clone(),
            zone: start.format("%Z").to_string(),
            place: self.place.clone(),
            registration: self.registration.as_str().to_string(),
            speakers: self.speakers.clone(),
            image: self.image.clone(),
            alt: self.alt.clone(),
            calendar: String::new(),
        })
    }
}

impl JobMatter {
    pub fn job(&self, collection: &str) -> Result<Job, (&'static str, String)> {
        let remote = self.location.trim().eq_ignore_ascii_case("remote");
        if remote && self.applicants_from.is_empty() {
            return Err(("location", "a Remote job names the countries applicants may live in: add `applicants_from: [GB]` (two-letter codes)".into()));
        }
        if let (Some(posted), Some(last)) = (self.date_posted.naive(), self.valid_through.naive()) {
            if last < posted {
                return Err((
                    "valid_through",
                    format!(
                        "{} is before date_posted ({}): a posting's last day comes after the day it is posted",
                        self.valid_through.as_str(),
                        self.date_posted.as_str()
                    ),
                ));
            }
        }
        if let Some(s) = &self.salary {
            if s.max < s.min {
                return Err((
                    "salary",
                    format!("its max ({}) is below its min ({})", s.max, s.min),
                ));
            }
        }
        Ok(Job {
            collection: collection.to_string(),
            location: if remote {
                "Remote".into()
            } else {
                self.location.trim().to_string()
            },
            applicants_from: self.applicants_from.clone(),
            team: self.team.clone(),
            employment_type: self.employment_type,
            employment: self.employment_type.label(),
            date_posted: self.date_posted.clone(),
            valid_through: self.valid_through.clone(),
            salary: self.salary.clone(),
            salary_text: self.salary.as_ref().map(Salary::text),
            remote,
        })
    }
}
