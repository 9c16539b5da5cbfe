//! `content/site.yaml` read: whole, with its list of languages checked item by
//! item and the text a ` #` cut short, or one section on its own (the storage
//! settings, the timeouts, a retention) for what must run while the rest of the
//! file has mistakes.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::files::read_text;
use super::languages::Language;
use super::site::{self, SiteConfig};
use super::yaml;
use crate::diagnostics::{relative, Diagnostic};

/// The storage settings alone, for `site serve`'s storage API: it must run even
/// while the rest of `site.yaml` has errors.
pub fn storage_settings(root: &Path) -> site::Storage {
    super::settings::storage_with_environment(site_yaml_section(root, "storage"))
}

/// `site.yaml`'s `contact.messages`, read on its own (by `site messages`), the
/// default when absent.
pub fn message_delivery(root: &Path) -> site::MessageDelivery {
    site_yaml_section(root, "contact.messages")
}

/// A retention setting of `site.yaml` (`careers.retention_months`), read on its
/// own; `None` when absent or unreadable (the full load reports why).
pub fn retention_months(root: &Path, setting: &str) -> Option<u32> {
    let months: Option<site::RetentionMonths> = site_yaml_section(root, setting);
    months.map(|m| m.0)
}

/// `site.yaml`'s `timeouts`, read on their own: the bundle starts before the
/// content is loaded.
pub fn timeouts(root: &Path) -> site::Timeouts {
    site_yaml_section(root, "timeouts")
}

/// One section of `site.yaml` (a dotted path, `contact.messages`), read without
/// the rest; its default when the file or the section cannot be read (the full
/// load reports why).
pub fn site_yaml_section<T: serde::de::DeserializeOwned + Default>(root: &Path, path: &str) -> T {
    let text = std::fs::read_to_string(root.join("content").join("site.yaml")).ok();
    let node = text.and_then(|text| yaml::parse(&text).ok());
    let mut section = node.as_ref();
    for key in path.split('.') {
        section = section.and_then(|n| n.get(key));
    }
    section
        .and_then(|n| yaml::from_node::<T>(n, path).ok())
        .unwrap_or_default()
}

/// `site.yaml` read, with what it names and its warnings.
pub struct Config {
    pub config: SiteConfig,
    pub references: Vec<yaml::Reference>,
    pub warnings: Vec<Diagnostic>,
}

pub fn load_config(root: &Path) -> Result<Config, Vec<Diagnostic>> {
    let path = root.join("content").join("site.yaml");
    let file = relative(&path, root);
    let text: Arc<str> = read_text(&path, root).map_err(|d| vec![d])?.into();
    let node = yaml::parse(&text).map_err(|e| vec![e.diagnostic(&file, &text)])?;
    let (_, language_errors) = read_languages(&node);
    let language_errors: Vec<Diagnostic> = language_errors
        .iter()
        .map(|e| e.diagnostic(&file, &text))
        .collect();
    let warnings = yaml::cut_by_comments(&text, &node)
        .iter()
        .map(|w| w.warning(&file, &text))
        .collect();
    let (config, references) = yaml::read::<SiteConfig>(&node, "").map_err(|failed| {
        failed
            .errors
            .iter()
            .map(|e| e.diagnostic(&file, &text))
            .chain(language_errors.iter().cloned())
            .collect::<Vec<_>>()
    })?;
    if !language_errors.is_empty() {
        return Err(language_errors);
    }
    Ok(Config {
        config,
        references,
        warnings,
    })
}

/// The languages `site.yaml` lists, each read on its own: those that read, and
/// what is wrong with the list besides what reading says (a language listed
/// twice, a locale or date format that is none), each at its line. Used
/// whether or not the rest of site.yaml reads, so a run reports all of it.
pub fn read_languages(site: &yaml::Node) -> (Vec<Language>, Vec<yaml::Error>) {
    let Some(yaml::Kind::Seq(items)) = site.get("languages").map(|n| &n.kind) else {
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
