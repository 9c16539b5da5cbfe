//! The site's own kinds of value in content: dates, links, icon names, images,
//! Markdown and layouts. The content reader checks each where it is written
//! (`yaml/de.rs` knows them by their serde names, `site.*`) and keeps what it
//! refers to; `references.rs` checks those once every page is loaded.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use super::languages::check_code;
use super::markdown;
use super::routes::{canonical_href, check_link};

/// The kinds of value checked where they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Date,
    DateTime,
    Path,
    Href,
    Icon,
    Image,
    Markdown,
    Layout,
    TimeZone,
    Status,
    Months,
    Language,
    Translation,
}

impl Kind {
    pub fn from_serde_name(name: &str) -> Option<Kind> {
        Some(match name {
            "site.date" => Kind::Date,
            "site.datetime" => Kind::DateTime,
            "site.path" => Kind::Path,
            "site.href" => Kind::Href,
            "site.icon" => Kind::Icon,
            "site.image" => Kind::Image,
            "site.markdown" => Kind::Markdown,
            "site.layout" => Kind::Layout,
            "site.timezone" => Kind::TimeZone,
            "site.status" => Kind::Status,
            "site.months" => Kind::Months,
            "site.language" => Kind::Language,
            "site.translation" => Kind::Translation,
            _ => return None,
        })
    }
}

/// What a value refers to, which exists only if the site has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Icon(String),
    /// A file under `public/`, written `/images/map.svg`.
    Image(String),
    /// A page of this site, written `/about/` (maybe with `#fragment`).
    Link(String),
    Layout(String),
    /// An old address that redirects (a page's alias, a redirect's `from`).
    Moved(String),
    /// A language of `languages:` in site.yaml, by its code (each once).
    Language(String),
    /// The page of the default language a page translates (`translation_of`).
    Translation(String),
}

/// A target found in a value; `offset` is where in the value's text it is written.
#[derive(Debug, Clone)]
pub struct Found {
    pub target: Target,
    pub offset: usize,
}

/// Checks a value of `kind` written as `text`: what it refers to, or what is wrong.
pub fn check(kind: Kind, text: &str) -> Result<Vec<Found>, String> {
    let found = |target| Found { target, offset: 0 };
    match kind {
        Kind::Date => check_date(text).map(|_| Vec::new()),
        Kind::DateTime => check_datetime(text).map(|_| Vec::new()),
        Kind::Path => check_path(text.trim()).map(|p| vec![found(Target::Moved(p))]),
        Kind::Href => check_href(text.trim()).map(|t| t.map(found).into_iter().collect()),
        Kind::Icon => check_name(text, "an icon").map(|()| vec![found(Target::Icon(text.into()))]),
        Kind::Layout => {
            check_name(text, "a layout").map(|()| vec![found(Target::Layout(text.into()))])
        }
        Kind::Image => check_image(text).map(|t| t.map(found).into_iter().collect()),
        Kind::Markdown => markdown_links(text).map_err(|mistake| mistake.message),
        Kind::TimeZone => check_timezone(text.trim()).map(|()| Vec::new()),
        Kind::Status => check_status(text.trim()).map(|_| Vec::new()),
        Kind::Months => check_retention_months(text.trim()).map(|_| Vec::new()),
        Kind::Language => check_code(text.trim()).map(|code| vec![found(Target::Language(code))]),
        Kind::Translation => check_path(text.trim()).map(|p| vec![found(Target::Translation(p))]),
    }
}

/// How many months contact messages are kept: 1 to 120.
pub fn check_retention_months(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(months @ 1..=120) => Ok(months),
        _ => Err(format!(
            "expected a number of months from 1 to 120, found {text}: messages are kept at \
             least a month and at most ten years"
        )),
    }
}

/// An IANA time zone, such as `Asia/Kolkata`.
pub fn check_timezone(name: &str) -> Result<(), String> {
    if name.parse::<chrono_tz::Tz>().is_ok() {
        return Ok(());
    }
    let hint =
        crate::suggest::did_you_mean(name, chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name()));
    Err(format!(
        "`{name}` is not a time zone: write its IANA name, such as `Asia/Kolkata` or `Europe/London`{hint}"
    ))
}

/// A redirect's status: 301, 302, 307 or 308.
pub fn check_status(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(code @ (301 | 302 | 307 | 308)) => Ok(code),
        _ => Err(format!(
            "a redirect's status is 301 (moved for good), 302 (moved for now), 307 or 308, not {text}"
        )),
    }
}

/// A date and time of day, `YYYY-MM-DD HH:MM` (24-hour clock).
pub fn check_datetime(text: &str) -> Result<chrono::NaiveDateTime, String> {
    let text = text.trim();
    let (day, time) = text.split_once([' ', 'T']).ok_or_else(|| {
        format!(
            "`{text}` is not a date and time: write it YYYY-MM-DD HH:MM, such as 2026-12-03 09:30"
        )
    })?;
    let date = check_date(day)?;
    let time = chrono::NaiveTime::parse_from_str(time.trim(), "%H:%M").map_err(|_| {
        format!("`{time}` is not a time of day: write it HH:MM on a 24-hour clock, such as 09:30 or 17:00")
    })?;
    Ok(date.and_time(time))
}

/// An address on this site that a redirect answers: `/old/place/`, kept in the
/// form hosts serve (a folder's address ends in `/`).
pub fn check_path(text: &str) -> Result<String, String> {
    if !text.starts_with('/') || text.starts_with("//") {
        return Err(format!(
            "`{text}` is not an address on this site: write it from the site's root, such as /old/place/"
        ));
    }
    if text.contains(['?', '#', ' ']) || text.split('/').any(|s| s == ".." || s == ".") {
        return Err(format!(
            "`{text}` cannot be redirected: an old address is a plain path, without ?, #, spaces, . or .."
        ));
    }
    Ok(canonical_href(text))
}

/// A mistake inside a longer text, with where in it.
#[derive(Debug)]
pub struct Mistake {
    pub message: String,
    pub offset: usize,
}

/// A calendar date, `YYYY-MM-DD`, that exists.
pub fn check_date(text: &str) -> Result<chrono::NaiveDate, String> {
    let b = text.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shaped {
        return Err(format!(
            "`{text}` is not a date; write dates as YYYY-MM-DD, for example 2026-11-14"
        ));
    }
    let number = |r: std::ops::Range<usize>| text[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(0..4) as i32, number(5..7), number(8..10));
    if let Some(date) = chrono::NaiveDate::from_ymd_opt(year, month, day) {
        return Ok(date);
    }
    if !(1..=12).contains(&month) {
        return Err(format!(
            "`{text}` is not a date: there is no month {month:02} (months run 01 to 12)"
        ));
    }
    let days = days_in_month(year, month);
    let name = chrono::Month::try_from(month as u8)
        .map(|m| m.name())
        .unwrap_or("that month");
    Err(format!(
        "`{text}` is not a date: {name} {year} has {days} days"
    ))
}

fn days_in_month(year: i32, month: u32) -> u32 {
    (28..=31)
        .rev()
        .find(|d| chrono::NaiveDate::from_ymd_opt(year, month, *d).is_some())
        .unwrap_or(28)
}

/// A link an editor may write: a relative path, a `#fragment`, or an `https:`,
/// `http:`, `mailto:` or `tel:` URL (the link rule, `routes::check_link`). A path
/// on this site is returned as a page link to check.
pub fn check_href(href: &str) -> Result<Option<Target>, String> {
    check_link(href)?;
    if href.starts_with('/') && !href.starts_with("//") {
        return Ok(Some(Target::Link(canonical_href(href))));
    }
    Ok(None)
}

/// A name of lowercase letters, digits and hyphens (an icon or a layout).
fn check_name(text: &str, what: &str) -> Result<(), String> {
    let valid = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{text}` cannot be the name of {what}: names are lowercase letters, digits and hyphens"
        ))
    }
}

/// A picture under `public/`, written from the site root.
fn check_image(text: &str) -> Result<Option<Target>, String> {
    if text.starts_with('/') && !text.starts_with("//") && !text.contains("..") {
        return Ok(Some(Target::Image(text.to_string())));
    }
    Err(format!(
        "`{text}` is not a picture of this site: write the path of a file under public/ from the site root, such as `/images/map.svg`"
    ))
}

/// The links and pictures of Markdown `text`, each at its offset; the first link
/// the link rule refuses is a mistake there.
pub fn markdown_links(text: &str) -> Result<Vec<Found>, Mistake> {
    checked_links(markdown::links(text))
}

/// The links and pictures of a Markdown text that name something of the site, or
/// the first that breaks the link rule.
pub fn checked_links(links: Vec<markdown::Link>) -> Result<Vec<Found>, Mistake> {
    let mut found = Vec::new();
    for link in links {
        if link.image {
            if let Ok(Some(target)) = check_image(&link.url) {
                found.push(Found {
                    target,
                    offset: link.offset,
                });
                continue;
            }
        }
        match check_href(&link.url) {
            Ok(Some(target)) => found.push(Found {
                target,
                offset: link.offset,
            }),
            Ok(None) => {}
            Err(message) => {
                return Err(Mistake {
                    message: format!("in the link to `{}`: {message}", link.url),
                    offset: link.offset,
                })
            }
        }
    }
    Ok(found)
}

/// Declares a checked text value: a `String` newtype that the content reader
/// knows by its serde name, shown to templates as plain text, with a JSON
/// Schema of its own.
macro_rules! checked_text {
    ($(#[$meta:meta])* $name:ident, $serde:literal, $schema:expr) => {
        checked_text!($(#[$meta])* $name, $serde, $schema, |text: String| text);
    };
    ($(#[$meta:meta])* $name:ident, $serde:literal, $schema:expr, $normal:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(Deserialize)]
                #[serde(rename = $serde)]
                struct Written(String);
                let Written(text) = Written::deserialize(d)?;
                Ok($name($normal(text)))
            }
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }

            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed(concat!("site::", stringify!($name)))
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

checked_text!(
    /// A calendar date written `YYYY-MM-DD`.
    Date,
    "site.date",
    json_schema!({
        "type": "string",
        "x-i18n": "share",
        "format": "date",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        "description": "A calendar date written YYYY-MM-DD, for example 2026-11-14."
    })
);

impl Date {
    pub fn naive(&self) -> Option<chrono::NaiveDate> {
        check_date(&self.0).ok()
    }

    /// A date from the calendar, in this form.
    pub fn of(date: chrono::NaiveDate) -> Date {
        Date(date.format("%Y-%m-%d").to_string())
    }
}

checked_text!(
    /// A date and time of day, `YYYY-MM-DD HH:MM`.
    DateTime,
    "site.datetime",
    json_schema!({
        "type": "string",
        "x-i18n": "share",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}$",
        "description": "A date and a time of day on a 24-hour clock, written YYYY-MM-DD HH:MM, for example 2026-12-03 09:30."
    })
);

impl DateTime {
    pub fn naive(&self) -> Option<chrono::NaiveDateTime> {
        check_datetime(&self.0).ok()
    }
}

checked_text!(
    /// The address of the default language's page that a page translates.
    TranslationOf,
    "site.translation",
    json_schema!({
        "type": "string",
        "x-i18n": "own",
        "pattern": "^/",
        "description": "The address of the page in the default language that this page translates, such as /services/cloud/; needed only when the two files have different names."
    }),
    |text: String| check_path(text.trim()).unwrap_or(text)
);

checked_text!(
    /// An address on this site that redirects, e.g. `/old/place/`.
    SitePath,
    "site.path",
    json_schema!({
        "type": "string",
        "x-i18n": "own",
        "pattern": "^/",
        "description": "An address on this site, from its root, such as /services/ai/ (the old address of a page that moved)."
    }),
    |text: String| check_path(text.trim()).unwrap_or(text)
);

checked_text!(
    /// A link: a path on this site, a `#fragment`, or an https, http, mailto or tel URL.
    Href,
    "site.href",
    json_schema!({
        "type": "string",
        "x-i18n": "copy",
        "minLength": 1,
        "pattern": "^(?:(?:https?|mailto|tel):|[^:/?#]*(?:[/?#].*)?$)",
        "description": "A link: a path on this site (/about), a #fragment, or an https:, http:, mailto: or tel: address."
    }),
    // Kept in the form hosts serve without a redirect (`/about` → `/about/`).
    |text: String| canonical_href(text.trim())
);

checked_text!(
    /// An icon: a lucide icon name (lucide.dev/icons) or a file in templates/icons/.
    Icon,
    "site.icon",
    json_schema!({
        "type": "string",
        "x-i18n": "share",
        "pattern": "^[a-z0-9_-]+$",
        "description": "An icon: a lucide icon name (see lucide.dev/icons) or the name of an SVG file in templates/icons/."
    })
);

checked_text!(
    /// A picture under `public/`, written from the site root.
    ImageSrc,
    "site.image",
    json_schema!({
        "type": "string",
        "x-i18n": "copy",
        "pattern": "^/[^/]",
        "description": "A file under public/, written from the site root, such as /images/map.svg."
    })
);

checked_text!(
    /// Markdown text.
    Markdown,
    "site.markdown",
    json_schema!({
        "type": "string",
        "x-i18n": "translate",
        "description": "Markdown: **bold**, *italic*, [links](/about). Links follow the link rule. Raw HTML keeps text markup, lists, tables, pictures, `details` and links (http, https, mailto, tel or a path here), with `id` and `class`; scripts, styles, frames, forms, `style` and `on…` attributes are removed."
    })
);

checked_text!(
    /// A layout: the name of a file in templates/layouts/ without `.html`.
    Layout,
    "site.layout",
    json_schema!({
        "type": "string",
        "x-i18n": "share",
        "pattern": "^[a-z0-9_-]+$",
        "description": "A layout: the name of a file in templates/layouts/ without .html, such as page or article."
    })
);

/// A translation's record of its source: for each translated field of the
/// source (`blocks[2].heading`), a fingerprint of its words when the
/// translation was last checked against it (`staleness.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct TranslatedFrom(pub std::collections::BTreeMap<String, String>);

impl JsonSchema for TranslatedFrom {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("TranslatedFrom")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "x-i18n": "own",
            "additionalProperties": { "type": "string", "pattern": "^[0-9a-f]{8}$" },
            "description": "In a translation: a fingerprint of each translated field of the page it translates, as that page said it when the translation was last checked, e.g. title: 5f3a9c1e. The editor writes it when a translation is saved, `site translations --mark-current` for files translated elsewhere; a field whose words changed since makes the translation stale."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_must_exist_on_the_calendar() {
        assert!(check_date("2026-11-14").is_ok());
        assert!(check_date("2024-02-29").is_ok());
        let e = check_date("2026-02-30").unwrap_err();
        assert!(e.contains("February 2026 has 28 days"), "{e}");
        assert!(check_date("2026-13-01")
            .unwrap_err()
            .contains("no month 13"));
        assert!(check_date("14/11/2026").unwrap_err().contains("YYYY-MM-DD"));
    }

    #[test]
    fn links_are_relative_fragments_or_web_mail_and_phone_addresses() {
        assert_eq!(
            check_href("/about"),
            Ok(Some(Target::Link("/about/".into())))
        );
        for ok in [
            "#faq",
            "https://example.com",
            "http://example.com",
            "mailto:a@b.c",
            "tel:+1",
            "relative/page",
            "//cdn.example.com/x",
        ] {
            assert!(check_href(ok).is_ok(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,<b>",
            "vbscript:x",
            "java\tscript:alert(1)",
            "",
        ] {
            assert!(check_href(bad).is_err(), "{bad:?}");
        }
        assert!(check_href("HTTPS://x").unwrap_err().contains("lowercase"));
    }

    #[test]
    fn markdown_links_follow_the_link_rule_and_are_kept_to_check() {
        let found = check(
            Kind::Markdown,
            "See [us](/about) and ![map](/images/map.svg).",
        )
        .unwrap();
        let targets: Vec<_> = found.iter().map(|f| f.target.clone()).collect();
        assert_eq!(
            targets,
            [
                Target::Link("/about/".into()),
                Target::Image("/images/map.svg".into())
            ]
        );
        assert_eq!(found[0].offset, 4);
        let e = check(Kind::Markdown, "[x](javascript:alert(1))").unwrap_err();
        assert!(e.contains("`javascript:` links are not allowed"), "{e}");
    }

    #[test]
    fn icons_and_layouts_are_names() {
        assert!(check(Kind::Icon, "arrow-right").is_ok());
        assert!(check(Kind::Icon, "Arrow Right").is_err());
        assert!(check(Kind::Image, "images/x.svg").is_err());
    }
}
