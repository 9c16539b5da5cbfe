//! The Atom feed of a collection, `/<collection>/feed.xml`: its articles, newest
//! first, with their dates, authors, categories, summaries and bodies. Each
//! language has its own (`/de/insights/feed.xml`), of its own articles.

use std::sync::Arc;

use atom_syndication::{Category, Content, Entry, Feed, FixedDateTime, Link, Person, Text};

use crate::content::canonical_url;
use crate::content::languages::{Lang, Language};
use crate::content::{Page, SiteConfig};

/// How many articles a feed holds: the newest.
pub const FEED_ENTRIES: usize = 50;

/// The feed's file name and text, for one collection, or for one of its
/// categories (`/insights/category/cloud/feed.xml`). Pages not published (in a
/// build that shows drafts) are never in a feed.
pub fn feed(
    config: &SiteConfig,
    base_url: &str,
    pages: &[Arc<Page>],
    collection: &str,
    category: Option<&str>,
    (lang, language, prefix, labels): (
        Lang,
        &Language,
        &str,
        &std::collections::BTreeMap<String, String>,
    ),
) -> (String, String) {
    let listed_at = match category {
        Some(c) => format!(
            "/{collection}/category/{}/",
            crate::content::publishing::slug(c)
        ),
        None => format!("/{collection}/"),
    };
    // The listing in the feed's language, else the default language's.
    let own = format!("{prefix}{listed_at}");
    let listing = pages
        .iter()
        .find(|p| p.route == own)
        .or_else(|| pages.iter().find(|p| p.route == listed_at));
    let listing_route = listing.map_or(own.clone(), |p| p.route.clone());
    let mut articles: Vec<&Arc<Page>> = pages
        .iter()
        .filter(|p| {
            p.unpublished.is_none()
                && p.lang == lang
                && p.article.as_ref().is_some_and(|a| {
                    a.collection == collection
                        && category.is_none_or(|c| {
                            crate::content::publishing::slug(&a.category)
                                == crate::content::publishing::slug(c)
                        })
                })
        })
        .collect();
    articles.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.route.cmp(&b.route)));
    // Readers poll a feed for what is new: the newest articles, not the archive.
    articles.truncate(FEED_ENTRIES);
    let day = |page: &Page| -> FixedDateTime {
        page.date
            .as_ref()
            .and_then(|d| d.naive())
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().fixed_offset())
            .unwrap_or_default()
    };
    let feed_path = format!("{own}feed.xml");
    let entries: Vec<Entry> = articles
        .iter()
        .map(|page| {
            let url = canonical_url(base_url, &page.route);
            let article = page.article.as_ref();
            Entry {
                id: url.clone(),
                title: Text::plain(page.title.clone()),
                updated: day(page),
                published: Some(day(page)),
                authors: article
                    .map(|a| {
                        vec![Person {
                            name: a.author.clone(),
                            ..Person::default()
                        }]
                    })
                    .unwrap_or_default(),
                categories: article
                    .map(|a| {
                        vec![Category {
                            term: a.category.clone(),
                            ..Category::default()
                        }]
                    })
                    .unwrap_or_default(),
                links: vec![Link {
                    href: url,
                    rel: "alternate".into(),
                    mime_type: Some("text/html".into()),
                    ..Link::default()
                }],
                summary: Some(Text::plain(page.description.clone())),
                content: Some(Content {
                    value: Some(page.content.to_string()),
                    content_type: Some("html".into()),
                    base: Some(canonical_url(base_url, &page.route)),
                    ..Content::default()
                }),
                ..Entry::default()
            }
        })
        .collect();
    // A listing of another language lends its title as the language's strings
    // translate it (`labels`), and no subtitle.
    let own_language = listing.is_some_and(|p| p.lang == lang);
    let title = listing.map_or_else(|| collection.to_string(), |p| p.title.clone());
    let title = match own_language {
        true => title,
        false => labels
            .get(&format!("{}.{title}", crate::content::strings::LABELS))
            .cloned()
            .unwrap_or(title),
    };
    let feed = Feed {
        id: canonical_url(base_url, &feed_path),
        title: Text::plain(format!("{title} — {}", config.name)),
        subtitle: listing
            .filter(|_| own_language)
            .map(|p| Text::plain(p.description.clone())),
        updated: articles.first().map(|p| day(p)).unwrap_or_default(),
        authors: vec![Person {
            name: config.name.clone(),
            uri: Some(canonical_url(base_url, "/")),
            ..Person::default()
        }],
        links: vec![
            Link {
                href: canonical_url(base_url, &feed_path),
                rel: "self".into(),
                mime_type: Some("application/atom+xml".into()),
                ..Link::default()
            },
            Link {
                href: canonical_url(base_url, &listing_route),
                rel: "alternate".into(),
                mime_type: Some("text/html".into()),
                ..Link::default()
            },
        ],
        lang: Some(language.code().to_string()),
        entries,
        ..Feed::default()
    };
    let xml = feed
        .write_to(Vec::new())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    (feed_path.trim_start_matches('/').to_string(), xml + "\n")
}
