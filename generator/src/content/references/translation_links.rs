//! The translations, from the translations index: each `translation_of` leads
//! to a page of the default language, no two pages of a language translate one
//! page, and a language with pages has a home page.

use std::collections::HashSet;

use super::hints::Set;
use super::Checker;
use crate::content::languages::Lang;
use crate::content::values::Target;
use crate::content::yaml;
use crate::content::Content;
use crate::diagnostics::Diagnostic;

impl Checker<'_> {
    /// Every `translation_of` leads to a page of the default language; no two
    /// pages of a language translate the same page; a language with pages has
    /// a home page. What translates what is read from the translations index.
    pub(super) fn languages(&mut self, content: &Content) {
        let mut problems: Vec<(String, yaml::Error)> = Vec::new();
        let languages = content.languages();
        let default = languages.default_language();
        // The default language's pages, listed once a `translation_of` needs them.
        let mut originals: Option<HashSet<&str>> = None;
        for page in &content.pages {
            for r in &page.references {
                let Target::Translation(route) = &r.target else {
                    continue;
                };
                let message = if page.lang.is_default() {
                    Some(format!(
                        "this page is in the default language ({}): only a translation names the page it translates; remove `translation_of`, or name the file with its language (`{}.<code>.{}`)",
                        default.name,
                        page.source.rsplit('/').next().unwrap_or("").split('.').next().unwrap_or(""),
                        page.source.rsplit('.').next().unwrap_or("yaml"),
                    ))
                } else {
                    let originals = originals.get_or_insert_with(|| {
                        content
                            .pages
                            .iter()
                            .filter(|p| p.lang.is_default())
                            .map(|p| p.route.as_str())
                            .collect()
                    });
                    (!originals.contains(route.as_str())).then(|| {
                        let hint =
                            self.places
                                .hints
                                .hint(Set::DefaultLanguage, route, originals);
                        format!(
                            "`{route}` is no page of the default language ({}), so this page translates nothing{hint}",
                            default.name
                        )
                    })
                };
                if let Some(message) = message {
                    problems.push((
                        page.source.clone(),
                        yaml::Error::at(r.span, &r.path, message),
                    ));
                }
            }
        }
        // Two pages of one language in a group: each names the one before it,
        // in the order of the pages.
        let source = |route: &str| {
            content
                .pages
                .binary_search_by(|p| p.route.as_str().cmp(route))
                .map_or_else(|_| route.to_string(), |at| content.pages[at].source.clone())
        };
        let mut twice: Vec<(&str, Diagnostic)> = Vec::new();
        for (key, members) in content.translations.groups() {
            for pair in members.windows(2) {
                let (before, this) = (&pair[0], &pair[1]);
                if before.lang == this.lang && !this.lang.is_default() {
                    twice.push((
                        this.route.as_str(),
                        Diagnostic::new(
                            source(&this.route),
                            format!(
                                "both {} and this page translate {key} into {}: keep one",
                                source(&before.route),
                                languages.language(this.lang).name
                            ),
                        ),
                    ));
                }
            }
        }
        twice.sort_by(|a, b| a.0.cmp(b.0));
        self.findings
            .errors
            .extend(twice.into_iter().map(|(_, d)| d));
        for (file, error) in problems {
            let d = self.sources.diagnostic(&file, &error);
            self.findings.errors.push(d);
        }
        // A language with pages but no home: its address answers 404, and its
        // switcher link from untranslated pages can only lead to the default's.
        let with_pages: HashSet<Lang> = content
            .translations
            .groups()
            .flat_map(|(_, members)| members.iter().map(|m| m.lang))
            .collect();
        for (lang, language) in languages.others() {
            let home = content.translations.route_in("/", lang).is_some();
            if with_pages.contains(&lang) && !home {
                self.findings.warnings.push(
                    Diagnostic::new(
                        format!("content/pages/index.{}.yaml", language.code()),
                        format!(
                            "{} has pages but no home page: until this file is written, {}/ answers 404 and the language switcher leads to the {} home",
                            language.name,
                            languages.prefix(lang),
                            default.name
                        ),
                    )
                    .as_warning(),
                );
            }
        }
        // Translations older than their source: shown, never stopping the build.
        for stale in content.stale.all() {
            if content.pages.iter().any(|p| p.route == stale.route) {
                self.findings
                    .warnings
                    .push(Diagnostic::new(stale.file.clone(), stale.message()).as_warning());
            }
        }
    }
}
