//! The publish step, between load and references: which pages a build holds back
//! (drafts, scheduled, closed), each collection's listings with the pages that
//! show them, every address that redirects, and the translations index of the
//! pages the build has. Pages of a listing that no
//! content file is are made here, with the layout `listing`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::listings::{List, Listings};
use super::load::Content;
use super::page::Page;
use super::publishing::{
    slug, Clock, Collection, CollectionKind, Filter, Moved, Redirect, Unpublished,
};
use super::translations::Translations;
use crate::diagnostics::Diagnostic;

/// A page the build holds back, and why.
#[derive(Debug, Clone)]
pub struct Held {
    pub route: String,
    pub source: String,
    pub why: Unpublished,
}

/// What the publish step found: the pages held back (left out unless the build
/// shows drafts), and the addresses that redirect.
pub struct Published {
    pub held: Vec<Held>,
    /// Every address that redirects, from the built pages' aliases and
    /// `site.yaml`'s `redirects`.
    pub redirects: Vec<Moved>,
}

/// Finds the held pages, makes the listings and the pages that show them, and,
/// unless `drafts`, leaves the held pages out of `content`; then indexes which
/// of the pages left translate which (`content.translations`). `made` keeps the
/// pages made by earlier builds of `site serve`, so an unchanged one is the same
/// `Arc` (and is not rendered again).
pub fn publish(
    content: &mut Content,
    drafts: bool,
    clock: &Clock,
    made: &mut HashMap<String, Arc<Page>>,
) -> Result<Published, Vec<Diagnostic>> {
    let held: Vec<Held> = content
        .pages
        .iter()
        .filter_map(|p| {
            Some(Held {
                route: p.route.clone(),
                source: p.source.clone(),
                why: p.unpublished.clone()?,
            })
        })
        .collect();
    let shown = |p: &Page| drafts || p.unpublished.is_none();
    let now = clock
        .now
        .with_timezone(&chrono::Utc)
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let mut lists = Vec::new();
    // Listings are of the default language's entries; a translated entry is
    // reached from its original's language switcher and its language's feed.
    for collection in &content.config.collections {
        let entries: Vec<&Page> = content
            .pages
            .iter()
            .map(|p| p.as_ref())
            .filter(|p| {
                p.collection() == Some(collection.name.as_str()) && shown(p) && p.lang.is_default()
            })
            .collect();
        lists.extend(lists_of(collection, entries, &now));
    }
    let routes: HashMap<&str, usize> = content
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.route.as_str(), i))
        .collect();
    let mut errors = Vec::new();
    let mut new_pages = Vec::new();
    let mut kept = HashMap::new();
    for list in &lists {
        for n in 1..=list.pages() {
            let route = list.place(n).page_url(n);
            if let Some(&at) = routes.get(route.as_str()) {
                // A collection's own index page is the first page of its listing.
                let first_of_index =
                    n == 1 && matches!(list.filter, Filter::All | Filter::Upcoming);
                if !first_of_index {
                    errors.push(Diagnostic::new(
                        content.pages[at].source.clone(),
                        format!(
                            "this page's address {route} is also page {n} of the {} listing{}: rename the file",
                            list.collection,
                            described(&list.filter)
                        ),
                    ));
                }
                continue;
            }
            let index = routes
                .get(format!("/{}/", list.collection).as_str())
                .map(|&at| content.pages[at].as_ref());
            let page = listing_page(index, list, n, &route);
            let page = match made.remove(&route) {
                Some(before) if same(&before, &page) => before,
                _ => Arc::new(page),
            };
            kept.insert(route, page.clone());
            new_pages.push(page);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    *made = kept;
    content.pages.extend(new_pages);
    if !drafts {
        content.pages.retain(|p| p.unpublished.is_none());
    }
    content
        .pages
        .sort_by(|a, b| a.route.cmp(&b.route).then_with(|| a.source.cmp(&b.source)));
    content.listings = Arc::new(Listings::new(lists));
    content.translations = Arc::new(Translations::new(&content.pages));
    let redirects = redirects(&content.pages, &content.config.redirects);
    Ok(Published { held, redirects })
}

/// Every redirect of the site: each page's aliases (to the page) and
/// `site.yaml`'s `redirects`, sorted by the old address.
fn redirects(pages: &[Arc<Page>], config: &[Redirect]) -> Vec<Moved> {
    let mut all: BTreeMap<String, Moved> = BTreeMap::new();
    for page in pages {
        for alias in &page.aliases {
            all.entry(alias.as_str().to_string()).or_insert(Moved {
                from: alias.as_str().to_string(),
                to: page.route.clone(),
                status: 301,
            });
        }
    }
    for r in config {
        all.entry(r.from.as_str().to_string()).or_insert(Moved {
            from: r.from.as_str().to_string(),
            to: r.to.as_str().to_string(),
            status: r.status.0,
        });
    }
    all.into_values().collect()
}

fn described(filter: &Filter) -> String {
    match filter {
        Filter::All | Filter::Upcoming => String::new(),
        Filter::Past => " (past events)".into(),
        other => format!(" ({} `{}`)", other.by(), other.value()),
    }
}

fn same(a: &Page, b: &Page) -> bool {
    a.route == b.route
        && a.title == b.title
        && a.description == b.description
        && a.layout == b.layout
        && a.source == b.source
}

/// A collection's listings, each in its order: articles and jobs newest first;
/// events to come soonest first, and past events most recent first.
fn lists_of(collection: &Collection, mut entries: Vec<&Page>, now: &str) -> Vec<List> {
    let base = format!("/{}/", collection.name);
    let list = |filter: Filter, first: String, entries: Vec<String>| List {
        collection: collection.name.clone(),
        kind: collection.kind,
        filter,
        first,
        entries,
        per_page: collection.per_page,
    };
    let routes = |pages: &[&Page]| pages.iter().map(|p| p.route.clone()).collect::<Vec<_>>();
    match collection.kind {
        CollectionKind::Articles | CollectionKind::Jobs => {
            entries.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.route.cmp(&b.route)));
            let mut lists = vec![list(Filter::All, base.clone(), routes(&entries))];
            let facets = match collection.kind {
                CollectionKind::Articles => vec![facet(&entries, Filter::Category, |p| {
                    p.article.as_ref().map(|a| a.category.as_str())
                })],
                _ => vec![
                    facet(&entries, Filter::Office, |p| {
                        p.job.as_ref().map(|j| j.location.as_str())
                    }),
                    facet(&entries, Filter::Team, |p| {
                        p.job.as_ref().map(|j| j.team.as_str())
                    }),
                ],
            };
            for (filter, slug, routes) in facets.into_iter().flatten() {
                let first = format!("{base}{}/{slug}/", filter.by());
                lists.push(list(filter, first, routes));
            }
            lists
        }
        CollectionKind::Events => {
            let start = |p: &Page| {
                p.event
                    .as_ref()
                    .map(|e| e.start.clone())
                    .unwrap_or_default()
            };
            let (mut past, mut upcoming): (Vec<&Page>, Vec<&Page>) = entries
                .into_iter()
                .partition(|p| p.event.as_ref().is_some_and(|e| e.end.as_str() < now));
            upcoming.sort_by(|a, b| start(a).cmp(&start(b)).then_with(|| a.route.cmp(&b.route)));
            past.sort_by(|a, b| start(b).cmp(&start(a)).then_with(|| a.route.cmp(&b.route)));
            vec![
                list(Filter::Upcoming, base.clone(), routes(&upcoming)),
                list(Filter::Past, format!("{base}archive/"), routes(&past)),
            ]
        }
    }
}

/// The entries of each value `value_of` gives (a category, an office, a team),
/// in the entries' order, as that value's filter, slug and entries. Two spellings
/// with one slug (`Cloud & AI`, `cloud-ai`) are one list, named as first written.
fn facet(
    entries: &[&Page],
    filter: fn(String) -> Filter,
    value_of: impl Fn(&Page) -> Option<&str>,
) -> Vec<(Filter, String, Vec<String>)> {
    let mut lists: Vec<(Filter, String, Vec<String>)> = Vec::new();
    let mut by_slug: HashMap<String, usize> = HashMap::new();
    for page in entries {
        let Some(value) = value_of(page) else {
            continue;
        };
        let s = slug(value);
        let at = *by_slug.entry(s.clone()).or_insert_with(|| {
            lists.push((filter(value.to_string()), s, Vec::new()));
            lists.len() - 1
        });
        lists[at].2.push(page.route.clone());
    }
    lists
}

/// The page that shows page `n` of `list`, where no content file is.
fn listing_page(index: Option<&Page>, list: &List, n: usize, route: &str) -> Page {
    let name = index.map_or_else(|| title_case(&list.collection), |p| p.title.clone());
    let (title, description) = match (&list.filter, list.kind) {
        (Filter::All | Filter::Upcoming, _) => (
            name.clone(),
            index.map_or_else(
                || format!("Everything in {name}, newest first."),
                |p| p.description.clone(),
            ),
        ),
        (Filter::Category(c), _) => (
            format!("{c} · {name}"),
            format!("Every {name} article about {c}, newest first."),
        ),
        (Filter::Past, _) => (
            format!("Past events · {name}"),
            "The events we have held, the most recent first.".to_string(),
        ),
        (Filter::Office(o), _) if o == "Remote" => (
            format!("Remote jobs · {name}"),
            "Open positions you can hold from home, newest first.".to_string(),
        ),
        (Filter::Office(o), _) => (
            format!("Jobs in {o} · {name}"),
            format!("Open positions at our {o} office, newest first."),
        ),
        (Filter::Team(t), _) => (
            format!("{t} jobs · {name}"),
            format!("Open positions in {t}, newest first."),
        ),
    };
    let title = match n {
        1 => title,
        _ => format!("{title} · page {n} of {}", list.pages()),
    };
    Page {
        route: route.to_string(),
        source: index.map_or_else(|| "content/site.yaml".to_string(), |p| p.source.clone()),
        title,
        description,
        layout: "listing".into(),
        lang: index.map(|p| p.lang).unwrap_or_default(),
        ..Page::default()
    }
}

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| {
            c.to_uppercase()
                .chain(chars)
                .collect::<String>()
                .replace('-', " ")
        })
        .unwrap_or_default()
}
