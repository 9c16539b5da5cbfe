//! The words files (`content/strings/<code>.yaml`) in the editor: one entry,
//! one form per language, side by side with the default language's. The
//! strings' schema is free-form, so the fields come from the files: every key
//! of the default language's file in its order, the plural forms any language
//! gives a group, site.yaml's texts and link labels that each other language
//! translates (`content/strings.rs`). A key a language lacks is an empty field
//! whose hint says which words show in its place.

use std::path::Path;

use serde_json::{json, Value};

use super::widgets::{label, YAML_FORMAT, YAML_WIDGET};
use crate::content::strings::{LABELS, SITE_TEXTS};
use crate::content::yaml::{self, Kind as NodeKind, Node};
use crate::content::Content;

/// CLDR's plural categories, in their order: a section of only these is a
/// group of forms for a count, and a language has the forms it needs.
const PLURALS: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// The words files' collection, for a site of more than one language.
pub fn collection(root: &Path, content: &Content) -> Option<Value> {
    let languages = content.languages();
    if !languages.many() {
        return None;
    }
    let default = languages.default_language();
    let mut tree = read(root, default.code()).unwrap_or_default();
    for (_, language) in languages.others() {
        if let Some(other) = read(root, language.code()) {
            merge(&mut tree, other);
        }
    }
    let config = &content.config;
    let site = SITE_TEXTS
        .iter()
        .filter_map(|key| key.strip_prefix("site."))
        .map(|key| {
            let (what, words) = match key {
                "footer_about" => ("the footer's text", config.footer.about.as_str()),
                "description" => ("the site's description", config.description.as_str()),
                "address" => ("the company's address", config.contact.address.as_str()),
                _ => ("a text", ""),
            };
            (
                key.to_string(),
                Words::Given(format!("site.yaml's {what}"), words.to_string()),
            )
        })
        .collect();
    add_to_section(&mut tree, "site", site);
    let labels = config
        .labels()
        .into_iter()
        .map(|text| {
            (
                text.clone(),
                Words::Given("a label of site.yaml's links".into(), text),
            )
        })
        .collect();
    add_to_section(&mut tree, LABELS, labels);
    let fields = fields(&tree, &default.name);
    Some(json!({
        "name": "strings",
        "label": "Words",
        "description": "The words of every page that belong to no page: the header, the footer, the forms, the search. One form per language; a key a language leaves empty shows the default language's words.",
        // The default language's file has its code too: `content/strings/en.yaml`.
        "i18n": { "omit_default_locale_from_file_path": false },
        "files": [{
            "name": "words",
            "label": "Words of every page",
            "file": "content/strings/{{locale}}.yaml",
            "format": YAML_FORMAT,
            "i18n": true,
            "fields": fields,
        }],
    }))
}

/// A language's words, as its file has them.
#[derive(Debug, Clone, PartialEq)]
enum Words {
    /// The default language's words (none where only another language has the key).
    Text(Option<String>),
    /// Words of site.yaml that each other language translates: what they are, and the default's.
    Given(String, String),
    /// A section of keys, in the file's order.
    Section(Vec<(String, Words)>),
    /// Words in one language, a count's forms in another: edited as YAML.
    Either,
}

/// The tree of a language's file, or none when it has none or it does not read
/// (the build reports it).
fn read(root: &Path, code: &str) -> Option<Vec<(String, Words)>> {
    let path = root
        .join("content")
        .join("strings")
        .join(format!("{code}.yaml"));
    let text = crate::content::read_text(&path, root).ok()?;
    match words(&yaml::parse(&text).ok()?) {
        Words::Section(keys) => Some(keys),
        _ => None,
    }
}

fn words(node: &Node) -> Words {
    match &node.kind {
        NodeKind::Map(entries) => Words::Section(
            entries
                .iter()
                // A key with a dot is no key the editor can keep apart.
                .filter(|(key, _)| !key.name.contains('.'))
                .map(|(key, value)| (key.name.clone(), words(value)))
                .collect(),
        ),
        _ => Words::Text(node.as_str().map(str::to_string)),
    }
}

/// Whether the editor takes `name` as a field's name (it reads dots as nesting,
/// and spaces and a few signs as its own).
fn is_field_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || ".*:<>".contains(c))
}

fn is_plural(keys: &[(String, Words)]) -> bool {
    !keys.is_empty() && keys.iter().all(|(k, _)| PLURALS.contains(&k.as_str()))
}

/// Another language's keys into the tree: the forms of a count it gives, and
/// where it has forms for what the default says in words, either. Other keys
/// it has are the default's, or mistakes the build warns of.
fn merge(into: &mut [(String, Words)], other: Vec<(String, Words)>) {
    for (key, theirs) in other {
        let Some((_, ours)) = into.iter_mut().find(|(k, _)| *k == key) else {
            continue;
        };
        match (&mut *ours, theirs) {
            (Words::Section(ours), Words::Section(theirs))
                if is_plural(ours) && is_plural(&theirs) =>
            {
                for (form, _) in theirs {
                    if !ours.iter().any(|(k, _)| *k == form) {
                        ours.push((form, Words::Text(None)));
                    }
                }
                ours.sort_by_key(|(k, _)| PLURALS.iter().position(|p| p == k));
            }
            (Words::Section(ours), Words::Section(theirs)) => merge(ours, theirs),
            (Words::Text(_), Words::Section(forms)) if is_plural(&forms) => *ours = Words::Either,
            (Words::Section(forms), Words::Text(_)) if is_plural(forms) => *ours = Words::Either,
            _ => {}
        }
    }
}

/// Keys added to the section `name` of the tree (made when the default has none),
/// where it has them not already.
fn add_to_section(tree: &mut Vec<(String, Words)>, name: &str, given: Vec<(String, Words)>) {
    if !tree
        .iter()
        .any(|(k, w)| k == name && matches!(w, Words::Section(_)))
    {
        tree.retain(|(k, _)| k != name);
        tree.push((name.to_string(), Words::Section(Vec::new())));
    }
    for (key, words) in tree.iter_mut() {
        if let (true, Words::Section(keys)) = (key == name, words) {
            for (k, w) in given {
                if !keys.iter().any(|(x, _)| *x == k) {
                    keys.push((k, w));
                }
            }
            return;
        }
    }
}

/// The editor's fields for a tree of words: every one optional (a key a
/// language lacks shows the default's words) and each language's own.
fn fields(tree: &[(String, Words)], default: &str) -> Vec<Value> {
    let fallback = format!("Left empty in a translation, the {default} words show.");
    tree.iter()
        .map(|(key, words)| {
            let mut field = json!({
                "name": key,
                "label": label(key),
                "required": false,
                "i18n": true,
            });
            match words {
                Words::Section(keys) if is_plural(keys) => {
                    field["widget"] = json!("object");
                    field["hint"] = json!("The words for a count, by the language's plural forms (CLDR's zero, one, two, few, many and other): each language gives those it has; `other` is used for any it leaves out.");
                    field["fields"] = json!(fields(keys, default));
                }
                // Keys the editor cannot name a field by (site.yaml's labels,
                // "About Us"): pairs of the key and its words.
                Words::Section(keys) if keys.iter().any(|(k, _)| !is_field_name(k)) => {
                    let known: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
                    field["widget"] = json!("keyvalue");
                    field["key_label"] = json!(format!("{default} words"));
                    field["value_label"] = json!("In this language");
                    field["hint"] = json!(format!(
                        "Each {default} label and its words in this language; left out, the {default} words show. The labels: {}.",
                        known.join(", ")
                    ));
                }
                Words::Section(keys) => {
                    field["widget"] = json!("object");
                    field["fields"] = json!(fields(keys, default));
                }
                Words::Text(Some(text)) => {
                    field["widget"] = json!("string");
                    field["hint"] = json!(format!("{default}: “{text}”. {fallback}"));
                }
                Words::Text(None) => {
                    field["widget"] = json!("string");
                    field["hint"] = json!("A form only some languages have.");
                }
                Words::Given(what, text) => {
                    field["widget"] = json!("string");
                    field["hint"] = json!(format!("The translation of {what}: {default} “{text}”. {fallback}"));
                }
                Words::Either => {
                    field["widget"] = json!(YAML_WIDGET);
                    field["hint"] = json!(format!("Words, or the words for a count by the language's plural forms (zero, one, two, few, many, other). {fallback}"));
                }
            }
            field
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Vec<(String, Words)> {
        match words(&yaml::parse(text).unwrap()) {
            Words::Section(keys) => keys,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_fields_are_the_default_languages_keys_in_its_order_with_its_words() {
        let en = tree("page:\n  skip: Skip to content\n  title: \"{title} | {site}\"\nsearch:\n  found:\n    one: A page\n    other: \"{count} pages\"\n");
        let fields = fields(&en, "English");
        let names: Vec<&str> = fields.iter().map(|f| f["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["page", "search"]);
        let skip = &fields[0]["fields"][0];
        assert_eq!(skip["name"], "skip");
        assert_eq!(skip["required"], false);
        assert!(
            skip["hint"]
                .as_str()
                .unwrap()
                .contains("English: “Skip to content”"),
            "{skip}"
        );
    }

    #[test]
    fn a_count_has_every_form_any_language_gives_and_words_against_forms_are_yaml() {
        let mut en = tree("article:\n  minutes: \"{count} min read\"\nsearch:\n  found:\n    one: A page\n    other: \"{count} pages\"\n");
        let ar = tree("article:\n  minutes:\n    zero: none\n    other: many\nsearch:\n  found:\n    zero: none\n    few: a few\n    other: many\n  typo: x\n");
        merge(&mut en, ar);
        let fields = fields(&en, "English");
        assert_eq!(fields[0]["fields"][0]["widget"], YAML_WIDGET);
        let forms: Vec<&str> = fields[1]["fields"][0]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(forms, ["zero", "one", "few", "other"]);
        // A key the default has not is a mistake, not a field.
        assert_eq!(fields[1]["fields"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn site_yamls_labels_are_pairs_of_the_default_words_and_a_languages() {
        let mut tree = tree("page:\n  skip: Skip\n");
        let labels = ["About Us", "Home"]
            .map(|l| (l.to_string(), Words::Given("a label".into(), l.to_string())))
            .to_vec();
        add_to_section(&mut tree, LABELS, labels);
        let fields = fields(&tree, "English");
        let labels = fields.iter().find(|f| f["name"] == LABELS).unwrap();
        assert_eq!(labels["widget"], "keyvalue");
        assert!(labels["hint"]
            .as_str()
            .unwrap()
            .ends_with("The labels: About Us, Home."));
    }
}
