//! Each event's calendar file (`/events/summit.ics` beside `/events/summit/`),
//! written with icalendar: a visitor adds the event to their calendar with one
//! click, in UTC so every calendar shows it in the reader's own zone.
//!
//! PRODID names the site that made the file (RFC 5545 §3.7.3), as
//! `-//Meridian Digital//www.meridiandigital.com//EN`. DTSTAMP, when the file was
//! made, is the build's time: `SOURCE_DATE_EPOCH` when set, so a reproducible
//! build writes the same bytes, else the clock.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use icalendar::{Calendar, Component, EventLike};

use crate::content::canonical_url;
use crate::content::entries::Place;
use crate::content::{Page, SiteConfig};

/// The calendar file of every event page: (file, text), stamped `built`.
pub fn files(
    config: &SiteConfig,
    base_url: &str,
    pages: &[Arc<Page>],
    built: DateTime<Utc>,
) -> Vec<(String, String)> {
    pages
        .iter()
        .filter_map(|page| {
            let event = page.event.as_ref()?;
            Some((
                event.calendar.trim_start_matches('/').to_string(),
                calendar(config, base_url, page, event, built),
            ))
        })
        .collect()
}

fn calendar(
    config: &SiteConfig,
    base_url: &str,
    page: &Page,
    event: &crate::content::entries::Event,
    built: DateTime<Utc>,
) -> String {
    let utc = |t: &str| {
        chrono::DateTime::parse_from_rfc3339(t)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default()
    };
    let url = canonical_url(base_url, &page.route);
    let host = base_url
        .split("://")
        .nth(1)
        .unwrap_or(base_url)
        .trim_end_matches('/');
    let location = match &event.place {
        Place::Online(_) => format!("Online: {}", event.registration),
        Place::Venue(v) => format!("{}, {}, {}, {}", v.name, v.street, v.city, v.country),
    };
    let description = format!(
        "{}\n\nRegister: {}\nDetails: {url}",
        page.description, event.registration
    );
    let entry = icalendar::Event::new()
        .uid(&format!(
            "{}@{host}",
            page.route.trim_matches('/').replace('/', "-")
        ))
        .timestamp(built)
        .summary(&page.title)
        .description(&description)
        .starts(utc(&event.start))
        .ends(utc(&event.end))
        .location(&location)
        .url(&url)
        .done();
    Calendar::empty()
        .append_property(("VERSION", "2.0"))
        .append_property(("PRODID", format!("-//{}//{host}//EN", config.name).as_str()))
        .append_property(("CALSCALE", "GREGORIAN"))
        .name(&format!("{}: {}", config.name, page.title))
        .push(entry)
        .done()
        .to_string()
}
