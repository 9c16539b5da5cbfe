//! Each collection's listings, as the publish step makes them (`publish.rs`): a
//! listing is a collection's entries in its order, all or filtered (a category,
//! the upcoming or past events, an office's or a team's jobs), cut into pages of
//! the collection's `per_page`: the first at `/insights/` (or
//! `/insights/category/cloud/`), the others at `…/page/2/`.

use std::collections::HashMap;

use serde::Serialize;

use super::publishing::{CollectionKind, Filter, ListingPlace};

/// Every listing of the site, and where each of its pages is.
#[derive(Debug, Default)]
pub struct Listings {
    pub lists: Vec<List>,
    /// Each listing page's address: its list and its number.
    at: HashMap<String, (usize, usize)>,
    /// Each list by collection and filter.
    by_filter: HashMap<(String, Filter), usize>,
}

/// One listing: a collection's entries, all or filtered, in order.
#[derive(Debug, Clone, Serialize)]
pub struct List {
    pub collection: String,
    pub kind: CollectionKind,
    pub filter: Filter,
    /// The address of its first page.
    pub first: String,
    /// The entries' addresses, in the listing's order.
    pub entries: Vec<String>,
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
                .insert((list.collection.clone(), list.filter.clone()), i);
            for n in 1..=list.pages() {
                listings.at.insert(list.place(n).page_url(n), (i, n));
            }
        }
        listings.lists = lists;
        listings
    }

    /// The listing page at `route`, and its number.
    pub fn at(&self, route: &str) -> Option<(&List, usize)> {
        self.at.get(route).map(|&(i, n)| (&self.lists[i], n))
    }

    /// A collection's listing: all of its entries (an events collection's
    /// upcoming ones), or those of `filter`.
    pub fn list(&self, collection: &str, filter: &Filter) -> Option<&List> {
        self.by_filter
            .get(&(collection.to_string(), filter.clone()))
            .map(|&i| &self.lists[i])
    }

    /// The lists of a collection filtered one way (`category`, `office`, `team`),
    /// by name.
    pub fn facets(&self, collection: &str, by: &str) -> Vec<&List> {
        let mut found: Vec<&List> = self
            .lists
            .iter()
            .filter(|l| l.collection == collection && l.filter.by() == by)
            .collect();
        found.sort_by(|a, b| a.filter.value().cmp(b.filter.value()));
        found
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
            first: "/insights/".into(),
            entries: (0..n).map(|i| format!("/insights/{i}/")).collect(),
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
}
