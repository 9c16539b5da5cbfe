//! Which pages translate which: the translations index, made once per build by
//! the publish step from the pages the build has. Pages are grouped by their
//! translation key, the address of the default language's page they translate
//! (its own, for a page of the default language). A group is kept only when it
//! has a page in another language than the default, so a site of one language
//! has no group and pays nothing for it. Templates, feeds, the sitemap and the
//! references stage all read this one index.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::languages::Lang;
use super::page::Page;

/// One page of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub lang: Lang,
    pub route: String,
    /// Published on the build's day; a build that shows drafts has others.
    pub published: bool,
}

/// The pages of each translation key that has a translation.
#[derive(Debug, Default)]
pub struct TranslationIndex {
    /// By translation key: the group's pages in the order of `languages:`, two
    /// of one language (a mistake the references stage reports) in the order of
    /// their addresses.
    groups: BTreeMap<String, Vec<Member>>,
    /// The translation key of each page of another language, by its address.
    keys: HashMap<String, String>,
}

impl TranslationIndex {
    /// The index of `pages`, which are sorted by address.
    pub fn new(pages: &[Arc<Page>]) -> TranslationIndex {
        let member = |page: &Page| Member {
            lang: page.lang,
            route: page.route.clone(),
            published: page.unpublished.is_none(),
        };
        let mut groups: BTreeMap<String, Vec<Member>> = BTreeMap::new();
        let mut keys = HashMap::new();
        for page in pages.iter().filter(|p| !p.lang.is_default()) {
            groups
                .entry(page.translation_key().to_string())
                .or_default()
                .push(member(page));
            keys.insert(page.route.clone(), page.translation_key().to_string());
        }
        if groups.is_empty() {
            return TranslationIndex::default();
        }
        for page in pages.iter().filter(|p| p.lang.is_default()) {
            if let Some(members) = groups.get_mut(page.translation_key()) {
                members.push(member(page));
            }
        }
        // A stable sort: pages of one language stay in the order of their addresses.
        for members in groups.values_mut() {
            members.sort_by_key(|m| m.lang);
        }
        TranslationIndex { groups, keys }
    }

    /// The pages of `key`'s group, the page of that address among them; empty
    /// when no page of another language translates it.
    pub fn group(&self, key: &str) -> &[Member] {
        self.groups.get(key).map_or(&[], Vec::as_slice)
    }

    /// The page of `key`'s group in `lang`.
    pub fn route_in(&self, key: &str, lang: Lang) -> Option<&str> {
        self.group(key)
            .iter()
            .find(|m| m.lang == lang)
            .map(|m| m.route.as_str())
    }

    /// Every group, by translation key in order.
    pub fn groups(&self) -> impl Iterator<Item = (&str, &[Member])> {
        self.groups.iter().map(|(k, m)| (k.as_str(), m.as_slice()))
    }

    /// The address of the page that the page at `route` translates, when it is
    /// of another language than the default.
    pub fn original(&self, route: &str) -> Option<&str> {
        self.keys.get(route).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::languages::{Language, Languages};

    fn page(route: &str, lang: Lang, key: &str) -> Arc<Page> {
        Arc::new(Page {
            route: route.into(),
            lang,
            original: if key == route {
                String::new()
            } else {
                key.into()
            },
            ..Page::default()
        })
    }

    #[test]
    fn a_site_of_one_language_has_no_group() {
        let pages = [
            page("/", Lang::default(), "/"),
            page("/about/", Lang::default(), "/about/"),
        ];
        let index = TranslationIndex::new(&pages);
        assert_eq!(index.groups().count(), 0);
        assert!(index.group("/about/").is_empty());
    }

    #[test]
    fn translations_are_grouped_by_the_page_they_translate_in_the_order_of_the_languages() {
        let mut all: Vec<Language> = Languages::default().all;
        for code in ["de", "ar"] {
            let mut l = all[0].clone();
            l.code = crate::content::languages::LanguageCode::from_checked(code);
            all.push(l);
        }
        let languages = Languages::new(&all);
        let (_, de) = languages.of_file("x.de").unwrap();
        let (_, ar) = languages.of_file("x.ar").unwrap();
        let pages = [
            page("/about/", Lang::default(), "/about/"),
            page("/ar/about/", ar, "/about/"),
            page("/contact/", Lang::default(), "/contact/"),
            page("/de/uber-uns/", de, "/about/"),
        ];
        let index = TranslationIndex::new(&pages);
        let routes: Vec<&str> = index
            .group("/about/")
            .iter()
            .map(|m| m.route.as_str())
            .collect();
        assert_eq!(routes, ["/about/", "/de/uber-uns/", "/ar/about/"]);
        assert_eq!(index.route_in("/about/", de), Some("/de/uber-uns/"));
        assert!(index.group("/contact/").is_empty());
        assert_eq!(index.original("/de/uber-uns/"), Some("/about/"));
        assert_eq!(index.original("/about/"), None);
    }
}
