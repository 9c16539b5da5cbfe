//! The suggestions for a link to no page: the site's addresses indexed once per
//! set they may be meant from, and the hint for each link, kept by `site serve`
//! while the addresses stay the same.

use std::collections::HashSet;

use crate::content::Page;
use crate::suggest;

/// The addresses of the site, indexed for suggestions, and the hint given for
/// each link to no page: for every page's address, the default language's
/// pages, and pages with those held back (each set indexed when first needed).
#[derive(Default)]
pub struct RouteHints(std::sync::Mutex<std::collections::HashMap<Set, Hints>>);

/// Which addresses a link may be meant for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Set {
    Pages,
    DefaultLanguage,
    WithHeld,
}

struct Hints {
    index: suggest::Index,
    hints: std::collections::HashMap<String, String>,
}

impl RouteHints {
    /// Whether two versions of a page (at one address) leave every set alike.
    pub fn same(a: &Page, b: &Page) -> bool {
        a.lang == b.lang && a.unpublished.is_some() == b.unpublished.is_some()
    }

    /// `; did you mean …?` for a link to no page of `set` (`routes`), or nothing.
    pub(super) fn hint(&self, set: Set, path: &str, routes: &HashSet<&str>) -> String {
        let mut sets = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let hints = sets.entry(set).or_insert_with(|| {
            // Sorted, so a tie always gives the same suggestion.
            let mut names: Vec<&str> = routes.iter().copied().collect();
            names.sort_unstable();
            Hints {
                index: suggest::Index::new(names),
                hints: Default::default(),
            }
        });
        if let Some(hint) = hints.hints.get(path) {
            return hint.clone();
        }
        if hints.hints.len() >= SUGGESTED_LINKS {
            return String::new();
        }
        let hint = hints.index.did_you_mean(path);
        hints.hints.insert(path.to_string(), hint.clone());
        hint
    }
}

/// At most this many different links to no page get a suggestion: each measures
/// every address of the site, and a site whose links all lead nowhere would
/// otherwise cost the square of its size.
const SUGGESTED_LINKS: usize = 200;
