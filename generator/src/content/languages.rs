//! The languages a site is written in (`languages:` of site.yaml; the first is
//! the default, served at `/`, the others under `/<code>/`), which language a
//! content file is in (`about.de.yaml` beside `about.yaml`), how each writes
//! dates, and the words that belong to no page (`content/strings/<code>.yaml`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::values::LanguageCode;
use super::yaml::{self, Kind, Node};
use crate::diagnostics::Diagnostic;

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

    /// A date as the language writes it.
    pub fn date(&self, date: chrono::NaiveDate) -> String {
        self.date_in(date, self.chrono_locale().ok())
    }

    /// A date as the language writes it, its locale found once by the caller.
    pub fn date_in(&self, date: chrono::NaiveDate, locale: Option<chrono::Locale>) -> String {
        let text = match locale {
            Some(locale) => date.format_localized(&self.date_format, locale).to_string(),
            None => date.format(&self.date_format).to_string(),
        };
        self.digits(&text)
    }

    /// Text with its digits in the language's numerals.
    pub fn digits(&self, text: &str) -> String {
        match self.numerals {
            Numerals::Latn => text.to_string(),
            Numerals::Arab => text
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) if c.is_ascii_digit() => char::from_u32(0x0660 + d).unwrap_or(c),
                    _ => c,
                })
                .collect(),
        }
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

/// The languages `site.yaml` lists, each read on its own: those that read, and
/// what is wrong with the list besides what reading says (a language listed
/// twice, a locale or date format that is none), each at its line. Used
/// whether or not the rest of site.yaml reads, so a run reports all of it.
pub fn read_list(site: &Node) -> (Vec<Language>, Vec<yaml::Error>) {
    let Some(Kind::Seq(items)) = site.get("languages").map(|n| &n.kind) else {
        return (Vec::new(), Vec::new());
    };
    let mut languages = Vec::new();
    let mut errors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let path = yaml::index_path("languages", i);
        let Ok(language) = yaml::from_node::<Language>(item, &path) else {
            continue;
        };
        let span = item.get("code").map_or(item.span, |n| n.span);
        let lower = language.code().to_ascii_lowercase();
        if let Some(first) = seen.get(&lower) {
            errors.push(yaml::Error::at(
                span,
                &format!("{path}.code"),
                format!(
                    "`{}` is listed twice (also languages[{first}]): list each language once",
                    language.code()
                ),
            ));
            continue;
        }
        seen.insert(lower, i);
        for (field, message) in language.problems() {
            let at = item.get(field).map_or(span, |n| n.span);
            errors.push(yaml::Error::at(at, &format!("{path}.{field}"), message));
        }
        languages.push(language);
    }
    (languages, errors)
}

/// The site's languages, by code and by the folder of their addresses.
#[derive(Debug, Clone)]
pub struct Languages {
    pub all: Vec<Language>,
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

    pub fn get(&self, code: &str) -> &Language {
        self.all
            .iter()
            .find(|l| l.code() == code)
            .unwrap_or(&self.all[0])
    }

    /// Whether the site has more than one language.
    pub fn many(&self) -> bool {
        self.all.len() > 1
    }

    /// The prefix of a language's addresses: `` for the default, `/de` for German.
    pub fn prefix(&self, code: &str) -> String {
        if code == self.default_language().code() {
            String::new()
        } else {
            format!("/{}", self.get(code).folder())
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
    pub fn of_file<'a>(&self, stem: &'a str) -> Result<(&'a str, &Language), String> {
        let Some((name, suffix)) = stem.rsplit_once('.') else {
            return Ok((stem, self.default_language()));
        };
        if let Some(language) = self
            .all
            .iter()
            .find(|l| l.code().eq_ignore_ascii_case(suffix))
        {
            return Ok((name, language));
        }
        let codes: Vec<&str> = self.all.iter().map(Language::code).collect();
        let hint = crate::suggest::did_you_mean(suffix, codes.iter().copied());
        Err(format!(
            "`.{suffix}` in the file's name is not a language of the site: `languages:` in site.yaml lists {}{hint}",
            codes.join(", ")
        ))
    }
}

/// The words that belong to no page, per language: `content/strings/<code>.yaml`,
/// a mapping of sections and keys (`form.email`). A key of the default
/// language's file that another language lacks takes the default's words (a
/// warning); `labels` translates site.yaml's navigation and footer labels, by
/// their text in the default language.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    /// By language code: key → text.
    pub by_language: HashMap<String, Arc<BTreeMap<String, String>>>,
}

/// A strings file, `content/strings/<code>.yaml`, for its JSON Schema: sections
/// of keys, each key's value the words.
pub struct StringsSchema;

impl JsonSchema for StringsSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Strings".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "title": "Strings",
            "description": "The words of one language that belong to no page: sections (header, footer, form, toast, search, …) of keys and their text, the same keys in every language's file. `{name}` in a text is filled in where it is shown. `labels` translates site.yaml's navigation and footer labels by their text in the default language; `site` its footer text and description.",
            "type": "object",
            "additionalProperties": { "$ref": "#/$defs/Words" },
            "$defs": {
                "Words": {
                    "description": "The words, or a section of keys.",
                    "anyOf": [
                        { "type": "string" },
                        { "type": "object", "additionalProperties": { "$ref": "#/$defs/Words" } }
                    ]
                }
            }
        })
    }
}

/// What reading the strings found.
#[derive(Debug, Default)]
pub struct StringsRead {
    pub strings: Strings,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    /// Per language but the default: the keys it lacks.
    pub missing: BTreeMap<String, Vec<String>>,
}

/// The section of the strings that translates site.yaml's labels.
pub const LABELS: &str = "labels";

/// site.yaml's own texts that each other language translates under `site.`.
pub const SITE_TEXTS: [&str; 3] = ["site.footer_about", "site.description", "site.address"];

/// CLDR's plural categories: a key ending in one is a form of its group
/// (`search.found.few`); a language has the forms it needs, `other` always.
const PLURALS: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// The plural group of a key (`search.found` of `search.found.few`), if it is a form.
fn plural_group(key: &str) -> Option<&str> {
    let (group, form) = key.rsplit_once('.')?;
    PLURALS.contains(&form).then_some(group)
}

impl Strings {
    /// Every key and text of a language (missing ones from the default).
    pub fn all(&self, code: &str, default: &str) -> BTreeMap<String, String> {
        let mut all = self
            .by_language
            .get(default)
            .map(|m| m.as_ref().clone())
            .unwrap_or_default();
        if code != default {
            if let Some(own) = self.by_language.get(code) {
                all.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        all
    }

    /// A hash of every text, for knowing when pages must be rendered again.
    pub fn hash_into(&self, h: &mut blake3::Hasher) {
        let mut codes: Vec<&String> = self.by_language.keys().collect();
        codes.sort();
        for code in codes {
            h.update(code.as_bytes());
            for (k, v) in self.by_language[code].iter() {
                h.update(k.as_bytes());
                h.update(&[0]);
                h.update(v.as_bytes());
                h.update(&[0]);
            }
        }
    }
}

/// A strings file as read: its name, its text and its keys with their nodes.
type StringsFile = (String, Arc<str>, Vec<(String, Node)>);

/// Reads `content/strings/<code>.yaml` of every language. `labels` are the texts
/// of site.yaml's links that each other language should translate.
pub fn read_strings(root: &Path, languages: &Languages, labels: &[String]) -> StringsRead {
    let mut read = StringsRead::default();
    let dir = root.join("content").join("strings");
    let default = languages.default_language().code().to_string();
    let mut files: BTreeMap<String, StringsFile> = BTreeMap::new();
    for language in &languages.all {
        let path = dir.join(format!("{}.yaml", language.code()));
        let file = format!("content/strings/{}.yaml", language.code());
        if !path.is_file() {
            continue;
        }
        let text: Arc<str> = match super::read_text(&path, root) {
            Ok(text) => text.into(),
            Err(d) => {
                read.errors.push(d);
                continue;
            }
        };
        let node = match yaml::parse(&text) {
            Ok(node) => node,
            Err(e) => {
                read.errors.push(e.diagnostic(&file, &text));
                continue;
            }
        };
        let mut leaves = Vec::new();
        let mut errors = Vec::new();
        flatten(&node, "", &mut leaves, &mut errors);
        read.errors
            .extend(errors.iter().map(|e| e.diagnostic(&file, &text)));
        let map: BTreeMap<String, String> = leaves
            .iter()
            .filter_map(|(k, n)| Some((k.clone(), n.as_str()?.to_string())))
            .collect();
        read.strings
            .by_language
            .insert(language.code().to_string(), Arc::new(map));
        files.insert(language.code().to_string(), (file, text, leaves));
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(code) = name.strip_suffix(".yaml") else {
                continue;
            };
            if !languages.all.iter().any(|l| l.code() == code) {
                let codes: Vec<&str> = languages.all.iter().map(Language::code).collect();
                let hint = crate::suggest::did_you_mean(code, codes.iter().copied());
                read.warnings.push(
                    Diagnostic::new(
                        format!("content/strings/{name}"),
                        format!(
                            "`{code}` is not a language of the site (`languages:` in site.yaml lists {}), so these words are not used{hint}",
                            codes.join(", ")
                        ),
                    )
                    .as_warning(),
                );
            }
        }
    }
    let empty = Arc::new(BTreeMap::new());
    let defaults = read
        .strings
        .by_language
        .get(&default)
        .cloned()
        .unwrap_or(empty.clone());
    for language in &languages.all[1..] {
        let code = language.code();
        let own = read
            .strings
            .by_language
            .get(code)
            .cloned()
            .unwrap_or(empty.clone());
        let file = format!("content/strings/{code}.yaml");
        // A plural group needs its `other` form; the others are the language's own.
        // A key may be given as plural forms instead (`minutes.two`, `.other`).
        let mut missing: Vec<String> = defaults
            .keys()
            .filter(|k| plural_group(k).is_none() || k.ends_with(".other"))
            .filter(|k| !own.contains_key(*k) && !own.contains_key(&format!("{k}.other")))
            .cloned()
            .collect();
        missing.extend(
            SITE_TEXTS
                .iter()
                .filter(|k| !own.contains_key(**k))
                .map(|k| k.to_string()),
        );
        missing.extend(
            labels
                .iter()
                .map(|l| format!("{LABELS}.{l}"))
                .filter(|k| !own.contains_key(k)),
        );
        missing.sort();
        missing.dedup();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
            let more = match missing.len() {
                n if n > 8 => format!(" and {} more", n - 8),
                _ => String::new(),
            };
            let what = if own.is_empty() && !files.contains_key(code) {
                "the file is missing".to_string()
            } else {
                format!("no {}{more}", shown.join(", "))
            };
            read.warnings.push(
                Diagnostic::new(
                    file.clone(),
                    format!(
                        "{what}: the {} pages show the {} words there (`site check` lists every missing key)",
                        language.name,
                        languages.default_language().name
                    ),
                )
                .as_warning(),
            );
        }
        // A key the default language does not have is a typo, or left over.
        if let Some((file, text, leaves)) = files.get(code) {
            for (key, node) in leaves {
                let known = defaults.contains_key(key)
                    || SITE_TEXTS.contains(&key.as_str())
                    || plural_group(key).is_some_and(|g| {
                        defaults.contains_key(&format!("{g}.other")) || defaults.contains_key(g)
                    })
                    || key
                        .strip_prefix(&format!("{LABELS}."))
                        .is_some_and(|l| labels.iter().any(|x| x == l));
                if !known {
                    let hint =
                        crate::suggest::did_you_mean(key, defaults.keys().map(String::as_str));
                    let e = yaml::Error::at(
                        node.span,
                        key,
                        format!(
                            "the {} words have no such key, so this text is never shown{hint}",
                            languages.default_language().name
                        ),
                    );
                    read.warnings.push(e.warning(file, text));
                }
            }
        }
        read.missing.insert(code.to_string(), missing);
    }
    read
}

/// The text leaves of a strings file, by dotted key. Anything but text or a
/// mapping is an error at its line.
fn flatten(
    node: &Node,
    prefix: &str,
    out: &mut Vec<(String, Node)>,
    errors: &mut Vec<yaml::Error>,
) {
    match &node.kind {
        Kind::Map(entries) => {
            for (key, value) in entries {
                let path = if prefix.is_empty() {
                    key.name.clone()
                } else {
                    format!("{prefix}.{}", key.name)
                };
                // A label is a key as written, dots and all: never a section.
                if prefix == LABELS {
                    match &value.kind {
                        Kind::Str(_) => out.push((path, value.clone())),
                        _ => errors.push(yaml::Error::at(
                            value.span,
                            &path,
                            format!(
                                "expected the label's words as text, found {}",
                                value.described()
                            ),
                        )),
                    }
                } else {
                    flatten(value, &path, out, errors);
                }
            }
        }
        Kind::Str(_) => out.push((prefix.to_string(), node.clone())),
        Kind::Null if prefix.is_empty() => {}
        Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) | Kind::Bool(_) => {
            // `404` or `yes` written bare: the words as written.
            let text = node.raw.clone().unwrap_or_default();
            let mut n = node.clone();
            n.kind = Kind::Str(text);
            out.push((prefix.to_string(), n));
        }
        _ => errors.push(yaml::Error::at(
            node.span,
            prefix,
            format!(
                "expected text or a mapping of keys to text, found {}",
                node.described()
            ),
        )),
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
    fn dates_follow_the_language() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        assert_eq!(language("en", "%B %-d, %Y").date(day), "November 23, 2026");
        assert_eq!(language("de", "%-d. %B %Y").date(day), "23. November 2026");
        let march = chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(language("de", "%-d. %B %Y").date(march), "1. März 2026");
        assert_eq!(language("ar", "%-d %B %Y").date(day), "23 نوفمبر 2026");
        let mut arab = language("ar", "%-d %B %Y");
        arab.numerals = Numerals::Arab;
        assert_eq!(arab.date(day), "٢٣ نوفمبر ٢٠٢٦");
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
        assert_eq!(languages.of_file("about").unwrap().1.code(), "en");
        assert_eq!(
            languages.of_file("about.de").unwrap(),
            ("about", languages.get("de"))
        );
        assert!(languages
            .of_file("about.fr")
            .unwrap_err()
            .contains("lists en, de, ar"));
        assert_eq!(languages.of_route("/de/about/").code(), "de");
        assert_eq!(languages.of_route("/de/").code(), "de");
        assert_eq!(languages.of_route("/design/").code(), "en");
        assert_eq!(languages.prefix("ar"), "/ar");
        assert_eq!(languages.prefix("en"), "");
    }
}
