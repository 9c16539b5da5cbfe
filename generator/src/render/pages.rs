//! What templates know about the other pages: the `pages` global (every page's
//! address, title and date), `pages_in(section)` (a section's pages, newest first),
//! a collection's articles (`articles`, `featured_article`, `article_neighbours`)
//! and `nav_active(route)`. Reading either list marks the page being rendered as a
//! listing page, so `site serve` renders it again when a listed title or date
//! changes, and only then.

use std::cell::Cell;
use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr, Value};
use serde::Serialize;

use std::collections::HashMap;

use crate::content::entries::{Event, Job};
use crate::content::languages::{Lang, Languages};
use crate::content::listings::{List, Listings};
use crate::content::publishing::{slug, CollectionKind, Filter, Unpublished};
use crate::content::{Article, Page};

thread_local! {
    /// Whether the render running on this thread read a list of pages.
    static LISTED: Cell<bool> = const { Cell::new(false) };
}

/// Starts tracking for one page's render (each render runs on one thread).
pub fn start_tracking() {
    LISTED.with(|l| l.set(false));
}

/// Whether the render since `start_tracking` read a list of pages.
pub fn listed_pages() -> bool {
    LISTED.with(Cell::get)
}

fn mark_listed() {
    LISTED.with(|l| l.set(true));
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Listed {
    pub route: String,
    /// Its language's code.
    pub lang: String,
    pub title: String,
    pub description: String,
    pub date: Option<String>,
    /// The byline and picture of an article of a collection.
    pub article: Option<Article>,
    /// The times and place of an event (boxed: most pages have none, and every
    /// page has a `Listed`).
    pub event: Option<Box<Event>>,
    /// The location, team and dates of a job posting.
    pub job: Option<Box<Job>>,
    /// Why it is not published yet, in a build that shows it (a badge).
    pub unpublished: Option<Unpublished>,
}

impl Listed {
    /// Whether two versions of a page (at one address) are listed alike.
    pub fn same(a: &Page, b: &Page) -> bool {
        a.lang == b.lang
            && a.title == b.title
            && a.description == b.description
            && a.date == b.date
            && a.article == b.article
            && a.event == b.event
            && a.job == b.job
            && a.unpublished == b.unpublished
    }

    pub fn of(page: &Page, languages: &Languages) -> Listed {
        Listed {
            route: page.route.clone(),
            lang: languages.code(page.lang).to_string(),
            title: page.title.clone(),
            description: page.description.clone(),
            date: page.date.as_ref().map(|d| d.as_str().to_string()),
            article: page.article.clone(),
            event: page.event.clone().map(Box::new),
            job: page.job.clone().map(Box::new),
            unpublished: page.unpublished.clone(),
        }
    }
}

/// Every page newest first, and each collection's listings (made by the
/// publish step), found once per build: an article's neighbours and a page of a
/// listing are then a lookup, however many entries there are.
#[derive(Debug, Default)]
pub struct Listing {
    /// Shared with the `pages` global: one `Listed` per page in the whole build.
    by_date: Vec<Arc<Listed>>,
    /// Each page by its address.
    by_route: HashMap<String, usize>,
    lists: Arc<Listings>,
    /// The article each collection's listing in each language leads with,
    /// found once: templates may ask on every page of a listing.
    featured: HashMap<(String, Lang), String>,
}

impl Listing {
    pub fn new(listed: &[Arc<Listed>], lists: Arc<Listings>) -> Listing {
        let by_date = by_date(listed);
        let by_route: HashMap<String, usize> = by_date
            .iter()
            .enumerate()
            .map(|(i, p)| (p.route.clone(), i))
            .collect();
        let featured = lists
            .lists
            .iter()
            .filter(|l| l.kind == CollectionKind::Articles && l.filter == Filter::All)
            .filter_map(|l| {
                let is_featured = |r: &&String| {
                    by_route
                        .get(*r)
                        .and_then(|&i| by_date[i].article.as_ref())
                        .is_some_and(|a| a.featured)
                };
                // A language's own article leads its list, before one it borrows.
                let own: Vec<&String> = l.own().map(|i| &l.entries[i]).collect();
                let route = own
                    .iter()
                    .copied()
                    .find(is_featured)
                    .or(own.first().copied())
                    .or(l.entries.first())?;
                Some(((l.collection.clone(), l.lang), route.clone()))
            })
            .collect();
        Listing {
            by_date,
            by_route,
            lists,
            featured,
        }
    }

    fn listed(&self, routes: &[String]) -> Vec<Arc<Listed>> {
        routes
            .iter()
            .filter_map(|r| self.by_route.get(r).map(|&i| self.by_date[i].clone()))
            .collect()
    }

    fn page(&self, route: &str) -> Value {
        self.by_route
            .get(route)
            .map_or(Value::from(Option::<bool>::None), |&i| {
                Value::from(minijinja::value::Serde(self.by_date[i].as_ref()))
            })
    }

    /// A collection's entries in its listing's order (an events collection's
    /// upcoming ones), in the listings a page of `lang` shows.
    fn all(&self, collection: &str, lang: Lang) -> &[String] {
        let lang = self.lists.language(collection, lang);
        [Filter::All, Filter::Upcoming]
            .iter()
            .find_map(|f| self.lists.list(collection, f, lang))
            .map_or(&[], |l| l.entries.as_slice())
    }

    /// Page `n` of a list as templates read it: its entries, where it is, and the
    /// links to the others.
    fn page_value(&self, list: &List, n: usize) -> Value {
        let place = list.place(n);
        let url = |k: usize| place.page_url(k);
        // The first, the last and two either side of this one: a listing of
        // thousands of pages links a few of them, not all from each.
        let mut shown: Vec<usize> = [1, place.pages]
            .into_iter()
            .chain(n.saturating_sub(2).max(1)..=(n + 2).min(place.pages))
            .collect();
        shown.sort_unstable();
        shown.dedup();
        let links: Vec<Value> = shown
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                map([
                    ("number", Value::from(k)),
                    ("url", Value::from(url(k))),
                    ("current", Value::from(k == n)),
                    // Pages left out before this one.
                    ("gap", Value::from(i > 0 && shown[i - 1] + 1 < k)),
                ])
            })
            .collect();
        let optional = |k: Option<usize>| k.map_or(Value::from(()), |k| Value::from(url(k)));
        // The collection's index page in the list's language, and its title.
        let name = self.by_route.get(&list.index).map_or_else(
            || list.collection.replace('-', " "),
            |&i| self.by_date[i].title.clone(),
        );
        map([
            ("collection", Value::from(list.collection.clone())),
            (
                "kind",
                Value::from(match list.kind {
                    CollectionKind::Articles => "articles",
                    CollectionKind::Events => "events",
                    CollectionKind::Jobs => "jobs",
                }),
            ),
            ("index", Value::from(list.index.clone())),
            ("name", Value::from(name)),
            ("by", Value::from(list.filter.by())),
            ("value", Value::from(list.filter.value())),
            ("number", Value::from(n)),
            ("pages", Value::from(place.pages)),
            ("total", Value::from(list.entries.len())),
            ("first", Value::from(list.first.clone())),
            (
                "items",
                Value::from_object(PageList(self.listed(list.page(n)))),
            ),
            ("links", Value::from(links)),
            ("prev", optional((n > 1).then(|| n - 1))),
            ("next", optional((n < place.pages).then(|| n + 1))),
        ])
    }
}

/// Page `number` (default 1) of a collection's listing that a page of `lang`
/// shows (its language's, where the collection's index is translated into it,
/// else the default language's): all its entries (an events collection's
/// upcoming ones), or those of `by` (`category`, `past`, `office`, `team`) and
/// `value`. `none` when there is no such listing.
pub fn listing(
    listing: &Listing,
    lang: Lang,
    collection: &str,
    by: Option<&str>,
    value: Option<&str>,
) -> Value {
    mark_listed();
    let value = value.unwrap_or("").to_string();
    let filters = match by.unwrap_or("all") {
        "all" => vec![Filter::All, Filter::Upcoming],
        "upcoming" => vec![Filter::Upcoming],
        "past" => vec![Filter::Past],
        "category" => vec![Filter::Category(value)],
        "office" => vec![Filter::Office(value)],
        "team" => vec![Filter::Team(value)],
        _ => vec![],
    };
    let lang = listing.lists.language(collection, lang);
    filters
        .iter()
        .find_map(|f| listing.lists.list(collection, f, lang))
        .map_or(Value::from(()), |l| listing.page_value(l, 1))
}

/// The listing page at `route`, as `listing` gives it, or `none`.
pub fn listing_at(listing: &Listing, route: &str) -> Value {
    match listing.lists.at(route) {
        Some((list, n)) => {
            mark_listed();
            listing.page_value(list, n)
        }
        None => Value::from(()),
    }
}

/// The listings of a collection filtered `by` one thing (`category`, `office`,
/// `team`) that a page of `lang` shows: each value's name, address and number
/// of entries.
pub fn facets(listing: &Listing, lang: Lang, collection: &str, by: &str) -> Value {
    mark_listed();
    let lang = listing.lists.language(collection, lang);
    listing
        .lists
        .facets(collection, by, lang)
        .into_iter()
        .map(|l| {
            map([
                ("name", Value::from(l.filter.value())),
                ("url", Value::from(l.first.clone())),
                ("count", Value::from(l.entries.len())),
            ])
        })
        .collect()
}

/// The address of the page listing a collection's entries of one category,
/// office or team, among the listings a page of `lang` shows:
/// `/insights/category/cloud/`, `/de/insights/category/strategie/`.
pub fn facet_url(listing: &Listing, lang: Lang, collection: &str, by: &str, value: &str) -> String {
    let index = listing
        .lists
        .index(collection, lang)
        .map_or_else(|| format!("/{collection}/"), str::to_string);
    format!("{index}{by}/{}/", slug(value))
}

/// A collection's articles, in the listing a page of `lang` shows, as a list
/// templates read.
pub fn articles_value(listing: &Listing, lang: Lang, collection: &str) -> Value {
    Value::from_object(PageList(listing.listed(listing.all(collection, lang))))
}

/// The article a collection's listing (the one a page of `lang` shows) leads
/// with: the newest marked `featured`, else the newest.
pub fn featured_article(listing: &Listing, lang: Lang, collection: &str) -> Value {
    mark_listed();
    let lang = listing.lists.language(collection, lang);
    listing
        .featured
        .get(&(collection.to_string(), lang))
        .map_or(Value::from(Option::<bool>::None), |r| listing.page(r))
}

/// The newer and older articles beside `route` among its language's own
/// articles of its collection.
pub fn article_neighbours(listing: &Listing, route: &str) -> Value {
    mark_listed();
    let (newer, older) = listing.lists.neighbours(route);
    let pick = |r: Option<&str>| r.map_or(Value::from(Option::<bool>::None), |r| listing.page(r));
    let around: std::collections::BTreeMap<&str, Value> =
        [("newer", pick(newer)), ("older", pick(older))].into();
    Value::from(around)
}

/// A mapping templates read by key.
fn map<const N: usize>(entries: [(&'static str, Value); N]) -> Value {
    Value::from(std::collections::BTreeMap::from(entries))
}

/// A list of pages that notes when a template reads it.
#[derive(Debug)]
pub struct PageList(pub Vec<Arc<Listed>>);

impl Object for PageList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        mark_listed();
        let listed = self.0.get(key.as_usize()?)?;
        Some(Value::from(minijinja::value::Serde(listed.as_ref())))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        mark_listed();
        Enumerator::Seq(self.0.len())
    }
}

/// The pages below a section, newest first (then by address): a blog's index.
pub fn pages_in(listing: &Listing, section: &str) -> Value {
    let prefix = format!("{}/", section.trim_end_matches('/'));
    let found: Vec<Arc<Listed>> = listing
        .by_date
        .iter()
        .filter(|p| p.route.starts_with(&prefix) && p.route != prefix)
        .cloned()
        .collect();
    Value::from_object(PageList(found))
}

/// Every page newest first, for `pages_in`.
pub fn by_date(listed: &[Arc<Listed>]) -> Vec<Arc<Listed>> {
    let mut sorted = listed.to_vec();
    sorted.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.route.cmp(&b.route)));
    sorted
}

/// The navigation link that `route` belongs to: the exact link, or the longest link
/// that is a parent of it (`/services/cloud/` → `/services/`). Home matches only `/`.
pub fn nav_active(nav: &[String], route: &str) -> String {
    nav.iter()
        .filter(|href| {
            let href = href.as_str();
            route == href || (href != "/" && href.ends_with('/') && route.starts_with(href))
        })
        .max_by_key(|href| href.len())
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_active_navigation_link() {
        let nav: Vec<String> = ["/", "/about/", "/services/", "/contact/"]
            .map(String::from)
            .to_vec();
        assert_eq!(nav_active(&nav, "/"), "/");
        assert_eq!(nav_active(&nav, "/services/"), "/services/");
        assert_eq!(nav_active(&nav, "/services/cloud/"), "/services/");
        assert_eq!(nav_active(&nav, "/servicesx/"), "");
        assert_eq!(nav_active(&nav, "/privacy-policy/"), "");
    }

    #[test]
    fn a_section_lists_its_pages_newest_first() {
        let l = |route: &str, date: Option<&str>| Listed {
            lang: String::new(),
            description: String::new(),
            article: None,
            event: None,
            job: None,
            unpublished: None,
            route: route.into(),
            title: route.into(),
            date: date.map(String::from),
        };
        let listing = Listing::new(
            &[
                l("/posts/", None),
                l("/posts/a/", Some("2024-01-01")),
                l("/posts/b/", Some("2025-01-01")),
                l("/about/", Some("2030-01-01")),
            ]
            .map(Arc::new),
            Default::default(),
        );
        let listed = pages_in(&listing, "/posts");
        let routes: Vec<String> = listed
            .try_iter()
            .unwrap()
            .map(|v| v.get_attr("route").unwrap().to_string())
            .collect();
        assert_eq!(routes, ["/posts/b/", "/posts/a/"]);
    }

    #[test]
    fn reading_a_list_marks_the_render() {
        start_tracking();
        assert!(!listed_pages());
        let list = Value::from_object(PageList(vec![]));
        let _ = list.try_iter().map(|i| i.count());
        assert!(listed_pages());
    }
}
