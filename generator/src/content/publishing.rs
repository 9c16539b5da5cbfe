//! What editors of a growing site publish with, read from `content/`: collections
//! and their kinds, the site's time zone, drafts and scheduled pages, and the
//! addresses that moved (aliases and redirects). `output/` writes them in each
//! host's own form; templates only show them.

use std::borrow::Cow;
use std::collections::HashMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::values::{Href, SitePath};

/// A folder of `content/pages/` whose Markdown pages are the entries of a
/// collection: `insights` (the short form), or `{ name: events, kind: events }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Collection {
    /// The folder, e.g. `insights`: its pages are `/insights/<file>/`.
    pub name: String,
    /// What its pages are: `articles` (the default: a byline, a category and a
    /// picture), `events` (a start, an end, a place, a registration link) or
    /// `jobs` (a location, a team, an employment type, dates).
    #[serde(default)]
    pub kind: CollectionKind,
    /// How many entries a page of its listing shows; the rest go on
    /// `/<name>/page/2/` and after. Default: 12.
    #[serde(default = "default_per_page")]
    pub per_page: usize,
}

fn default_per_page() -> usize {
    12
}

/// How a collection is written in `site.yaml`, for the schema: its folder's
/// name alone, or the whole mapping.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum CollectionEntry {
    /// A collection of articles, e.g. `insights`.
    Name(String),
    Full(Collection),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CollectionKind {
    #[default]
    Articles,
    Events,
    Jobs,
}

impl<'de> Deserialize<'de> for Collection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            name: String,
            #[serde(default)]
            kind: CollectionKind,
            #[serde(default = "default_per_page")]
            per_page: usize,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Collection;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a folder's name, or `{ name: …, kind: …, per_page: … }`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Collection, E> {
                Ok(Collection {
                    name: v.to_string(),
                    kind: CollectionKind::Articles,
                    per_page: default_per_page(),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Collection, A::Error> {
                let full = Full::deserialize(de::value::MapAccessDeserializer::new(map))?;
                if full.per_page == 0 {
                    return Err(de::Error::custom(
                        "per_page is how many entries a page shows: 1 or more",
                    ));
                }
                Ok(Collection {
                    name: full.name,
                    kind: full.kind,
                    per_page: full.per_page,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// An address that moved, answered with a redirect to where it went.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Redirect {
    /// The old address on this site, e.g. `/services/ai/`.
    pub from: SitePath,
    /// Where it went: a page of this site (`/services/ai-automation/`) or an
    /// https address.
    pub to: Href,
    /// 301 (moved for good, the default), 302 (for now), 307 or 308 (the same,
    /// keeping the method).
    #[serde(default)]
    pub status: Status,
}

/// The status a redirect answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Status(pub u16);

impl Default for Status {
    fn default() -> Status {
        Status(301)
    }
}

impl<'de> Deserialize<'de> for Status {
    /// Checked where it is written (`values::check_status`), so a wrong one is
    /// reported with the file's other mistakes.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "site.status")]
        struct Written(u16);
        Written::deserialize(d).map(|Written(code)| Status(code))
    }
}

impl JsonSchema for Status {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("RedirectStatus")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "integer",
            "enum": [301, 302, 307, 308],
            "description": "301 (moved for good), 302 (moved for now), 307 or 308."
        })
    }
}

/// An office a job posting may be at, with its postal address (for the posting's
/// structured data).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Office {
    /// The name postings use for it, e.g. `Hyderabad`.
    pub city: String,
    /// The street address, e.g. `Meridian Tower, Plot 12, HITEC City, Madhapur`.
    pub street: String,
    /// The state or region, e.g. `Telangana`.
    #[serde(default)]
    pub region: Option<String>,
    /// The postal code, e.g. `500081`.
    pub postal_code: String,
    /// The country's two-letter code, e.g. `IN`.
    pub country: String,
}

/// The site's time zone: an IANA name such as `Asia/Kolkata`. Default: `UTC`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct TimeZone(pub String);

impl Default for TimeZone {
    fn default() -> TimeZone {
        TimeZone("UTC".into())
    }
}

impl TimeZone {
    pub fn tz(&self) -> chrono_tz::Tz {
        self.0.parse().unwrap_or(chrono_tz::UTC)
    }
}

impl<'de> Deserialize<'de> for TimeZone {
    /// Checked where it is written (`values::check_timezone`), so a wrong one is
    /// reported with the file's other mistakes.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "site.timezone")]
        struct Written(String);
        Written::deserialize(d).map(|Written(name)| TimeZone(name.trim().to_string()))
    }
}

impl JsonSchema for TimeZone {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("TimeZone")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "x-i18n": "share",
            "description": "An IANA time zone, such as Asia/Kolkata, Europe/London or UTC."
        })
    }
}

/// When the build runs, in the site's time zone: from `SOURCE_DATE_EPOCH` when
/// set (a reproducible build, a test), else now. Pages dated after its day are
/// held back; jobs whose last day is before it have closed.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub now: chrono::DateTime<chrono_tz::Tz>,
}

impl Clock {
    pub fn of(zone: &TimeZone) -> Clock {
        let secs = std::env::var("SOURCE_DATE_EPOCH")
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        let utc = secs
            .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
            .unwrap_or_else(chrono::Utc::now);
        Clock {
            now: utc.with_timezone(&zone.tz()),
        }
    }

    pub fn today(&self) -> chrono::NaiveDate {
        self.now.date_naive()
    }
}

/// Why a page is not published (yet): `site serve` and `--drafts` builds show it
/// with a badge; `site build` leaves it out, and no listing, feed, sitemap or
/// search index ever has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Unpublished {
    /// `draft: true`.
    Draft,
    /// Dated after the build's day: published by the first build on that day.
    Scheduled { date: String },
    /// A job whose last day has passed.
    Closed { date: String },
}

impl Unpublished {
    pub fn describe(&self) -> String {
        match self {
            Unpublished::Draft => "a draft".into(),
            Unpublished::Scheduled { date } => format!("scheduled for {date}"),
            Unpublished::Closed { date } => format!("closed on {date}"),
        }
    }
}

/// Where a page of a listing is: which collection, which of its entries (all,
/// a category, the upcoming or past events, an office's or a team's jobs), and
/// which page of how many.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingPlace {
    pub collection: String,
    pub filter: Filter,
    /// 1 for the first page.
    pub number: usize,
    pub pages: usize,
    /// The address of its first page: `/insights/`, `/insights/category/cloud/`.
    pub first: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "by", content = "value", rename_all = "lowercase")]
pub enum Filter {
    All,
    Category(String),
    Upcoming,
    Past,
    Office(String),
    Team(String),
}

impl ListingPlace {
    /// The address of page `n` of this listing.
    pub fn page_url(&self, n: usize) -> String {
        ListingPlace::page_of(&self.first, n)
    }

    /// The address of page `n` of the listing whose first page is at `first`.
    pub fn page_of(first: &str, n: usize) -> String {
        if n <= 1 {
            first.to_string()
        } else {
            format!("{first}page/{n}/")
        }
    }
}

/// One address that answers with a redirect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moved {
    pub from: String,
    pub to: String,
    pub status: u16,
}

impl Moved {
    /// The old address and, for an address of a folder, the same without its
    /// slash: hosts answer both, and editors paste both.
    pub fn forms(&self) -> Vec<String> {
        match self.from.strip_suffix('/') {
            Some(bare) if !bare.is_empty() => vec![bare.to_string(), self.from.clone()],
            _ => vec![self.from.clone()],
        }
    }
}

/// A short name for an address segment: `Cloud & AI` → `cloud-ai`.
pub fn slug(text: &str) -> String {
    super::markdown::slug(text)
}

/// The redirect `from` leads to, followed through `map` until it leaves it: the
/// addresses on the way, or the loop it ends in.
pub fn follow(map: &HashMap<&str, &str>, from: &str) -> Result<Vec<String>, Vec<String>> {
    let mut path = vec![from.to_string()];
    let mut at = from;
    while let Some(next) = map.get(at) {
        if path.iter().any(|p| p == next) {
            path.push(next.to_string());
            return Err(path);
        }
        path.push(next.to_string());
        at = next;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_are_followed_to_their_end_or_their_loop() {
        let map: HashMap<&str, &str> = [
            ("/a/", "/b/"),
            ("/b/", "/c/"),
            ("/x/", "/y/"),
            ("/y/", "/x/"),
        ]
        .into();
        assert_eq!(follow(&map, "/a/").unwrap(), ["/a/", "/b/", "/c/"]);
        assert_eq!(follow(&map, "/c/").unwrap(), ["/c/"]);
        assert_eq!(follow(&map, "/x/").unwrap_err(), ["/x/", "/y/", "/x/"]);
    }

    #[test]
    fn a_folder_address_redirects_with_and_without_its_slash() {
        let m = Moved {
            from: "/old/place/".into(),
            to: "/new/".into(),
            status: 301,
        };
        assert_eq!(m.forms(), ["/old/place", "/old/place/"]);
        let file = Moved {
            from: "/old.html".into(),
            ..m
        };
        assert_eq!(file.forms(), ["/old.html"]);
    }
}
