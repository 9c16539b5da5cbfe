//! What each field of a page file is to a translation, read from the models'
//! own schemas: every field says it with `x-i18n` (on the field, or on its kind
//! of value: a date is shared, a link copied, Markdown translated), or is a
//! number, a switch or a choice from a list, which is shared. A text field that
//! says nothing is a mistake a test finds (`every_field_of_every_model_has_a_rule`).
//!
//! The editor marks its fields by the same rules, and a translation's fingerprint
//! of its source is taken over the translated fields alone (`staleness.rs`).

use schemars::{schema_for, Schema};
use serde::Serialize;
use serde_json::{Map, Value};

use super::matter::{ArticleMatter, EventMatter, FrontMatter, JobMatter, PageHead};
use super::yaml::{child_path, index_path, Kind as NodeKind, Node};

/// What a field is to a translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    /// Words in the page's language: titles, text, labels, alt text. A
    /// translation's fingerprint of its source is taken over these alone.
    Translate,
    /// A value taken from the default language when the translation is made,
    /// which the translation may then change: a link (to the translated page),
    /// a picture (one with words in it).
    Copy,
    /// The same in every language: dates, numbers, codes, ids, icons, switches.
    Share,
    /// Each file's own, neither words nor copied: a translation's record of
    /// its source, whether it is a draft, its old addresses.
    Own,
}

impl Rule {
    fn named(name: &str) -> Option<Rule> {
        match name {
            "translate" => Some(Rule::Translate),
            "copy" => Some(Rule::Copy),
            "share" => Some(Rule::Share),
            "own" => Some(Rule::Own),
            _ => None,
        }
    }
}

/// A file's fields as a translation sees them: the schema with nothing but the
/// rules, which the editor walks the same way.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// A value with its rule.
    Value(Rule),
    /// A mapping: its fields in order.
    Fields(Vec<(String, Shape)>),
    /// A list of the same kind of item.
    List(Box<Shape>),
    /// A list item told apart by its `type` (a page's blocks): each type's fields.
    Typed(Vec<(String, Shape)>),
}

/// The kinds of page file, each read by its own model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A page of blocks (`.yaml`).
    Page,
    /// A Markdown page that is no collection's entry.
    Document,
    Article,
    Event,
    Job,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Page,
        Kind::Document,
        Kind::Article,
        Kind::Event,
        Kind::Job,
    ];

    /// Its model's JSON Schema, the one `site schema` writes.
    pub fn schema(self) -> Schema {
        match self {
            Kind::Page => schema_for!(PageHead),
            Kind::Document => schema_for!(FrontMatter),
            Kind::Article => schema_for!(ArticleMatter),
            Kind::Event => schema_for!(EventMatter),
            Kind::Job => schema_for!(JobMatter),
        }
    }

    /// Its fields' rules; a Markdown page's text is `body`, translated.
    pub fn shape(self) -> &'static Shape {
        static SHAPES: std::sync::OnceLock<Vec<Shape>> = std::sync::OnceLock::new();
        let shapes = SHAPES.get_or_init(|| {
            Kind::ALL
                .iter()
                .map(|kind| {
                    let schema = kind.schema();
                    let root = schema.as_value();
                    let mut shape =
                        shape_of(root, root, "").unwrap_or_else(|_| Shape::Fields(Vec::new()));
                    if *kind != Kind::Page {
                        if let Shape::Fields(fields) = &mut shape {
                            fields.push(("body".to_string(), Shape::Value(Rule::Translate)));
                        }
                    }
                    shape
                })
                .collect()
        });
        &shapes[Kind::ALL.iter().position(|k| *k == self).unwrap_or(0)]
    }
}

/// The shape of a value's schema, or the paths of the fields with no rule.
pub fn shape_of(schema: &Value, root: &Value, path: &str) -> Result<Shape, Vec<String>> {
    let (schema, _) = without_null(schema);
    if let Some(rule) = rule_at(&schema, root) {
        return Ok(Shape::Value(rule));
    }
    let def = resolve(&schema, root);
    if def.get("$ref").is_none() && !std::ptr::eq(def, &schema) {
        return shape_of(def, root, path);
    }
    if let Some(variants) = def.get("oneOf").and_then(Value::as_array) {
        // A choice from a list, each choice documented.
        if variants
            .iter()
            .all(|v| v.get("const").is_some() || v.get("enum").is_some())
        {
            return Ok(Shape::Value(Rule::Share));
        }
        let mut types = Vec::new();
        let mut missing = Vec::new();
        for variant in variants {
            let variant = resolve(variant, root);
            let Some(tag) = variant
                .pointer("/properties/type/const")
                .and_then(Value::as_str)
            else {
                missing.push(format!("{path} (a choice the editor cannot tell apart)"));
                continue;
            };
            match fields(variant, root, path) {
                Ok(shape) => types.push((tag.to_string(), shape)),
                Err(more) => missing.extend(more),
            }
        }
        return match missing.is_empty() {
            true => Ok(Shape::Typed(types)),
            false => Err(missing),
        };
    }
    if def.get("anyOf").is_some() {
        return Err(vec![format!(
            "{path} (a value of several kinds needs its own rule)"
        )]);
    }
    if def.get("enum").is_some() || def.get("const").is_some() {
        return Ok(Shape::Value(Rule::Share));
    }
    match def.get("type").and_then(Value::as_str) {
        Some("boolean" | "integer" | "number") => Ok(Shape::Value(Rule::Share)),
        Some("array") => {
            let items = def.get("items").cloned().unwrap_or(Value::Null);
            Ok(Shape::List(Box::new(shape_of(
                &items,
                root,
                &format!("{path}[]"),
            )?)))
        }
        Some("object") => fields(def, root, path),
        _ => Err(vec![path.to_string()]),
    }
}

/// An object's fields, each with its shape; `type`, which tells blocks apart,
/// is left out (shared by nature).
fn fields(object: &Value, root: &Value, path: &str) -> Result<Shape, Vec<String>> {
    let mut shapes = Vec::new();
    let mut missing = Vec::new();
    let empty = Map::new();
    let properties = object
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (name, property) in properties {
        if name == "type" && property.get("const").is_some() {
            continue;
        }
        let here = match path {
            "" => name.clone(),
            _ => format!("{path}.{name}"),
        };
        match shape_of(property, root, &here) {
            Ok(shape) => shapes.push((name.clone(), shape)),
            Err(more) => missing.extend(more),
        }
    }
    match missing.is_empty() {
        true => Ok(Shape::Fields(shapes)),
        false => Err(missing),
    }
}

/// The rule a schema states, on itself or on the definition it names.
fn rule_at(schema: &Value, root: &Value) -> Option<Rule> {
    let named = |s: &Value| {
        s.get("x-i18n")
            .and_then(Value::as_str)
            .and_then(Rule::named)
    };
    named(schema).or_else(|| named(resolve(schema, root)))
}

/// `#/$defs/Name` → the definition.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| root.get("$defs")?.get(r.trim_start_matches("#/$defs/")))
        .unwrap_or(schema)
}

/// A value's schema without its "or nothing" (`anyOf [X, null]`, `type: [X, null]`),
/// and whether it had one; the field's own words and rule (`description`,
/// `x-i18n`) stay on it. The editor's widgets read optional fields the same way.
pub fn without_null(schema: &Value) -> (Value, bool) {
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let kept: Vec<&Value> = any
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if kept.len() == 1 && kept.len() < any.len() {
            let mut inner = kept[0].clone();
            if let Some(map) = inner.as_object_mut() {
                for key in ["description", "x-i18n"] {
                    if let Some(own) = schema.get(key) {
                        map.insert(key.into(), own.clone());
                    }
                }
            }
            return (inner, true);
        }
    }
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let kept: Vec<&Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .collect();
        if kept.len() == 1 && kept.len() < types.len() {
            let mut inner = schema.clone();
            if let Some(map) = inner.as_object_mut() {
                map.insert("type".into(), kept[0].clone());
            }
            return (inner, true);
        }
    }
    (schema.clone(), false)
}

/// The translated text of a page file's document (its YAML, or a Markdown
/// page's front matter), with each field's path as the build's messages write it
/// (`blocks[2].cards[0].title`), in the document's order.
pub fn texts(shape: &Shape, document: &Node) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(shape, document, String::new(), &mut found);
    found
}

fn walk(shape: &Shape, node: &Node, path: String, found: &mut Vec<(String, String)>) {
    match (shape, &node.kind) {
        (Shape::Value(Rule::Translate), NodeKind::Seq(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(shape, item, index_path(&path, i), found);
            }
        }
        (Shape::Value(Rule::Translate), NodeKind::Str(text)) => found.push((path, text.clone())),
        (
            Shape::Value(Rule::Translate),
            NodeKind::Int(_) | NodeKind::UInt(_) | NodeKind::Float(_),
        ) => found.push((path, node.raw.clone().unwrap_or_default())),
        (Shape::Fields(fields), NodeKind::Map(entries)) => {
            for (key, item) in entries {
                if let Some((_, shape)) = fields.iter().find(|(name, _)| *name == key.name) {
                    walk(shape, item, child_path(&path, &key.name), found);
                }
            }
        }
        (Shape::List(item_shape), NodeKind::Seq(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(item_shape, item, index_path(&path, i), found);
            }
        }
        (Shape::Typed(types), NodeKind::Map(_)) => {
            let tag = node.get("type").and_then(Node::as_str).unwrap_or_default();
            if let Some((_, shape)) = types.iter().find(|(t, _)| t == tag) {
                walk(shape, node, path, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_every_model_has_a_rule() {
        let mut missing = Vec::new();
        for kind in Kind::ALL {
            let schema = kind.schema();
            let root = schema.as_value();
            if let Err(more) = shape_of(root, root, "") {
                missing.extend(more.into_iter().map(|path| format!("{kind:?}: {path}")));
            }
        }
        assert!(
            missing.is_empty(),
            "fields that say neither translate, copy, share nor own (x-i18n in the model):\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn the_texts_of_a_page_are_its_translated_fields_in_order() {
        let page = crate::content::yaml::parse(
            "title: About us\ndescription: Who we are\nblocks:\n  - type: hero\n    heading: Hello\n    image: { src: /images/a.svg, alt: A globe }\n    actions: [{ label: Contact, href: /contact/ }]\n  - type: text\n    id: story\n    text: Our **story**.\n",
        )
        .unwrap();
        let texts = texts(Kind::Page.shape(), &page);
        let paths: Vec<&str> = texts.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "title",
                "description",
                "blocks[0].heading",
                "blocks[0].image.alt",
                "blocks[0].actions[0].label",
                "blocks[1].text"
            ]
        );
    }
}
