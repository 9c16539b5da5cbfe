//! The entries of the collections that are not articles, as pages and templates
//! see them: events (times in UTC and in their own zone, a place) and job
//! postings (a location, a team, dates, a salary). Their front matter is
//! `matter.rs`'s.

use schemars::JsonSchema;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::values::{Date, ImageSrc};

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
    #[schemars(extend("x-i18n" = "copy"))]
    pub name: String,
    /// Its street address.
    #[schemars(extend("x-i18n" = "copy"))]
    pub street: String,
    /// Its city.
    #[schemars(extend("x-i18n" = "copy"))]
    pub city: String,
    /// Its country's two-letter code, e.g. `GB`.
    #[schemars(extend("x-i18n" = "share"))]
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
    #[schemars(extend("x-i18n" = "share"))]
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
