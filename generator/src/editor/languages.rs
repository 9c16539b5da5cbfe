//! The editor's languages. site.yaml's `languages:` become the editor's
//! locales: one file per language beside the default's (`about.de.yaml` beside
//! `about.yaml`, the site's own convention), shown side by side. Each field
//! says what it is to a translation from the rule its model gives it
//! (`content/translatable.rs`): translated, copied and each file's own fields
//! are each language's own value; shared ones are the default language's,
//! written into every language's file, since each file is a whole document the
//! build reads on its own. The editor's script records a translation's source
//! when it is saved from the same rules, which the build hands it in
//! `admin/translations.json`.

use serde_json::{json, Map, Value};

use crate::content::languages::Languages;
use crate::content::translatable::{Kind, Rule, Shape};

/// A translation's record of its source, which the editor never shows as text.
pub const RECORD_FIELD: &str = "translated_from";
/// The field type `islands/admin/` registers for it: whether the translation is
/// older than its source, and a way to mark it current.
pub const RECORD_WIDGET: &str = "translation";
/// Where the editor's script finds the languages and the rules.
pub const TRANSLATIONS_FILE: &str = "admin/translations.json";

/// The editor's `i18n`: every language, the default first, one file each, the
/// default's without its code; a new entry is in the default language alone
/// until a translator adds another. None for a site of one language.
pub fn i18n(languages: &Languages) -> Option<Value> {
    if !languages.many() {
        return None;
    }
    Some(json!({
        "structure": "multiple_files",
        "locales": codes(languages),
        "default_locale": languages.default_language().code(),
        "omit_default_locale_from_file_path": true,
        "initial_locales": "default",
    }))
}

fn codes(languages: &Languages) -> Vec<&str> {
    languages.each().map(|(_, l)| l.code()).collect()
}

/// What the editor's script calls a kind of page file.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Page => "page",
        Kind::Document => "document",
        Kind::Article => "article",
        Kind::Event => "event",
        Kind::Job => "job",
    }
}

/// The fields of a kind of page file, each told what it is to a translation,
/// and the record of a translation's source first (it says whether the
/// translation is current). Gives the fields its model gives no rule, which
/// `every_field_of_every_model_has_a_rule` keeps empty.
pub fn localize(fields: &mut Vec<Value>, kind: Kind, default: &str) -> Vec<String> {
    let mut missing = Vec::new();
    mark_fields(fields, kind.shape(), false, default, "", &mut missing);
    if let Some(at) = fields.iter().position(|f| f["name"] == RECORD_FIELD) {
        let mut record = fields.remove(at);
        record["widget"] = json!(RECORD_WIDGET);
        record["label"] = json!("Translation");
        record["hint"] = json!(
            "Whether this translation is older than the page it translates. Saving a translation records that page as it is now."
        );
        if let Some(map) = record.as_object_mut() {
            map.retain(|k, _| {
                ["name", "label", "hint", "widget", "required", "i18n"].contains(&k.as_str())
            });
        }
        fields.insert(0, record);
    }
    missing
}

/// Without languages, a translation's record is nobody's business.
pub fn without_record(fields: &mut Vec<Value>) {
    fields.retain(|f| f["name"] != RECORD_FIELD);
}

fn mark_fields(
    fields: &mut [Value],
    shape: &Shape,
    in_list: bool,
    default: &str,
    at: &str,
    missing: &mut Vec<String>,
) {
    for field in fields.iter_mut() {
        let name = field["name"].as_str().unwrap_or_default().to_string();
        let path = match at {
            "" => name.clone(),
            _ => format!("{at}.{name}"),
        };
        let child = match shape {
            Shape::Fields(children) => children.iter().find(|(n, _)| *n == name).map(|(_, s)| s),
            _ => None,
        };
        match child {
            Some(child) => mark(field, child, in_list, default, &path, missing),
            None => {
                // Each file's own value: nothing is copied or kept alike.
                missing.push(path);
                set_everywhere(field, json!(true));
            }
        }
    }
}

/// One field's `i18n` from its shape, and its children's.
fn mark(
    field: &mut Value,
    shape: &Shape,
    in_list: bool,
    default: &str,
    at: &str,
    missing: &mut Vec<String>,
) {
    match shape {
        Shape::Value(rule) => {
            set_everywhere(field, option(*rule, in_list));
            // A translation's words and copies start from the default
            // language's when it is made (the editor's script fills them in on
            // its first save), so only the default language must have them.
            let words = matches!(
                field["widget"].as_str(),
                Some("string" | "text" | "markdown")
            );
            let required = field.get("required") != Some(&json!(false));
            if matches!(rule, Rule::Translate | Rule::Copy) && words && required {
                field["required"] = json!([default]);
            }
        }
        Shape::Fields(_) => {
            field["i18n"] = json!(true);
            if let Some(children) = field.get_mut("fields").and_then(Value::as_array_mut) {
                mark_fields(children, shape, in_list, default, at, missing);
            }
        }
        Shape::List(item) => {
            field["i18n"] = json!(true);
            match (item.as_ref(), field.as_object_mut()) {
                (Shape::Typed(types), Some(map)) if map.contains_key("types") => {
                    // A type of block takes no option of its own; its fields do.
                    for kind in map["types"].as_array_mut().into_iter().flatten() {
                        let tag = kind["name"].as_str().unwrap_or_default().to_string();
                        let of_type = types.iter().find(|(t, _)| *t == tag).map(|(_, s)| s);
                        let here = format!("{at}[{tag}]");
                        match (
                            of_type,
                            kind.get_mut("fields").and_then(Value::as_array_mut),
                        ) {
                            (Some(of_type), Some(children)) => {
                                mark_fields(children, of_type, true, default, &here, missing)
                            }
                            (None, _) => {
                                missing.push(here);
                                for child in kind
                                    .get_mut("fields")
                                    .and_then(Value::as_array_mut)
                                    .into_iter()
                                    .flatten()
                                {
                                    set_everywhere(child, json!(true));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                (_, Some(map)) if map.contains_key("fields") => {
                    if let Some(children) = map["fields"].as_array_mut() {
                        mark_fields(children, item, true, default, at, missing);
                    }
                }
                (_, Some(map)) if map.contains_key("field") => {
                    mark(&mut map["field"], item, true, default, at, missing);
                }
                _ => {}
            }
        }
        Shape::Typed(_) => {
            // Only a list's items are told apart by type.
            missing.push(at.to_string());
            set_everywhere(field, json!(true));
        }
    }
}

/// The editor's option for a rule: each language's own value, or, for a value
/// shared by every language, the default language's. Inside a list a shared
/// value is each file's own, copied when the translation is made: the editor
/// keeps a shared value alike by its position, and a translation's list need
/// not have the default's items in the default's order.
fn option(rule: Rule, in_list: bool) -> Value {
    match rule {
        Rule::Share if !in_list => json!("duplicate"),
        _ => json!(true),
    }
}

/// `i18n` on a field and on every field inside it.
fn set_everywhere(field: &mut Value, option: Value) {
    let Some(map) = field.as_object_mut() else {
        return;
    };
    map.insert("i18n".into(), option.clone());
    for child in map
        .get_mut("fields")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        set_everywhere(child, option.clone());
    }
    // A type of block takes no option of its own; its fields do.
    for kind in map
        .get_mut("types")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        for child in kind
            .get_mut("fields")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            set_everywhere(child, option.clone());
        }
    }
    if let Some(item) = map.get_mut("field") {
        set_everywhere(item, option);
    }
}

/// `admin/translations.json`: the languages, each collection's kind of page
/// file (or its file per language), and each kind's fields as a translation
/// sees them, for the editor's script to fingerprint a translation's source
/// as the build does (`content/staleness.rs`).
pub fn translations_file(languages: &Languages, collections: &[(String, Kind)]) -> Value {
    let names: Map<String, Value> = languages
        .each()
        .map(|(_, l)| (l.code().to_string(), json!(l.name)))
        .collect();
    let kinds: Map<String, Value> = collections
        .iter()
        .map(|(name, kind)| (name.clone(), json!(kind_name(*kind))))
        .collect();
    let shapes: Map<String, Value> = Kind::ALL
        .iter()
        .map(|kind| {
            (
                kind_name(*kind).to_string(),
                serde_json::to_value(kind.shape()).unwrap_or(Value::Null),
            )
        })
        .collect();
    json!({
        "default": languages.default_language().code(),
        "languages": names,
        "record": RECORD_FIELD,
        "collections": kinds,
        "shapes": shapes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::widgets::fields;

    fn fields_of(kind: Kind) -> Vec<Value> {
        let schema = kind.schema();
        let root = schema.as_value();
        let mut out = fields(root, root);
        if kind != Kind::Page {
            out.push(json!({ "name": "body", "widget": "markdown" }));
        }
        out
    }

    /// Every field of every kind of page file says what it is to a
    /// translation: a field the model gives no rule would leave the editor
    /// guessing, so it fails here, naming it.
    #[test]
    fn every_field_the_editor_shows_has_its_models_rule() {
        for kind in Kind::ALL {
            let mut fields = fields_of(kind);
            let missing = localize(&mut fields, kind, "en");
            assert!(missing.is_empty(), "{kind:?}: no rule for {missing:?}");
            fn each(fields: &[Value], at: &str) {
                for field in fields {
                    let here = format!("{at}.{}", field["name"].as_str().unwrap_or("?"));
                    assert!(field.get("i18n").is_some(), "{here} has no i18n");
                    if let Some(children) = field.get("fields").and_then(Value::as_array) {
                        each(children, &here);
                    }
                    for kind in field
                        .get("types")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        assert!(kind.get("i18n").is_none(), "{here}: a type takes no i18n");
                        each(kind["fields"].as_array().unwrap(), &here);
                    }
                    if let Some(item) = field.get("field") {
                        each(std::slice::from_ref(item), &here);
                    }
                }
            }
            each(&fields, &format!("{kind:?}"));
        }
    }

    fn find<'a>(fields: &'a [Value], name: &str) -> &'a Value {
        fields
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no field {name}"))
    }

    #[test]
    fn words_are_each_languages_own_a_date_is_shared_and_the_record_comes_first() {
        let mut fields = fields_of(Kind::Article);
        localize(&mut fields, Kind::Article, "en");
        assert_eq!(fields[0]["name"], RECORD_FIELD);
        assert_eq!(fields[0]["widget"], RECORD_WIDGET);
        assert_eq!(find(&fields, "title")["i18n"], true);
        // A translation's title starts as the default's: only English must have one.
        assert_eq!(find(&fields, "title")["required"], json!(["en"]));
        assert_eq!(find(&fields, "date")["i18n"], "duplicate");
        assert_eq!(find(&fields, "image")["i18n"], true);
        assert_eq!(find(&fields, "body")["i18n"], true);
        assert_eq!(find(&fields, "draft")["i18n"], true);
    }

    #[test]
    fn inside_a_pages_blocks_a_shared_value_is_each_files_own() {
        let mut fields = fields_of(Kind::Page);
        localize(&mut fields, Kind::Page, "en");
        let blocks = find(&fields, "blocks");
        assert_eq!(blocks["i18n"], true);
        let grid = find(blocks["types"].as_array().unwrap(), "card_grid");
        let grid_fields = grid["fields"].as_array().unwrap();
        assert_eq!(find(grid_fields, "heading")["i18n"], true);
        assert_eq!(find(grid_fields, "columns")["i18n"], true);
        let cards = find(grid_fields, "cards");
        let card = cards["fields"].as_array().unwrap();
        assert_eq!(find(card, "title")["i18n"], true);
        assert_eq!(find(card, "icon")["i18n"], true);
    }

    #[test]
    fn the_shapes_file_names_each_collections_kind_and_each_kinds_rules() {
        let languages = Languages::new(&[]);
        let file = translations_file(&languages, &[("insights".into(), Kind::Article)]);
        assert_eq!(file["collections"]["insights"], "article");
        assert_eq!(file["default"], "en");
        let article = &file["shapes"]["article"]["fields"];
        let title = article
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f[0] == "title")
            .unwrap();
        assert_eq!(title[1], json!({ "value": "translate" }));
    }
}
