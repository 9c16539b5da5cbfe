//! What a page knows of the site's other languages: its own (code, name,
//! direction, locale), its translations as `hreflang` alternates (with
//! `x-default`) and the language switcher's links, both read from the
//! translations index the publish step made, and the words of its language
//! (`t`, `label`) and its dates (`date_long`, written by `format.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use minijinja::value::Kwargs;
use minijinja::{Error, ErrorKind, State, Value};
use serde::Serialize;

use crate::content::languages::{Direction, Lang, Languages};
use crate::content::strings::{fill, Strings, LABELS};
use crate::content::{canonical_url, translation_index, Content, Page};

/// What pages know of the site's languages, made once per renderer: each
/// language's view, the words of each, and the translations index the publish
/// step made.
#[derive(Debug)]
pub struct SiteLanguages {
    pub languages: Languages,
    /// Which pages translate which (`content.translations`).
    index: Arc<translation_index::TranslationIndex>,
    base_url: String,
    strings: Strings,
    /// Each language's view and month names' locale, by `Lang`, found once: every
    /// page reads them.
    views: HashMap<Lang, (LanguageView, Option<chrono::Locale>)>,
}

/// The page's language as templates read it (`page.language`).
#[derive(Debug, Clone, Serialize)]
pub struct LanguageView {
    pub code: String,
    pub name: String,
    pub dir: &'static str,
    pub og_locale: String,
    /// Its home page: `/`, `/de/`, or the default's when it has none.
    pub home: String,
    /// What its addresses start with: `` or `/de`.
    pub prefix: String,
}

/// One translation of a page: `<link rel="alternate" hreflang>`.
#[derive(Debug, Clone, Serialize)]
pub struct Alternate {
    pub hreflang: String,
    pub url: String,
    pub og_locale: String,
}

/// One link of the language switcher.
#[derive(Debug, Clone, Serialize)]
pub struct Switch {
    pub code: String,
    pub name: String,
    pub dir: &'static str,
    pub href: String,
    /// The language of what `href` leads to: this one's, or the default
    /// language's when the language has no home page of its own yet.
    pub hreflang: String,
    /// This page is in this language.
    pub current: bool,
    /// The page has a translation in this language (else the link leads home).
    pub translated: bool,
}

/// What a page's context adds for languages, borrowed from the build's views
/// (made once per language, not once per page).
#[derive(Debug, Clone, Serialize)]
pub struct PageLanguages<'a> {
    /// Its language's code (`page.lang`).
    pub lang: &'a str,
    pub language: &'a LanguageView,
    /// Every translation with the page itself; empty when it has none.
    pub alternates: Vec<Alternate>,
    /// The default language's version, for `x-default`.
    pub x_default: Option<String>,
    /// The switcher's links, one per language; empty for a site of one language.
    pub switcher: Vec<Switch>,
}

impl SiteLanguages {
    pub fn new(content: &Content, base_url: &str) -> SiteLanguages {
        let mut translations = SiteLanguages {
            languages: content.languages().clone(),
            index: content.translations.clone(),
            base_url: base_url.to_string(),
            strings: content.strings.clone(),
            views: HashMap::new(),
        };
        translations.views = translations
            .languages
            .each()
            .map(|(lang, language)| {
                let view = LanguageView {
                    code: language.code().to_string(),
                    name: language.name.clone(),
                    dir: dir(language.direction),
                    og_locale: language.og_locale(),
                    home: translations.home(lang),
                    prefix: translations.languages.prefix(lang),
                };
                (lang, (view, language.chrono_locale().ok()))
            })
            .collect();
        translations
    }

    /// A language's view and month names' locale.
    fn view(&self, lang: Lang) -> &(LanguageView, Option<chrono::Locale>) {
        self.views
            .get(&lang)
            .unwrap_or_else(|| &self.views[&Lang::default()])
    }

    /// A language's home page: its own, else the default's.
    fn home(&self, lang: Lang) -> String {
        self.index.route_in("/", lang).unwrap_or("/").to_string()
    }

    pub fn of(&self, page: &Page) -> PageLanguages<'_> {
        self.languages_of(page, true)
    }

    /// What a page that is no address of its own (a 404 page, served at any
    /// address) knows of the languages: no alternates, and a switcher to each
    /// language's home.
    pub fn of_addressless(&self, page: &Page) -> PageLanguages<'_> {
        self.languages_of(page, false)
    }

    fn languages_of(&self, page: &Page, addressed: bool) -> PageLanguages<'_> {
        let lang = page.lang;
        let view = &self.view(lang).0;
        let key = page.translation_key();
        let members = self.index.group(key);
        let translated =
            addressed && members.len() > 1 && members.iter().any(|m| m.route == page.route);
        let alternates = if translated {
            members
                .iter()
                .map(|m| {
                    let (view, _) = self.view(m.lang);
                    Alternate {
                        hreflang: view.code.clone(),
                        url: canonical_url(&self.base_url, &m.route),
                        og_locale: view.og_locale.clone(),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let x_default = translated
            .then(|| self.index.route_in(key, Lang::default()))
            .flatten()
            .map(|route| canonical_url(&self.base_url, route));
        let switcher = if self.languages.many() {
            self.languages
                .each()
                .map(|(l, language)| {
                    let own = if translated || (addressed && l == lang) {
                        self.index
                            .route_in(key, l)
                            .or((l == lang).then_some(page.route.as_str()))
                    } else {
                        None
                    };
                    let href = own.map_or_else(|| self.home(l), str::to_string);
                    let lands_in_its_language =
                        own.is_some() || self.index.route_in("/", l).is_some();
                    Switch {
                        code: language.code().to_string(),
                        name: language.name.clone(),
                        dir: dir(language.direction),
                        hreflang: match lands_in_its_language {
                            true => language.code().to_string(),
                            false => self.languages.default_language().code().to_string(),
                        },
                        href,
                        current: l == lang,
                        translated: own.is_some(),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        PageLanguages {
            lang: &view.code,
            language: view,
            alternates,
            x_default,
            switcher,
        }
    }

    /// The default language's code.
    pub fn default_code(&self) -> &str {
        self.languages.default_language().code()
    }

    /// An address of site.yaml (navigation, footer) on a page of `code`: the
    /// page's translation when there is one.
    pub fn localize(&self, code: &str, href: &str) -> String {
        if code == self.languages.default_language().code() || !href.starts_with('/') {
            return href.to_string();
        }
        let end = href.find(['?', '#']).unwrap_or(href.len());
        let (path, rest) = href.split_at(end);
        match self.index.route_in(path, self.languages.lang(code)) {
            Some(route) => format!("{route}{rest}"),
            None => href.to_string(),
        }
    }

    /// The words of `key` in `code` (else the default language's), with each
    /// `{name}` filled from `args`. With a `count`, a language's plural form of
    /// the key comes first (`key.two` for 2 in Arabic), then `key.other`.
    pub fn text(&self, code: &str, key: &str, args: &[(String, String)]) -> Option<String> {
        let default = self.languages.default_language().code();
        let count = args
            .iter()
            .find(|(name, _)| name == "count")
            .and_then(|(_, v)| v.parse::<u64>().ok());
        for language in [code, default] {
            let words = self.strings.by_language.get(language);
            if let (Some(count), Some(words)) = (count, words) {
                let form = format!("{key}.{}", plural_category(language, count));
                let other = format!("{key}.other");
                if let Some(text) = words.get(&form).or_else(|| words.get(&other)) {
                    return Some(fill(text, args));
                }
            }
            if let Some(text) = words.and_then(|w| w.get(key)) {
                return Some(fill(text, args));
            }
        }
        None
    }

    /// Every text of a language under `section.` (for an island's words).
    pub fn section(&self, code: &str, section: &str) -> std::collections::BTreeMap<String, String> {
        let default = self.languages.default_language().code();
        let prefix = format!("{section}.");
        self.strings
            .all(code, default)
            .into_iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_string(), v)))
            .collect()
    }

    /// A label of site.yaml in `code`.
    pub fn label(&self, code: &str, text: &str) -> String {
        self.strings
            .by_language
            .get(code)
            .and_then(|m| m.get(&format!("{LABELS}.{text}")))
            .cloned()
            .unwrap_or_else(|| text.to_string())
    }
}

/// CLDR's plural category of `count` in a language: `one`, `two`, `few`, …
fn plural_category(code: &str, count: u64) -> &'static str {
    use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
    let category = code
        .parse::<unic_langid::LanguageIdentifier>()
        .ok()
        .and_then(|id| PluralRules::create(id, PluralRuleType::CARDINAL).ok())
        .and_then(|rules| rules.select(count).ok());
    match category {
        Some(PluralCategory::ZERO) => "zero",
        Some(PluralCategory::ONE) => "one",
        Some(PluralCategory::TWO) => "two",
        Some(PluralCategory::FEW) => "few",
        Some(PluralCategory::MANY) => "many",
        _ => "other",
    }
}

/// Whether a language is written in the Arabic script (its web font is then
/// preloaded): Arabic, Persian, Urdu, Pashto, Sorani, Sindhi, Uyghur.
pub fn written_in_arabic(code: &str) -> bool {
    let primary = code.split('-').next().unwrap_or("").to_ascii_lowercase();
    matches!(
        primary.as_str(),
        "ar" | "fa" | "ur" | "ps" | "ckb" | "sd" | "ug"
    )
}

fn dir(direction: Direction) -> &'static str {
    match direction {
        Direction::Ltr => "ltr",
        Direction::Rtl => "rtl",
    }
}

/// The code of the language of the page being rendered (`page.lang`, which
/// the render stage gives every page).
pub fn page_language(translations: &SiteLanguages, state: &State) -> String {
    let code = state
        .lookup("page")
        .and_then(|p| p.get_attr("lang").ok())
        .and_then(|l| l.as_str().map(str::to_string))
        .unwrap_or_default();
    translations.languages.get(&code).code().to_string()
}

/// The language of the page being rendered.
pub fn page_lang(translations: &SiteLanguages, state: &State) -> Lang {
    translations
        .languages
        .lang(&page_language(translations, state))
}

/// `t(key, name=value, …)`: the page's language's words for `key`; `default=`
/// when neither it nor the default language has them.
pub fn t(
    translations: &Arc<SiteLanguages>,
    state: &State,
    key: &str,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let code = page_language(translations, state);
    let mut args: Vec<(String, Value)> = Vec::new();
    let mut fallback: Option<String> = None;
    for name in kwargs.args() {
        let value: Value = kwargs.get(name)?;
        if name == "default" {
            fallback = value
                .as_str()
                .map(str::to_string)
                .or(Some(value.to_string()));
        } else {
            args.push((name.to_string(), value));
        }
    }
    // Markup given for a `{name}` (a link) goes in as markup, and the words
    // around it are escaped here: the result is markup.
    let markup = args.iter().any(|(_, v)| v.is_safe());
    let filled: Vec<(String, String)> = args
        .iter()
        .map(|(name, value)| {
            let text = value.to_string();
            let text = match (markup, value.is_safe()) {
                (true, false) => super::text::escape_attribute(&text),
                _ => text,
            };
            (name.clone(), text)
        })
        .collect();
    // The count picks the plural form; the words are filled in below.
    let count: Vec<(String, String)> = filled
        .iter()
        .filter(|(name, _)| name == "count")
        .cloned()
        .collect();
    let words = translations.text(&code, key, &count).or(fallback);
    match words {
        Some(text) if markup => Ok(Value::from_safe_string(fill(
            &super::text::escape_attribute(&text),
            &filled,
        ))),
        Some(text) => Ok(Value::from(fill(&text, &filled))),
        None => {
            let default = translations.languages.default_language().code();
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("there is no `{key}` in content/strings/{default}.yaml: add it there"),
            ))
        }
    }
}

/// `label(text)`: a label of site.yaml in the page's language.
pub fn label(translations: &Arc<SiteLanguages>, state: &State, text: &str) -> String {
    translations.label(&page_language(translations, state), text)
}

/// `localized_link`: a link of site.yaml (`label`, `href`) in the page's language.
pub fn localized_link(
    translations: &Arc<SiteLanguages>,
    state: &State,
    link: Value,
) -> Result<Value, Error> {
    let code = page_language(translations, state);
    let text = |key: &str| -> Result<String, Error> {
        Ok(link.get_attr(key)?.as_str().unwrap_or_default().to_string())
    };
    let pairs = [
        ("label", translations.label(&code, &text("label")?)),
        ("href", translations.localize(&code, &text("href")?)),
    ];
    Ok(Value::from(std::collections::BTreeMap::from(pairs)))
}

/// `localize(href)`: an address of site.yaml, to the page's language's version.
pub fn localize(translations: &Arc<SiteLanguages>, state: &State, href: &str) -> String {
    translations.localize(&page_language(translations, state), href)
}

/// `words(section)`: every text of a section in the page's language, for an island.
pub fn words(translations: &Arc<SiteLanguages>, state: &State, section: &str) -> Value {
    let code = page_language(translations, state);
    Value::from(translations.section(&code, section))
}

/// `date_long`: a date as the page's language writes it.
pub fn date_long(translations: &Arc<SiteLanguages>, state: &State, value: &str) -> String {
    let lang = translations
        .languages
        .lang(&page_language(translations, state));
    let (_, locale) = translations.view(lang);
    match crate::content::values::check_date(value) {
        Ok(date) => super::format::date(translations.languages.language(lang), date, *locale),
        Err(_) => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::plural_category;

    #[test]
    fn counts_take_the_language_plural_form() {
        assert_eq!(plural_category("en", 1), "one");
        assert_eq!(plural_category("en", 2), "other");
        assert_eq!(plural_category("de", 1), "one");
        let arabic: Vec<&str> = [0, 1, 2, 3, 11, 100]
            .map(|n| plural_category("ar", n))
            .to_vec();
        assert_eq!(arabic, ["zero", "one", "two", "few", "many", "other"]);
    }
}
