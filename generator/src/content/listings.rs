//! Each collection's listings, as the publish step makes them (`publish.rs`): a
//! listing is a collection's entries in its order, all or filtered (a category,
//! the upcoming or past events, an office's or a team's jobs), in one language,
//! cut into pages of the collection's `per_page`: the first at `/insights/` (or
//! `/insights/category/cloud/`, `/de/insights/`), the others at `…/page/2/`.
//! A language has listings of a collection where the collection's index page is
//! translated into it; its previous and next articles are its own.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::languages::Lang;
use super::publishing::{CollectionKind, Filter, ListingPlace};

/// Every listing of the site, and where each of its pages is.
#[derive(Debug, Default)]
pub struct Listings {
    pub lists: Vec<List>,
    /// Each listing page's address: its list and its number.
    at: HashMap<String, (usize, usize)>,
    /// Each list by collection, filter and language.
    by_filter: HashMap<(String, Filter, Lang), usize>,
    /// The languages each collection has listings in.
    languages: HashSet<(String, Lang)>,
    /// Each article's place among its language's own articles of its
    /// collection: the list, and the place among the list's own entries.
    neighbours: HashMap<String, (usize, usize)>,
    /// Where each own entry is in a list that borrows entries (by list).
    own: HashMap<usize, Vec<usize>>,
}

/// One listing: a collection's entries in one language, all or filtered, in order.
#[derive(Debug, Clone, Serialize)]
pub struct List {
    pub collection: String,
    pub kind: CollectionKind,
    pub filter: Filter,
    /// The language it lists for: its own entries, and (where site.yaml's
    /// `translations.untranslated_entries` says so) the default language's
    /// entries not translated into it.
    #[serde(skip)]
    pub lang: Lang,
    /// The address of the collection's index page in its language (`/insights/`,
    /// `/de/insights/`).
    pub index: String,
    /// The address of its first page.
    pub first: String,
    /// The entries' addresses, in the listing's order.
    pub entries: Vec<String>,
    /// The places in `entries` of the default language's entries a list of
    /// another language borrows; empty for most lists.
    #[serde(skip)]
    pub borrowed: Vec<usize>,
    pub per_page: usize,
}

impl List {
    /// How many pages it takes: at least one, which says that there is nothing.
    pub fn pages(&self) -> usize {
        self.entries.len().div_ceil(self.per_page).max(1)
    }

    /// The entries of page `n` (from 1).
    pub fn page(&self, n: usize) -> &[String] {
        let start = (n.saturating_sub(1) * self.per_page).min(self.entries.len());
        let end = (start + self.per_page).min(self.entries.len());
        &self.entries[start..end]
    }

    /// The places of its own entries (in its language) in `entries`, in order.
    pub fn own(&self) -> impl Iterator<Item = usize> + '_ {
        let mut borrowed = self.borrowed.iter().peekable();
        (0..self.entries.len()).filter(move |i| {
            let lent = borrowed.peek() == Some(&i);
            if lent {
                borrowed.next();
            }
            !lent
        })
    }

    pub fn place(&self, number: usize) -> ListingPlace {
        ListingPlace {
            collection: self.collection.clone(),
            filter: self.filter.clone(),
            number,
            pages: self.pages(),
            first: self.first.clone(),
        }
    }
}

impl Listings {
    /// The listings `lists`, each page of each found by its address.
    pub fn new(lists: Vec<List>) -> Listings {
        let mut listings = Listings::default();
        for (i, list) in lists.iter().enumerate() {
            listings
                .by_filter
                .insert((list.collection.clone(), list.filter.clone(), list.lang), i);
            listings
                .languages
                .insert((list.collection.clone(), list.lang));
            for n in 1..=list.pages() {
                listings.at.insert(list.place(n).page_url(n), (i, n));
            }
            // An article's neighbours are its language's own articles.
            if list.kind == CollectionKind::Articles && list.filter == Filter::All {
                let own: Vec<usize> = list.own().collect();
                for (at, &entry) in own.iter().enumerate() {
                    listings
                        .neighbours
                        .insert(list.entries[entry].clone(), (i, at));
                }
                if !list.borrowed.is_empty() {
                    listings.own.insert(i, own);
                }
            }
        }
        listings.lists = lists;
        listings
    }

    /// The listing page at `route`, and its number.
    pub fn at(&self, route: &str) -> Option<(&List, usize)> {
        self.at.get(route).map(|&(i, n)| (&self.lists[i], n))
    }

    /// A collection's listing in `lang`: all of its entries (an events
    /// collection's upcoming ones), or those of `filter`.
    pub fn list(&self, collection: &str, filter: &Filter, lang: Lang) -> Option<&List> {
        self.by_filter
            .get(&(collection.to_string(), filter.clone(), lang))
            .map(|&i| &self.lists[i])
    }

    /// The language whose listings of a collection a page of `lang` shows: its
    /// own where the collection's index is translated into it, else the default.
    pub fn language(&self, collection: &str, lang: Lang) -> Lang {
        match self.languages.contains(&(collection.to_string(), lang)) {
            true => lang,
            false => Lang::default(),
        }
    }

    /// The address of a collection's index page that a page of `lang` leads
    /// to: its language's, else the default language's.
    pub fn index(&self, collection: &str, lang: Lang) -> Option<&str> {
        let lang = self.language(collection, lang);
        [Filter::All, Filter::Upcoming]
            .iter()
            .find_map(|f| self.list(collection, f, lang))
            .map(|l| l.index.as_str())
    }

    /// The lists of a collection filtered one way (`category`, `office`, `team`)
    /// in `lang`, by name.
    pub fn facets(&self, collection: &str, by: &str, lang: Lang) -> Vec<&List> {
        let mut found: Vec<&List> = self
            .lists
            .iter()
            .filter(|l| l.collection == collection && l.filter.by() == by && l.lang == lang)
            .collect();
        found.sort_by(|a, b| a.filter.value().cmp(b.filter.value()));
        found
    }

    /// The newer and the older article beside the article at `route`, among
    /// its own language's articles of its collection.
    pub fn neighbours(&self, route: &str) -> (Option<&str>, Option<&str>) {
        let Some(&(list, at)) = self.neighbours.get(route) else {
            return (None, None);
        };
        let entries = &self.lists[list].entries;
        // The place in `entries` of the `k`th own entry.
        let entry = |k: usize| match self.own.get(&list) {
            Some(own) => own.get(k).copied(),
            None => (k < entries.len()).then_some(k),
        };
        let route = |k: Option<usize>| k.and_then(entry).map(|e| entries[e].as_str());
        (route(at.checked_sub(1)), route(Some(at + 1)))
    }
}

impl Filter {
    /// What it filters by: `all`, `category`, `upcoming`, `past`, `office`, `team`.
    pub fn by(&self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Category(_) => "category",
            Filter::Upcoming => "upcoming",
            Filter::Past => "past",
            Filter::Office(_) => "office",
            Filter::Team(_) => "team",
        }
    }

    /// The category, office or team it keeps; empty for the others.
    pub fn value(&self) -> &str {
        match self {
            Filter::Category(v) | Filter::Office(v) | Filter::Team(v) => v,
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize, per_page: usize) -> List {
        List {
            collection: "insights".into(),
            kind: CollectionKind::Articles,
            filter: Filter::All,
            lang: Lang::default(),
            index: "/insights/".into(),
            first: "/insights/".into(),
            entries: (0..n).map(|i| format!("/insights/{i}/")).collect(),
            borrowed: Vec::new(),
            per_page,
        }
    }

    #[test]
    fn a_listing_is_cut_into_pages_of_its_size() {
        assert_eq!(list(0, 12).pages(), 1);
        assert_eq!(list(12, 12).pages(), 1);
        assert_eq!(list(13, 12).pages(), 2);
        let l = list(13, 12);
        assert_eq!(l.page(1).len(), 12);
        assert_eq!(l.page(2), ["/insights/12/"]);
        assert!(l.page(3).is_empty());
        assert_eq!(l.place(2).page_url(2), "/insights/page/2/");
        assert_eq!(l.place(1).page_url(1), "/insights/");
    }

    #[test]
    fn an_article_s_neighbours_are_of_its_own_language() {
        let mut german = list(5, 12);
        // Entries 1 and 3 are the default language's, borrowed.
        german.borrowed = vec![1, 3];
        assert_eq!(german.own().collect::<Vec<_>>(), [0, 2, 4]);
        let listings = Listings::new(vec![german]);
        assert_eq!(
            listings.neighbours("/insights/2/"),
            (Some("/insights/0/"), Some("/insights/4/"))
        );
        assert_eq!(
            listings.neighbours("/insights/0/"),
            (None, Some("/insights/2/"))
        );
        assert_eq!(
            listings.neighbours("/insights/4/"),
            (Some("/insights/2/"), None)
        );
        // A borrowed entry's neighbours are those of its own language's list.
        assert_eq!(listings.neighbours("/insights/1/"), (None, None));
    }
}
