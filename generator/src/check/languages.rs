//! Languages in a built site: the translations a page names (`hreflang`) lead
//! to pages that name it back, and how far each language is translated
//! (`site check`'s coverage, from the content).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::html_page::Page;

/// How far each language but the default is translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub code: String,
    pub name: String,
    /// Pages of the default language with a translation into it.
    pub translated: usize,
    /// Pages of the default language without one.
    pub missing: Vec<String>,
    /// Its strings file, and the keys it lacks.
    pub strings_file: String,
    pub missing_strings: Vec<String>,
    /// Its translations older than their source, by file.
    pub stale: Vec<crate::content::staleness::Stale>,
}

/// Each language's coverage, from the site's content; `None` when the content
/// does not load (`site build` says why).
pub fn coverage(root: &Path) -> Option<Vec<Coverage>> {
    let content = crate::content::load(root).ok()?;
    let languages = content.languages();
    let originals: Vec<&crate::content::Page> = content
        .pages
        .iter()
        .filter(|p| p.lang.is_default())
        .map(|p| p.as_ref())
        .collect();
    Some(
        languages
            .others()
            .map(|(lang, l)| {
                let done: HashSet<&str> = content
                    .pages
                    .iter()
                    .filter(|p| p.lang == lang)
                    .map(|p| p.translation_key())
                    .collect();
                let (translated, missing): (
                    Vec<&&crate::content::Page>,
                    Vec<&&crate::content::Page>,
                ) = originals
                    .iter()
                    .partition(|p| done.contains(p.route.as_str()));
                Coverage {
                    code: l.code().to_string(),
                    name: l.name.clone(),
                    translated: translated.len(),
                    missing: missing.iter().map(|p| p.route.clone()).collect(),
                    strings_file: format!("content/strings/{}.yaml", l.code()),
                    stale: content
                        .stale
                        .all()
                        .into_iter()
                        .filter(|s| content.languages().of_route(&s.route).code() == l.code())
                        .cloned()
                        .collect(),
                    missing_strings: content
                        .missing_strings
                        .get(l.code())
                        .cloned()
                        .unwrap_or_default(),
                }
            })
            .collect(),
    )
}

/// Every page's translations lead to pages that name it back, in its own
/// language, and name themselves (Google ignores alternates that are not
/// reciprocal).
pub(super) fn check_alternates(
    pages: &BTreeMap<String, Page>,
    found: &mut impl FnMut(&str, String),
) {
    let by_url: std::collections::HashMap<&str, &Page> = pages
        .values()
        .filter_map(|p| Some((p.canonical.as_deref()?, p)))
        .collect();
    for (addr, page) in pages.iter().filter(|(_, p)| !p.alternates.is_empty()) {
        let Some(own) = page.canonical.as_deref() else {
            found(
                addr,
                "names translations (hreflang) but has no canonical address".into(),
            );
            continue;
        };
        if !page
            .alternates
            .iter()
            .any(|(l, u)| *l == page.lang && u == own)
        {
            found(
                addr,
                format!(
                    "its hreflang alternates do not name the page itself (hreflang=\"{}\" {own})",
                    page.lang
                ),
            );
        }
        if !page.alternates.iter().any(|(l, _)| l == "x-default") {
            found(addr, "its hreflang alternates have no x-default".into());
        }
        for (lang, url) in page.alternates.iter().filter(|(l, _)| l != "x-default") {
            match by_url.get(url.as_str()) {
                None => found(
                    addr,
                    format!("the hreflang=\"{lang}\" alternate {url} is no page of this build"),
                ),
                Some(other) if other.lang != *lang => found(
                    addr,
                    format!(
                        "the hreflang=\"{lang}\" alternate {url} is in `{}`",
                        other.lang
                    ),
                ),
                Some(other)
                    if !other
                        .alternates
                        .iter()
                        .any(|(l, u)| *l == page.lang && u == own) =>
                {
                    found(
                        addr,
                        format!(
                            "the hreflang=\"{lang}\" alternate {url} does not name this page back"
                        ),
                    )
                }
                Some(_) => {}
            }
        }
    }
}
