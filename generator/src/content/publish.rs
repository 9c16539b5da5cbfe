//! The publish step, between load and references: which pages a build holds back
//! (drafts, scheduled, closed), each collection's listings with the pages that
//! show them (in the default language, and in each language the collection's
//! index page is translated into), every address that redirects, and the
//! translations index of the pages the build has. Pages of a listing that no
//! content file is are made here, with the layout `listing`, in the listing's
//! language and words (`listing.*` of the strings files).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::languages::Lang;
use super::listings::{List, Listings};
use super::load::Content;
use super::page::Page;
use super::publishing::{
    slug, Clock, Collection, CollectionKind, Filter, ListingPlace, Moved, Redirect, Unpublished,
};
use super::strings::{fill, Strings};
use super::translation_index::TranslationIndex;
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
    let lists = {
        // The pages of other languages the build shows, by what they translate:
        // none on a site of one language.
        let translated: HashMap<(&str, Lang), &Page> = content
            .pages
            .iter()
            .filter(|p| !p.lang.is_default() && shown(p))
            .map(|p| ((p.translation_key(), p.lang), p.as_ref()))
            .collect();
        let borrow = content.config.translations.untranslated_entries;
        let mut lists = Vec::new();
        for collection in &content.config.collections {
            let index = format!("/{}/", collection.name);
            let entries: Vec<&Page> = content
                .pages
                .iter()
                .map(|p| p.as_ref())
                .filter(|p| p.collection() == Some(collection.name.as_str()) && shown(p))
                .collect();
            let originals: Vec<&Page> = entries
                .iter()
                .copied()
                .filter(|p| p.lang.is_default())
                .collect();
            lists.extend(lists_of(
                collection,
                (Lang::default(), &index),
                originals.clone(),
                |_| false,
                &now,
            ));
            // Each language the collection's index page is translated into has
            // the collection's lists: its own entries and, where site.yaml says
            // so, the default language's that it has not translated.
            for (lang, _) in content.languages().others() {
                let Some(own_index) = translated.get(&(index.as_str(), lang)) else {
                    continue;
                };
                let untranslated = |p: &&Page| !translated.contains_key(&(p.route.as_str(), lang));
                let mut listed: Vec<&Page> =
                    entries.iter().copied().filter(|p| p.lang == lang).collect();
                if borrow {
                    listed.extend(originals.iter().copied().filter(untranslated));
                }
                lists.extend(lists_of(
                    collection,
                    (lang, &own_index.route),
                    listed,
                    |p| p.lang != lang,
                    &now,
                ));
            }
        }
        lists
    };
    let routes: HashMap<&str, usize> = content
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.route.as_str(), i))
        .collect();
    let counterparts = Counterparts::new(&lists, &content.pages, &routes);
    let mut errors = Vec::new();
    let mut new_pages = Vec::new();
    let mut kept = HashMap::new();
    for (at, list) in lists.iter().enumerate() {
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
                .get(list.index.as_str())
                .map(|&at| content.pages[at].as_ref());
            let words = Words {
                strings: &content.strings,
                code: content.languages().code(list.lang),
                default: content.languages().default_language().code(),
            };
            let mut page = listing_page(index, list, n, &route, &words);
            page.original = counterparts.of(at, n).unwrap_or_default();
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
    content.translations = Arc::new(TranslationIndex::new(&content.pages));
    let redirects = redirects(&content.pages, &content.config.redirects);
    Ok(Published { held, redirects })
}

/// Which page of the default language's listings each page of another
/// language's listing translates: the same page of the same listing (page 2 of
/// `/de/insights/` translates page 2 of `/insights/`), and for a category, an
/// office or a team, the default language's of the entries it lists (the
/// category their originals have). A page of the default language's is
/// translated once per language: a second candidate translates nothing.
struct Counterparts {
    /// By list: the default language's list it translates.
    of: HashMap<usize, usize>,
    lists: Vec<(usize, String)>,
}

/// What tells a list from the others of its kind: a category's, an office's
/// or a team's slug; nothing for the others.
fn valued(filter: &Filter) -> String {
    match filter {
        Filter::All | Filter::Upcoming | Filter::Past => String::new(),
        other => slug(other.value()),
    }
}

impl Counterparts {
    fn new(lists: &[List], pages: &[Arc<Page>], routes: &HashMap<&str, usize>) -> Counterparts {
        let mut counterparts = Counterparts {
            of: HashMap::new(),
            lists: lists.iter().map(|l| (l.pages(), l.first.clone())).collect(),
        };
        if lists.iter().all(|l| l.lang.is_default()) {
            return counterparts;
        }
        // The default language's lists by collection, filter kind and value's slug.
        let defaults: HashMap<(&str, &str, String), usize> = lists
            .iter()
            .enumerate()
            .filter(|(_, l)| l.lang.is_default())
            .map(|(i, l)| ((l.collection.as_str(), l.filter.by(), valued(&l.filter)), i))
            .collect();
        let page = |route: &str| routes.get(route).map(|&at| pages[at].as_ref());
        let mut taken: HashSet<(usize, Lang)> = HashSet::new();
        // A list of the language's own entries first: `Forschung` translates
        // `Research` before a list of borrowed entries written `Research` does.
        let mut candidates: Vec<(usize, &List)> = lists
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.lang.is_default())
            .collect();
        candidates.sort_by_key(|(i, l)| (l.borrowed.len() == l.entries.len(), *i));
        for (i, list) in candidates {
            // The value the default language gives the list's entries: an own
            // entry's original's, a borrowed entry's own.
            let value = |route: &String| -> Option<String> {
                let entry = page(route)?;
                let original = match entry.lang.is_default() {
                    true => entry,
                    false => page(entry.translation_key())?,
                };
                let value = match &list.filter {
                    Filter::Category(_) => original.article.as_ref()?.category.as_str(),
                    Filter::Office(_) => original.job.as_ref()?.location.as_str(),
                    Filter::Team(_) => original.job.as_ref()?.team.as_str(),
                    _ => "",
                };
                Some(slug(value))
            };
            let value = match &list.filter {
                Filter::All | Filter::Upcoming | Filter::Past => Some(String::new()),
                _ => {
                    let values: HashSet<Option<String>> = list.entries.iter().map(value).collect();
                    match values.len() {
                        1 => values.into_iter().next().flatten(),
                        _ => None,
                    }
                }
            };
            let found = value.and_then(|v| {
                defaults
                    .get(&(list.collection.as_str(), list.filter.by(), v))
                    .copied()
            });
            if let Some(default) = found.filter(|&d| taken.insert((d, list.lang))) {
                counterparts.of.insert(i, default);
            }
        }
        counterparts
    }

    /// The address of the page that page `n` of list `at` translates, if any.
    fn of(&self, at: usize, n: usize) -> Option<String> {
        let &default = self.of.get(&at)?;
        let (pages, first) = &self.lists[default];
        (n <= *pages).then(|| ListingPlace::page_of(first, n))
    }
}

/// Each language's 404 page, which its host serves for an address under the
/// language's folder that is no page: `/404.html` for the default language,
/// `/de/404.html` for German, each in its language's words.
pub fn not_found_pages(content: &Content) -> Vec<Page> {
    let languages = content.languages();
    let default = languages.default_language().code();
    languages
        .each()
        .map(|(lang, language)| {
            let words = Words {
                strings: &content.strings,
                code: language.code(),
                default,
            };
            let description = match lang.is_default() {
                true => None,
                false => content
                    .strings
                    .get(language.code(), language.code(), "site.description"),
            };
            Page {
                route: format!("{}/404.html", languages.prefix(lang)),
                source: "templates/404.html".into(),
                title: words.say("not_found.title", &[]),
                description: description
                    .map_or_else(|| content.config.description.clone(), str::to_string),
                lang,
                ..Page::default()
            }
        })
        .collect()
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
        && a.lang == b.lang
        && a.original == b.original
}

/// A collection's listings in one language (`lang`, whose index page is at
/// `index`), each in its order: articles and jobs newest first; events to come
/// soonest first, and past events most recent first. `borrowed` tells the
/// default language's entries a list of another language shows.
fn lists_of(
    collection: &Collection,
    (lang, index): (Lang, &str),
    mut entries: Vec<&Page>,
    borrowed: impl Fn(&Page) -> bool,
    now: &str,
) -> Vec<List> {
    let list = |filter: Filter, first: String, entries: &[&Page]| List {
        collection: collection.name.clone(),
        kind: collection.kind,
        filter,
        lang,
        index: index.to_string(),
        first,
        entries: entries.iter().map(|p| p.route.clone()).collect(),
        borrowed: entries
            .iter()
            .enumerate()
            .filter(|(_, p)| borrowed(p))
            .map(|(i, _)| i)
            .collect(),
        per_page: collection.per_page,
    };
    match collection.kind {
        CollectionKind::Articles | CollectionKind::Jobs => {
            entries.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.route.cmp(&b.route)));
            let mut lists = vec![list(Filter::All, index.to_string(), &entries)];
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
            for (filter, slug, pages) in facets.into_iter().flatten() {
                let first = format!("{index}{}/{slug}/", filter.by());
                lists.push(list(filter, first, &pages));
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
                list(Filter::Upcoming, index.to_string(), &upcoming),
                list(Filter::Past, format!("{index}archive/"), &past),
            ]
        }
    }
}

/// The entries of each value `value_of` gives (a category, an office, a team),
/// in the entries' order, as that value's filter, slug and entries. Two spellings
/// with one slug (`Cloud & AI`, `cloud-ai`) are one list, named as first written.
fn facet<'a>(
    entries: &[&'a Page],
    filter: fn(String) -> Filter,
    value_of: impl Fn(&Page) -> Option<&str>,
) -> Vec<(Filter, String, Vec<&'a Page>)> {
    let mut lists: Vec<(Filter, String, Vec<&Page>)> = Vec::new();
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
        lists[at].2.push(page);
    }
    lists
}

/// The words of a listing's page in its language: the strings file's, else the
/// default language's, else the build's own (a site without strings files).
struct Words<'a> {
    strings: &'a Strings,
    code: &'a str,
    default: &'a str,
}

/// The build's own words for the pages it makes, for a site whose strings
/// files do not have them.
const BUILT_IN: [(&str, &str); 13] = [
    ("not_found.title", "Page not found"),
    ("listing.everything", "Everything in {name}, newest first."),
    ("listing.category_title", "{category} · {name}"),
    (
        "listing.category",
        "Every {name} article about {category}, newest first.",
    ),
    ("listing.past_title", "Past events · {name}"),
    (
        "listing.past",
        "The events we have held, the most recent first.",
    ),
    ("listing.remote_title", "Remote jobs · {name}"),
    (
        "listing.remote",
        "Open positions you can hold from home, newest first.",
    ),
    ("listing.office_title", "Jobs in {office} · {name}"),
    (
        "listing.office",
        "Open positions at our {office} office, newest first.",
    ),
    ("listing.team_title", "{team} jobs · {name}"),
    ("listing.team", "Open positions in {team}, newest first."),
    ("listing.numbered", "{title} · page {number} of {pages}"),
];

impl Words<'_> {
    fn say(&self, key: &str, args: &[(&str, &str)]) -> String {
        let text = self
            .strings
            .get(self.code, self.default, key)
            .or_else(|| BUILT_IN.iter().find(|(k, _)| *k == key).map(|(_, t)| *t))
            .unwrap_or(key);
        fill(text, args)
    }
}

/// The page that shows page `n` of `list`, where no content file is, in the
/// list's language.
fn listing_page(index: Option<&Page>, list: &List, n: usize, route: &str, words: &Words) -> Page {
    let name = index.map_or_else(|| title_case(&list.collection), |p| p.title.clone());
    let name = name.as_str();
    let (title, description) = match &list.filter {
        Filter::All | Filter::Upcoming => (
            name.to_string(),
            index.map_or_else(
                || words.say("listing.everything", &[("name", name)]),
                |p| p.description.clone(),
            ),
        ),
        Filter::Category(c) => {
            let args = [("category", c.as_str()), ("name", name)];
            (
                words.say("listing.category_title", &args),
                words.say("listing.category", &args),
            )
        }
        Filter::Past => (
            words.say("listing.past_title", &[("name", name)]),
            words.say("listing.past", &[]),
        ),
        Filter::Office(o) if o == "Remote" => (
            words.say("listing.remote_title", &[("name", name)]),
            words.say("listing.remote", &[]),
        ),
        Filter::Office(o) => {
            let args = [("office", o.as_str()), ("name", name)];
            (
                words.say("listing.office_title", &args),
                words.say("listing.office", &args),
            )
        }
        Filter::Team(t) => {
            let args = [("team", t.as_str()), ("name", name)];
            (
                words.say("listing.team_title", &args),
                words.say("listing.team", &args),
            )
        }
    };
    let title = match n {
        1 => title,
        _ => words.say(
            "listing.numbered",
            &[
                ("title", title.as_str()),
                ("number", &n.to_string()),
                ("pages", &list.pages().to_string()),
            ],
        ),
    };
    Page {
        route: route.to_string(),
        source: index.map_or_else(|| "content/site.yaml".to_string(), |p| p.source.clone()),
        title,
        description,
        layout: "listing".into(),
        lang: list.lang,
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
