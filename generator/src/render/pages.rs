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
    pub title: String,
    pub description: String,
    pub date: Option<String>,
    /// The byline and picture of an article of a collection.
    pub article: Option<Article>,
}

impl Listed {
    pub fn of(page: &Page) -> Listed {
        Listed {
            route: page.route.clone(),
            title: page.title.clone(),
            description: page.description.clone(),
            date: page.date.as_ref().map(|d| d.as_str().to_string()),
            article: page.article.clone(),
        }
    }
}

/// Every page newest first, and each collection's articles, found once per build:
/// an article's neighbours and a collection's list are then a lookup, however
/// many articles there are.
#[derive(Debug, Default)]
pub struct Listing {
    by_date: Vec<Listed>,
    /// Each collection's articles, newest first.
    collections: std::collections::HashMap<String, Arc<Vec<Listed>>>,
    /// Each article's collection and place in it.
    articles: std::collections::HashMap<String, (String, usize)>,
}

impl Listing {
    pub fn new(listed: &[Listed]) -> Listing {
        let by_date = by_date(listed);
        let mut collections: std::collections::HashMap<String, Vec<Listed>> = Default::default();
        for p in &by_date {
            if let Some(article) = &p.article {
                collections
                    .entry(article.collection.clone())
                    .or_default()
                    .push(p.clone());
            }
        }
        let articles = collections
            .iter()
            .flat_map(|(collection, list)| {
                list.iter()
                    .enumerate()
                    .map(move |(i, p)| (p.route.clone(), (collection.clone(), i)))
            })
            .collect();
        Listing {
            by_date,
            collections: collections
                .into_iter()
                .map(|(c, list)| (c, Arc::new(list)))
                .collect(),
            articles,
        }
    }

    /// A collection's articles, newest first.
    fn articles(&self, collection: &str) -> &[Listed] {
        self.collections
            .get(collection)
            .map_or(&[], |l| l.as_slice())
    }
}

/// A collection's articles as a list templates read.
pub fn articles_value(listing: &Listing, collection: &str) -> Value {
    Value::from_object(PageList(listing.articles(collection).to_vec()))
}

/// The article a collection's listing leads with: the newest marked `featured`,
/// else the newest.
pub fn featured_article(listing: &Listing, collection: &str) -> Value {
    mark_listed();
    let all = listing.articles(collection);
    let featured = all
        .iter()
        .find(|p| p.article.as_ref().is_some_and(|a| a.featured))
        .or_else(|| all.first());
    featured.map_or(Value::from(Option::<bool>::None), |p| {
        Value::from(minijinja::value::Serde(p.clone()))
    })
}

/// The newer and older articles beside `route` in its collection.
pub fn article_neighbours(listing: &Listing, route: &str) -> Value {
    mark_listed();
    let (all, at) = match listing.articles.get(route) {
        Some((collection, i)) => (listing.articles(collection), Some(*i)),
        None => (&[][..], None),
    };
    let pick = |i: Option<usize>| {
        i.and_then(|i| all.get(i))
            .map_or(Value::from(Option::<bool>::None), |p| {
                Value::from(minijinja::value::Serde(p.clone()))
            })
    };
    let around: std::collections::BTreeMap<&str, Value> = [
        ("newer", pick(at.and_then(|i| i.checked_sub(1)))),
        ("older", pick(at.map(|i| i + 1))),
    ]
    .into();
    Value::from(around)
}

/// A list of pages that notes when a template reads it.
#[derive(Debug)]
pub struct PageList(pub Vec<Listed>);

impl Object for PageList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        mark_listed();
        let listed = self.0.get(key.as_usize()?)?;
        Some(Value::from(minijinja::value::Serde(listed)))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        mark_listed();
        Enumerator::Seq(self.0.len())
    }
}

/// The pages below a section, newest first (then by address): a blog's index.
pub fn pages_in(listing: &Listing, section: &str) -> Value {
    let prefix = format!("{}/", section.trim_end_matches('/'));
    let found: Vec<Listed> = listing
        .by_date
        .iter()
        .filter(|p| p.route.starts_with(&prefix) && p.route != prefix)
        .cloned()
        .collect();
    Value::from_object(PageList(found))
}

/// Every page newest first, for `pages_in`.
pub fn by_date(listed: &[Listed]) -> Vec<Listed> {
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
            description: String::new(),
            article: None,
            route: route.into(),
            title: route.into(),
            date: date.map(String::from),
        };
        let listing = Listing::new(&[
            l("/posts/", None),
            l("/posts/a/", Some("2024-01-01")),
            l("/posts/b/", Some("2025-01-01")),
            l("/about/", Some("2030-01-01")),
        ]);
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
