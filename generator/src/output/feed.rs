//! The Atom feed of a collection's listing, at the listing's address
//! (`/insights/feed.xml`, `/insights/category/cloud/feed.xml`,
//! `/de/insights/feed.xml`): its newest articles, with their dates, authors,
//! categories, summaries and bodies. A language's feed holds what its listing
//! holds: its own articles, and the default language's it borrows, each
//! marked with its language.

use std::sync::Arc;

use atom_syndication::{Category, Content, Entry, Feed, FixedDateTime, Link, Person, Text};

use crate::content::canonical_url;
use crate::content::languages::Languages;
use crate::content::listings::List;
use crate::content::{Page, SiteConfig};

/// How many articles a feed holds: the newest.
pub const FEED_ENTRIES: usize = 50;

/// The feed's file name and text, for one listing of articles (all of a
/// collection's, or a category's). `pages` are the build's pages, sorted by
/// address. Pages not published (in a build that shows drafts) are never in a
/// feed.
pub fn feed(
    config: &SiteConfig,
    base_url: &str,
    pages: &[Arc<Page>],
    list: &List,
    languages: &Languages,
) -> (String, String) {
    let page = |route: &str| {
        pages
            .binary_search_by(|p| p.route.as_str().cmp(route))
            .ok()
            .map(|at| pages[at].as_ref())
    };
    let language = languages.language(list.lang);
    let listing = page(&list.first);
    // Readers poll a feed for what is new: the newest articles, not the archive.
    let articles: Vec<&Page> = list
        .entries
        .iter()
        .filter_map(|route| page(route))
        .filter(|p| p.unpublished.is_none())
        .take(FEED_ENTRIES)
        .collect();
    let day = |page: &Page| -> FixedDateTime {
        page.date
            .as_ref()
            .and_then(|d| d.naive())
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().fixed_offset())
            .unwrap_or_default()
    };
    let feed_path = format!("{}feed.xml", list.first);
    let entries: Vec<Entry> = articles
        .iter()
        .map(|page| {
            let url = canonical_url(base_url, &page.route);
            let article = page.article.as_ref();
            // An article of another language than the feed's says so.
            let lang = (page.lang != list.lang).then(|| languages.code(page.lang).to_string());
            let text = |value: &str| Text {
                lang: lang.clone(),
                ..Text::plain(value)
            };
            Entry {
                id: url.clone(),
                title: text(&page.title),
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
                    hreflang: lang.clone(),
                    ..Link::default()
                }],
                summary: Some(text(&page.description)),
                content: Some(Content {
                    value: Some(page.content.to_string()),
                    content_type: Some("html".into()),
                    base: Some(canonical_url(base_url, &page.route)),
                    lang: lang.clone(),
                    ..Content::default()
                }),
                ..Entry::default()
            }
        })
        .collect();
    let title = listing.map_or_else(|| list.collection.clone(), |p| p.title.clone());
    let feed = Feed {
        id: canonical_url(base_url, &feed_path),
        title: Text::plain(format!("{title} — {}", config.name)),
        subtitle: listing.map(|p| Text::plain(p.description.clone())),
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
                href: canonical_url(base_url, &list.first),
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
