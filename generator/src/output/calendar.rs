//! Each event's calendar file (`/events/summit.ics` beside `/events/summit/`),
//! written with icalendar: a visitor adds the event to their calendar with one
//! click, in UTC so every calendar shows it in the reader's own zone.

use std::sync::Arc;

use icalendar::{Calendar, Component, EventLike};

use crate::content::entries::Place;
use crate::content::{Page, SiteConfig};
use crate::render::canonical_url;

/// The calendar file of every event page: (file, text).
pub fn files(config: &SiteConfig, base_url: &str, pages: &[Arc<Page>]) -> Vec<(String, String)> {
    pages
        .iter()
        .filter_map(|page| {
            let event = page.event.as_ref()?;
            Some((
                event.calendar.trim_start_matches('/').to_string(),
                calendar(config, base_url, page, event),
            ))
        })
        .collect()
}

fn calendar(
    config: &SiteConfig,
    base_url: &str,
    page: &Page,
    event: &crate::content::entries::Event,
) -> String {
    let utc = |t: &str| {
        chrono::DateTime::parse_from_rfc3339(t)
            .map(|t| t.with_timezone(&chrono::Utc))
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
        // The same file for the same event, build after build.
        .timestamp(utc(&event.start))
        .summary(&page.title)
        .description(&description)
        .starts(utc(&event.start))
        .ends(utc(&event.end))
        .location(&location)
        .url(&url)
        .done();
    Calendar::new()
        .name(&format!("{}: {}", config.name, page.title))
        .push(entry)
        .done()
        .to_string()
}
