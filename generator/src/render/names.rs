//! Names the build writes that no editor typed, in the page's language, from
//! CLDR: the names of languages and of countries. They are read from CLDR's
//! JSON packages in `node_modules` (`cldr-localenames-full`: each language's
//! names of languages and territories; `cldr-core`: which territories are
//! ISO 3166-1's countries) the first time a page of a language asks, and a list
//! of countries is put in the language's order with CLDR's collation (ICU4X).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;

/// The npm package of CLDR's display names.
pub const NAMES_PACKAGE: &str = "cldr-localenames-full";
/// The npm package of CLDR's supplemental data (codes of territories).
pub const CORE_PACKAGE: &str = "cldr-core";

/// Why a name cannot be given.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum NamesError {
    #[error("{0} is missing: names of languages and countries come from CLDR's npm packages `{NAMES_PACKAGE}` and `{CORE_PACKAGE}` (run `npm ci`)")]
    Missing(String),
    #[error("{0} is not CLDR's JSON: {1}")]
    Unreadable(String, String),
}

/// One language's names of languages and countries.
#[derive(Debug, Default)]
struct Named {
    languages: HashMap<String, String>,
    territories: HashMap<String, String>,
    /// Every country with its name, in the language's alphabetical order.
    countries: Vec<(String, String)>,
}

/// The names, read from `node_modules` a language at a time, kept for the
/// renderer's life.
#[derive(Debug)]
pub struct Names {
    node_modules: Option<PathBuf>,
    /// ISO 3166-1's countries: the two-letter codes with an ISO numeric code.
    countries: OnceLock<Result<Vec<String>, NamesError>>,
    by_language: Mutex<HashMap<String, Result<Arc<Named>, NamesError>>>,
}

impl Names {
    pub fn new(node_modules: Option<&Path>) -> Names {
        Names {
            node_modules: node_modules.map(Path::to_path_buf),
            countries: OnceLock::new(),
            by_language: Mutex::new(HashMap::new()),
        }
    }

    /// The name of the language `code` in the language `lang`: `Englisch` for
    /// `en` in `de`. A code CLDR does not name stays as written.
    pub fn language(&self, lang: &str, code: &str) -> Result<String, NamesError> {
        let named = self.named(lang)?;
        let primary = code.split('-').next().unwrap_or(code);
        Ok([code, primary]
            .iter()
            .find_map(|c| named.languages.get(*c))
            .cloned()
            .unwrap_or_else(|| code.to_string()))
    }

    /// The name of the country `code` (`GB`) in the language `lang`. A code
    /// CLDR does not name stays as written.
    pub fn country(&self, lang: &str, code: &str) -> Result<String, NamesError> {
        let named = self.named(lang)?;
        Ok(named
            .territories
            .get(code)
            .cloned()
            .unwrap_or_else(|| code.to_string()))
    }

    /// Every country (`[code, name]`) in the language `lang`, in its order.
    pub fn countries(&self, lang: &str) -> Result<Vec<(String, String)>, NamesError> {
        Ok(self.named(lang)?.countries.clone())
    }

    fn named(&self, lang: &str) -> Result<Arc<Named>, NamesError> {
        let mut by_language = self
            .by_language
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(named) = by_language.get(lang) {
            return named.clone();
        }
        let named = self.read(lang).map(Arc::new);
        by_language.insert(lang.to_string(), named.clone());
        named
    }

    fn read(&self, lang: &str) -> Result<Named, NamesError> {
        let root = self
            .node_modules
            .clone()
            .ok_or_else(|| NamesError::Missing("node_modules/".into()))?;
        let main = root.join(NAMES_PACKAGE).join("main");
        // The language's own folder (`pt-PT`), else its language's (`pt`).
        let primary = lang.split('-').next().unwrap_or(lang);
        let folder = [lang, primary]
            .iter()
            .map(|c| main.join(c))
            .find(|f| f.is_dir())
            .ok_or_else(|| NamesError::Missing(shown(&main.join(primary))))?;
        let territories = display_names(&folder.join("territories.json"), "territories")?;
        let languages = display_names(&folder.join("languages.json"), "languages")?;
        let codes = self
            .countries
            .get_or_init(|| iso_countries(&root.join(CORE_PACKAGE)))
            .clone()?;
        let mut countries: Vec<(String, String)> = codes
            .iter()
            .filter_map(|c| Some((c.clone(), territories.get(c)?.clone())))
            .collect();
        sort_by_name(lang, &mut countries);
        Ok(Named {
            languages,
            territories,
            countries,
        })
    }
}

/// A path as messages show it: from `node_modules/` on.
fn shown(path: &Path) -> String {
    let text = path.to_string_lossy();
    match text.find("node_modules/") {
        Some(at) => text[at..].to_string(),
        None => text.into_owned(),
    }
}

fn read_json(path: &Path) -> Result<Value, NamesError> {
    let text = std::fs::read_to_string(path).map_err(|_| NamesError::Missing(shown(path)))?;
    serde_json::from_str(&text).map_err(|e| NamesError::Unreadable(shown(path), e.to_string()))
}

/// `main.<locale>.localeDisplayNames.<section>` of a CLDR names file. Names
/// other than the plain one (`GB-alt-short`) are left out.
fn display_names(path: &Path, section: &str) -> Result<HashMap<String, String>, NamesError> {
    let json = read_json(path)?;
    let names = json
        .get("main")
        .and_then(Value::as_object)
        .and_then(|m| m.values().next())
        .and_then(|l| l.get("localeDisplayNames"))
        .and_then(|d| d.get(section))
        .and_then(Value::as_object)
        .ok_or_else(|| NamesError::Unreadable(shown(path), format!("it has no `{section}`")))?;
    Ok(names
        .iter()
        .filter(|(code, _)| !code.contains("-alt-"))
        .filter_map(|(code, name)| Some((code.clone(), name.as_str()?.to_string())))
        .collect())
}

/// ISO 3166-1's countries from CLDR's code mappings: two-letter codes with an
/// ISO numeric code (below 900: the codes above are for private use, such as
/// `EU` or `XK`), in code order. Codes no longer in use have no name and are
/// left out by the names.
fn iso_countries(core: &Path) -> Result<Vec<String>, NamesError> {
    let path = core.join("supplemental").join("codeMappings.json");
    let json = read_json(&path)?;
    let mappings = json
        .get("supplemental")
        .and_then(|s| s.get("codeMappings"))
        .and_then(Value::as_object)
        .ok_or_else(|| NamesError::Unreadable(shown(&path), "it has no `codeMappings`".into()))?;
    let codes: BTreeMap<&String, ()> = mappings
        .iter()
        .filter(|(code, _)| code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()))
        .filter(|(_, m)| {
            m.get("_numeric")
                .and_then(Value::as_str)
                .and_then(|n| n.parse::<u16>().ok())
                .is_some_and(|n| n < 900)
        })
        .map(|(code, _)| (code, ()))
        .collect();
    Ok(codes.into_keys().cloned().collect())
}

/// `countries` in the language `lang`'s alphabetical order of their names
/// (CLDR's collation), or by code point where ICU4X has no collation for it;
/// two of one name by code.
fn sort_by_name(lang: &str, countries: &mut [(String, String)]) {
    let collator = lang
        .parse::<icu_locale_core::Locale>()
        .ok()
        .and_then(|locale| {
            icu_collator::Collator::try_new((&locale).into(), Default::default()).ok()
        });
    countries.sort_by(|a, b| {
        let by_name = match &collator {
            Some(c) => c.compare(&a.1, &b.1),
            None => a.1.cmp(&b.1),
        };
        by_name.then_with(|| a.0.cmp(&b.0))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules");
        Names::new(Some(&project))
    }

    #[test]
    fn countries_are_named_and_ordered_in_each_language() {
        let names = names();
        assert_eq!(names.country("de", "GB").unwrap(), "Vereinigtes Königreich");
        assert_eq!(names.country("en", "GB").unwrap(), "United Kingdom");
        assert_eq!(names.country("ar", "GB").unwrap(), "المملكة المتحدة");
        let de = names.countries("de").unwrap();
        assert_eq!(de.len(), 249, "ISO 3166-1's countries");
        let at = |code: &str| de.iter().position(|(c, _)| c == code).unwrap();
        // German order puts Österreich among the O's, before Pakistan.
        assert!(at("OM") < at("AT") && at("AT") < at("PK"), "{de:?}");
        assert!(!de.iter().any(|(c, _)| c == "EU" || c == "XK" || c == "ZZ"));
    }

    #[test]
    fn languages_are_named_in_each_language() {
        let names = names();
        assert_eq!(names.language("de", "en").unwrap(), "Englisch");
        assert_eq!(names.language("ar", "en").unwrap(), "الإنجليزية");
        assert_eq!(names.language("en", "de").unwrap(), "German");
        // A code CLDR names only by its language is named so.
        assert_eq!(names.language("de", "pt-BR").unwrap(), "Portugiesisch");
    }

    #[test]
    fn without_the_packages_the_error_says_what_to_install() {
        let names = Names::new(Some(Path::new("/nonexistent/node_modules")));
        let err = names.language("de", "en").unwrap_err().to_string();
        assert!(err.contains("cldr-localenames-full"), "{err}");
    }
}
