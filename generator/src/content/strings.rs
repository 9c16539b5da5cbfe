//! The words that belong to no page: `content/strings/<code>.yaml`, one file per
//! language with the default language's keys. A key another language lacks takes
//! the default's words, with a warning; a key the default has not is a warning
//! at its line.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;

use super::languages::{Language, Languages};
use super::yaml::{self, Kind, Node};
use crate::diagnostics::Diagnostic;

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

    /// The words of `key` in the language `code`, else in the default language.
    pub fn get(&self, code: &str, default: &str, key: &str) -> Option<&str> {
        [code, default]
            .into_iter()
            .find_map(|c| self.by_language.get(c)?.get(key).map(String::as_str))
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

/// `{name}` in `text` replaced by its value; any other brace stays.
pub fn fill<K: AsRef<str>, V: AsRef<str>>(text: &str, args: &[(K, V)]) -> String {
    let mut out = text.to_string();
    for (name, value) in args {
        out = out.replace(&format!("{{{}}}", name.as_ref()), value.as_ref());
    }
    out
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
        let text: Arc<str> = match super::files::read_text(&path, root) {
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
