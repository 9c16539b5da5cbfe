//! The languages a site is written in (`languages:` of site.yaml; the first is
//! the default, served at `/`, the others under `/<code>/`): each one's code,
//! checked against the IANA registry, its name, direction, date format, locale
//! and numerals, and which language a content file is in (`about.de.yaml`
//! beside `about.yaml`). The words of each (`strings.rs`) and how it writes dates
//! (`render/format.rs`) live apart.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// One language of the site.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// Its BCP 47 code, as registered with IANA: `en`, `de`, `ar`, `pt-BR`. The
    /// pages of every language but the first are served under `/<code>/`.
    pub code: LanguageCode,
    /// Its name in its own script, as the language switcher shows it: `Deutsch`,
    /// `العربية`.
    pub name: String,
    /// `ltr` (the default) or `rtl` (Arabic, Hebrew, Persian, Urdu): the
    /// direction its pages are laid out in.
    #[serde(default)]
    pub direction: Direction,
    /// How its dates are written, in strftime's words with the language's month
    /// names: `"%B %-d, %Y"` (November 23, 2026), `"%-d. %B %Y"` (23. November
    /// 2026), `"%-d %B %Y"`.
    pub date_format: String,
    /// The locale its month names and `og:locale` come from, such as `de_DE` or
    /// `ar_EG`. Default: the code's own (`de` → `de_DE`), else the first of the
    /// language's that exists.
    #[serde(default)]
    pub locale: Option<String>,
    /// The digits numbers and dates are written with: `latn` (0–9, the default)
    /// or `arab` (٠–٩).
    #[serde(default)]
    pub numerals: Numerals,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Ltr,
    Rtl,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Numerals {
    /// 0123456789
    #[default]
    Latn,
    /// ٠١٢٣٤٥٦٧٨٩ (Arabic-Indic)
    Arab,
}

/// A site without `languages:` is in English.
pub fn default_languages() -> Vec<Language> {
    vec![Language {
        code: LanguageCode::from_checked("en"),
        name: "English".into(),
        direction: Direction::Ltr,
        date_format: "%B %-d, %Y".into(),
        locale: None,
        numerals: Numerals::Latn,
    }]
}

impl Language {
    pub fn code(&self) -> &str {
        self.code.as_str()
    }

    /// The folder of its pages' addresses: `de` for `de`, `pt-br` for `pt-BR`.
    pub fn folder(&self) -> String {
        self.code().to_ascii_lowercase()
    }

    /// The locale of its month names, or why there is none.
    pub fn chrono_locale(&self) -> Result<chrono::Locale, String> {
        if let Some(name) = &self.locale {
            return chrono::Locale::try_from(name.as_str()).map_err(|_| {
                format!("there is no locale `{name}`: write a locale such as de_DE, ar_EG or pt_BR")
            });
        }
        let tag = language_tags::LanguageTag::parse(self.code()).ok();
        let primary = tag
            .as_ref()
            .map_or(self.code(), |t| t.primary_language())
            .to_ascii_lowercase();
        let region = tag.as_ref().and_then(|t| t.region()).map(str::to_uppercase);
        // The code's own region first, then the language's country of the same
        // name (de_DE), then the regions most languages have a locale for.
        let candidates = region.into_iter().chain([primary.to_uppercase()]).chain(
            [
                "US", "GB", "EG", "AE", "SA", "ES", "BR", "PT", "CN", "IN", "IL", "IR",
            ]
            .map(String::from),
        );
        for region in candidates {
            if let Ok(locale) = chrono::Locale::try_from(format!("{primary}_{region}").as_str()) {
                return Ok(locale);
            }
        }
        Err(format!(
            "there are no month names for `{}`: add `locale:` with a locale of the language, such as {primary}_{}",
            self.code(),
            primary.to_uppercase()
        ))
    }

    /// `og:locale`: `en_US`, `de_DE`.
    pub fn og_locale(&self) -> String {
        self.chrono_locale()
            .map(|l| format!("{l:?}"))
            .unwrap_or_else(|_| self.code().replace('-', "_"))
    }

    /// What is wrong with the language's settings besides its code.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if let Err(e) = self.chrono_locale() {
            let field = if self.locale.is_some() {
                "locale"
            } else {
                "code"
            };
            problems.push((field, e));
        }
        let items: Vec<_> = chrono::format::StrftimeItems::new(&self.date_format).collect();
        if items.contains(&chrono::format::Item::Error) {
            problems.push((
                "date_format",
                format!(
                    "`{}` is not a date format: write it with strftime's fields, such as \"%-d. %B %Y\" (%-d the day, %B the month's name, %Y the year)",
                    self.date_format
                ),
            ));
        }
        problems
    }
}

/// A language's BCP 47 code, e.g. `en`, `de`, `ar` or `pt-BR`: a value the
/// content reader knows by its serde name (`site.language`) and checks where it
/// is written ([`check_code`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct LanguageCode(String);

impl<'de> Deserialize<'de> for LanguageCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "site.language")]
        struct Written(String);
        let Written(text) = Written::deserialize(d)?;
        Ok(LanguageCode(text.trim().to_string()))
    }
}

impl LanguageCode {
    /// A code known to be good (the default language's).
    pub fn from_checked(code: &str) -> LanguageCode {
        LanguageCode(code.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LanguageCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl JsonSchema for LanguageCode {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("LanguageCode")
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("site::LanguageCode")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
            "description": "A language's BCP 47 code, as registered with IANA: en, de, ar, pt-BR."
        })
    }
}

/// A language's BCP 47 code, its language one of ISO 639 and its other subtags
/// the IANA registry's; its canonical form, or what is wrong with a suggestion.
pub fn check_code(text: &str) -> Result<String, String> {
    let parsed = language_tags::LanguageTag::parse(text);
    if let Ok(tag) = &parsed {
        // language-tags checks the form and the registry's subtags beyond the
        // first; ISO 639 (isolang) whether the language itself exists.
        let primary = tag.primary_language().to_ascii_lowercase();
        let known = match primary.len() {
            2 => isolang::Language::from_639_1(&primary).is_some(),
            3 => isolang::Language::from_639_3(&primary).is_some(),
            _ => false,
        };
        if known && tag.validate().is_ok() && tag.private_use().is_none() {
            let canonical = tag
                .canonicalize()
                .unwrap_or_else(|_| tag.clone())
                .to_string();
            // One spelling, so file names, addresses and hreflang agree.
            if canonical != text {
                return Err(format!(
                    "write the language code `{canonical}`, as BCP 47 spells it (the language in lowercase, a region in capitals)"
                ));
            }
            return Ok(canonical);
        }
    }
    // A POSIX locale written for a code: `fr_FR` is `fr-FR`.
    if text.contains('_') {
        if let Ok(code) = check_code(&text.replace('_', "-")) {
            return Err(format!(
                "`{text}` is not a language code: BCP 47 joins its parts with a hyphen; did you mean `{code}`?"
            ));
        }
    }
    let lower = text.to_ascii_lowercase();
    let known = isolang::Language::from_639_3(&lower)
        .or_else(|| isolang::Language::from_name_lowercase(&lower))
        .or_else(|| isolang::Language::from_autonym(text))
        .and_then(|l| Some((l.to_639_1()?, l.to_name())));
    let hint = match known {
        Some((code, name)) => format!("; did you mean `{code}` ({name})?"),
        None => {
            let codes: Vec<&str> = isolang::languages().filter_map(|l| l.to_639_1()).collect();
            crate::suggest::did_you_mean(&lower, codes.iter().copied())
        }
    };
    Err(format!(
        "`{text}` is not a language code: write its BCP 47 code, such as en, de, ar or pt-BR{hint}"
    ))
}

/// A page's language: one of the site's, by its place in `languages:`. The
/// first is the default language, and so is `Lang::default()`: a page that
/// names no language (`about.yaml`, a listing's page, the 404 page) is in it.
/// `Languages::of_file` is the one place a file's language is decided.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lang(usize);

impl Lang {
    /// Whether it is the site's default language, served at `/`.
    pub fn is_default(self) -> bool {
        self.0 == 0
    }
}

/// The site's languages, made once per load from `languages:` of site.yaml (or
/// English alone), by code and by the folder of their addresses.
#[derive(Debug, Clone, PartialEq)]
pub struct Languages {
    pub all: Vec<Language>,
}

impl Default for Languages {
    /// The languages of a site without `languages:`: English alone.
    fn default() -> Languages {
        Languages::new(&[])
    }
}

impl Languages {
    pub fn new(all: &[Language]) -> Languages {
        let all = if all.is_empty() {
            default_languages()
        } else {
            all.to_vec()
        };
        Languages { all }
    }

    pub fn default_language(&self) -> &Language {
        &self.all[0]
    }

    /// The language `lang` is.
    pub fn language(&self, lang: Lang) -> &Language {
        self.all.get(lang.0).unwrap_or(&self.all[0])
    }

    /// The code of the language `lang` is: `en`, `de`.
    pub fn code(&self, lang: Lang) -> &str {
        self.language(lang).code()
    }

    /// The `Lang` of `code`, or the default language's when the site has none
    /// of that code.
    pub fn lang(&self, code: &str) -> Lang {
        self.each()
            .find(|(_, l)| l.code() == code)
            .map_or(Lang::default(), |(lang, _)| lang)
    }

    /// The language of `code`, or the default language when the site has none
    /// of that code.
    pub fn get(&self, code: &str) -> &Language {
        self.language(self.lang(code))
    }

    /// Every language with its `Lang`, the default first.
    pub fn each(&self) -> impl Iterator<Item = (Lang, &Language)> {
        self.all.iter().enumerate().map(|(i, l)| (Lang(i), l))
    }

    /// Every language but the default, with its `Lang`.
    pub fn others(&self) -> impl Iterator<Item = (Lang, &Language)> {
        self.each().skip(1)
    }

    /// Whether the site has more than one language.
    pub fn many(&self) -> bool {
        self.all.len() > 1
    }

    /// The prefix of a language's addresses: `` for the default, `/de` for German.
    pub fn prefix(&self, lang: Lang) -> String {
        if lang.is_default() {
            String::new()
        } else {
            format!("/{}", self.language(lang).folder())
        }
    }

    /// The language of an address: the one whose folder it is under, else the default.
    pub fn of_route(&self, route: &str) -> &Language {
        self.all[1..]
            .iter()
            .find(|l| {
                route
                    .strip_prefix('/')
                    .and_then(|r| r.strip_prefix(l.folder().as_str()))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .unwrap_or(&self.all[0])
    }

    /// A content file's language from its name (`about.de.yaml` → `de`), and
    /// its name without it. A suffix that names no language of the site is an
    /// error with a suggestion.
    pub fn of_file<'a>(&self, stem: &'a str) -> Result<(&'a str, Lang), String> {
        let Some((name, suffix)) = stem.rsplit_once('.') else {
            return Ok((stem, Lang::default()));
        };
        if let Some((lang, _)) = self
            .each()
            .find(|(_, l)| l.code().eq_ignore_ascii_case(suffix))
        {
            return Ok((name, lang));
        }
        let codes: Vec<&str> = self.all.iter().map(Language::code).collect();
        let hint = crate::suggest::did_you_mean(suffix, codes.iter().copied());
        Err(format!(
            "`.{suffix}` in the file's name is not a language of the site: `languages:` in site.yaml lists {}{hint}",
            codes.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn language(code: &str, format: &str) -> Language {
        Language {
            code: LanguageCode::from_checked(code),
            name: code.into(),
            direction: Direction::Ltr,
            date_format: format.into(),
            locale: None,
            numerals: Numerals::Latn,
        }
    }

    #[test]
    fn locales_come_from_the_code() {
        assert_eq!(language("de", "%Y").og_locale(), "de_DE");
        assert_eq!(language("en", "%Y").og_locale(), "en_US");
        assert_eq!(language("pt-BR", "%Y").og_locale(), "pt_BR");
        let mut fixed = language("ar", "%Y");
        fixed.locale = Some("ar_EG".into());
        assert_eq!(fixed.og_locale(), "ar_EG");
        fixed.locale = Some("xx_YY".into());
        assert!(fixed.problems()[0].1.contains("no locale `xx_YY`"));
        assert!(language("de", "%Q").problems()[0]
            .1
            .contains("not a date format"));
    }

    #[test]
    fn codes_are_checked_against_the_registry() {
        assert_eq!(check_code("de").unwrap(), "de");
        assert_eq!(check_code("pt-BR").unwrap(), "pt-BR");
        assert!(check_code("deu")
            .unwrap_err()
            .contains("did you mean `de` (German)?"));
        assert!(check_code("German")
            .unwrap_err()
            .contains("did you mean `de`"));
        assert!(check_code("qq").is_err());
        assert!(check_code("FR")
            .unwrap_err()
            .contains("write the language code `fr`"));
        assert!(check_code("fr_FR")
            .unwrap_err()
            .contains("did you mean `fr-FR`?"));
        assert!(check_code("e n").is_err());
    }

    #[test]
    fn a_file_names_its_language() {
        let languages = Languages::new(&[
            language("en", "%Y"),
            language("de", "%Y"),
            language("ar", "%Y"),
        ]);
        assert_eq!(
            languages.of_file("about").unwrap(),
            ("about", Lang::default())
        );
        let (name, de) = languages.of_file("about.de").unwrap();
        assert_eq!((name, languages.code(de)), ("about", "de"));
        assert!(languages
            .of_file("about.fr")
            .unwrap_err()
            .contains("lists en, de, ar"));
        assert_eq!(languages.of_route("/de/about/").code(), "de");
        assert_eq!(languages.of_route("/de/").code(), "de");
        assert_eq!(languages.of_route("/design/").code(), "en");
        assert_eq!(languages.prefix(Lang(2)), "/ar");
        assert_eq!(languages.prefix(Lang::default()), "");
    }
}
