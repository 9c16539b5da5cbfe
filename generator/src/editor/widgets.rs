//! The editor's fields, from the models' JSON Schemas: each property becomes a
//! widget that says what the schema says (required or not, its choices, its
//! pattern, its range), blocks a list of types told apart by `type`, and a
//! value no widget can describe (a string or a mapping) YAML text.

use serde_json::{json, Map, Value};

use crate::content::translatable::without_null;

/// The field type `islands/admin/` registers for a value the editor's widgets
/// cannot describe (a string or a mapping): edited as YAML text.
pub const YAML_WIDGET: &str = "yaml";

/// The custom formats `islands/admin/` registers: YAML and front matter saved
/// by editing the file's own document, so a save changes only what was changed.
pub const YAML_FORMAT: &str = "yaml-kept";
pub const FRONT_MATTER_FORMAT: &str = "kept-frontmatter";

/// Where pictures go, and how pages write them.
pub const MEDIA_FOLDER: &str = "public/images";
pub const PUBLIC_FOLDER: &str = "/images";

/// "employment_type" → "Employment type".
pub fn label(name: &str) -> String {
    let words = name.replace(['_', '-'], " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The fields of an object schema, in the schema's order (schemars sorts
/// properties by name; required ones come first, as the editor shows them).
pub fn fields(object: &Value, root: &Value) -> Vec<Value> {
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut names: Vec<&String> = properties.keys().collect();
    names.sort_by_key(|n| {
        (
            required
                .iter()
                .position(|r| r == n)
                .unwrap_or(required.len()),
            n.to_string(),
        )
    });
    names
        .into_iter()
        .filter(|name| name.as_str() != "type" || !is_tag(&properties[*name]))
        .map(|name| {
            field(
                name,
                &properties[name],
                required.contains(&name.as_str()),
                root,
            )
        })
        .collect()
}

/// A block's `type`, which the list of blocks sets itself.
fn is_tag(schema: &Value) -> bool {
    schema.get("const").is_some()
}

/// `#/$defs/Name` → the definition, and its name.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> (&'a Value, Option<&'a str>) {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.trim_start_matches("#/$defs/");
            match root.get("$defs").and_then(|d| d.get(name)) {
                Some(def) => (def, Some(name)),
                None => (schema, None),
            }
        }
        None => (schema, None),
    }
}

/// One field: its widget and what the widget checks.
fn field(name: &str, schema: &Value, required: bool, root: &Value) -> Value {
    let (schema, nullable) = without_null(schema);
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    out.insert("label".into(), json!(label(name)));
    let description = schema.get("description").and_then(Value::as_str);
    let (def, def_name) = resolve(&schema, root);
    let hint = description.or_else(|| def.get("description").and_then(Value::as_str));
    if let Some(hint) = hint {
        out.insert("hint".into(), json!(hint.replace('\n', " ")));
    }
    if !required || nullable {
        out.insert("required".into(), json!(false));
    }
    // No `default`: the editor would write it into the file, and the build
    // supplies it anyway; the hint says what it is. A switch that is on unless
    // turned off is shown on.
    if schema.get("default") == Some(&json!(true)) {
        out.insert("default".into(), json!(true));
    }
    widget(&mut out, def, def_name, root);
    if def_name == Some("DateTime") {
        // The editor labels such a field "UTC"; it means that it converts nothing.
        let hint = out.get("hint").and_then(Value::as_str).unwrap_or_default();
        out.insert(
            "hint".into(),
            json!(format!("{hint} Shown and saved as written: “UTC” beside it only means no time zone is applied.").trim()),
        );
    }
    Value::Object(out)
}

/// The widget for a value's schema.
fn widget(out: &mut Map<String, Value>, def: &Value, def_name: Option<&str>, root: &Value) {
    let mut set = |key: &str, value: Value| {
        out.insert(key.into(), value);
    };
    match def_name {
        Some("Markdown") => return set("widget", json!("markdown")),
        Some("ImageSrc") => {
            set("widget", json!("image"));
            set("choose_url", json!(false));
            set("media_folder", json!(format!("/{MEDIA_FOLDER}")));
            set("public_folder", json!(PUBLIC_FOLDER));
            return;
        }
        Some("Date") => {
            set("widget", json!("datetime"));
            set("format", json!("YYYY-MM-DD"));
            set("time_format", json!(false));
            return;
        }
        Some("DateTime") => {
            // Written in the event's own time zone, as the file says it:
            // the editor shows and keeps the wall-clock time.
            set("widget", json!("datetime"));
            set("format", json!("YYYY-MM-DD HH:mm"));
            set("picker_utc", json!(true));
            return;
        }
        _ => {}
    }
    if let Some(options) = choices(def) {
        set("widget", json!("select"));
        set("options", Value::Array(options));
        return;
    }
    if let Some(any) = def.get("anyOf").or_else(|| def.get("oneOf")) {
        // A value the widgets cannot describe (`Online`, or a venue): YAML text.
        let _ = any;
        return set("widget", json!(YAML_WIDGET));
    }
    match def.get("type").and_then(Value::as_str) {
        Some("boolean") => set("widget", json!("boolean")),
        Some(kind @ ("integer" | "number")) => {
            set("widget", json!("number"));
            set(
                "value_type",
                json!(if kind == "integer" { "int" } else { "float" }),
            );
            let unsigned = def
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint"));
            if let Some(min) = def.get("minimum") {
                set("min", min.clone());
            } else if unsigned {
                set("min", json!(0));
            }
            if let Some(max) = def.get("maximum") {
                set("max", max.clone());
            }
        }
        Some("array") => {
            set("widget", json!("list"));
            let items = def.get("items").cloned().unwrap_or(Value::Null);
            let (item, item_name) = resolve(&items, root);
            if let Some(blocks) = item.get("oneOf").and_then(Value::as_array) {
                if blocks
                    .iter()
                    .all(|b| b.pointer("/properties/type/const").is_some())
                {
                    set("typeKey", json!("type"));
                    set(
                        "types",
                        Value::Array(blocks.iter().map(|b| block_type(b, root)).collect()),
                    );
                    return;
                }
            }
            if item.get("type").and_then(Value::as_str) == Some("object") {
                set("fields", Value::Array(fields(item, root)));
                if let Some(summary) = summary(item) {
                    set("summary", json!(summary));
                }
            } else {
                let mut inner = Map::new();
                inner.insert("name".into(), json!("item"));
                inner.insert("label".into(), json!(label(item_name.unwrap_or("item"))));
                widget(&mut inner, item, item_name, root);
                set("field", Value::Object(inner));
            }
        }
        Some("object") if def.get("properties").is_some() => {
            set("widget", json!("object"));
            set("fields", Value::Array(fields(def, root)));
        }
        Some("object") => set("widget", json!(YAML_WIDGET)),
        _ => {
            let long = def
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| d.contains("sentence"));
            set("widget", json!(if long { "text" } else { "string" }));
            if let Some(pattern) = def.get("pattern").and_then(Value::as_str) {
                let message = def
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("Not in the expected form.");
                set("pattern", json!([pattern, message.replace('\n', " ")]));
            }
            if let Some(min) = def.get("minLength") {
                set("minlength", min.clone());
            }
            if let Some(max) = def.get("maxLength") {
                set("maxlength", max.clone());
            }
        }
    }
}

/// An enumeration (`oneOf` of constants, or `enum`) as a select's options.
fn choices(def: &Value) -> Option<Vec<Value>> {
    if let Some(values) = def.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                // `full_time` reads "Full time".
                .map(|v| json!({"label": label(&text(v)), "value": v}))
                .collect(),
        );
    }
    let one_of = def.get("oneOf").and_then(Value::as_array)?;
    one_of
        .iter()
        .map(|choice| {
            let value = choice.get("const").or_else(|| {
                choice
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|e| e.len() == 1)
                    .and_then(|e| e.first())
            })?;
            let label = match choice.get("description").and_then(Value::as_str) {
                Some(d) => format!("{}: {}", text(value), d.trim_end_matches('.')),
                None => text(value),
            };
            Some(json!({"label": label, "value": value}))
        })
        .collect()
}

/// A choice's value as its label shows it: `301`, `primary`.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One block type of a list of blocks.
fn block_type(block: &Value, root: &Value) -> Value {
    let name = block
        .pointer("/properties/type/const")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut out = json!({
        "name": name,
        "label": label(name),
        "widget": "object",
        "fields": fields(block, root),
    });
    if let Some(summary) = summary(block) {
        out["summary"] = json!(summary);
    }
    out
}

/// What a list shows for each item: its heading, title, name or label.
fn summary(object: &Value) -> Option<String> {
    let properties = object.get("properties")?.as_object()?;
    ["heading", "title", "name", "label", "question", "city"]
        .into_iter()
        .find(|k| properties.contains_key(*k))
        .map(|k| format!("{{{{{k}}}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property of every model has a widget, and each widget says what
    /// the schema says: required or not, its choices, its pattern, its range.
    #[test]
    fn every_field_of_the_models_has_a_widget_that_agrees_with_its_schema() {
        fn check(fields: &[Value], object: &Value, root: &Value, at: &str, seen: &mut usize) {
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let properties = object["properties"].as_object().unwrap();
            for (name, prop) in properties {
                if name == "type" && is_tag(prop) {
                    continue;
                }
                let at = format!("{at}.{name}");
                let field = fields
                    .iter()
                    .find(|f| f["name"] == name.as_str())
                    .unwrap_or_else(|| panic!("{at} has no widget"));
                *seen += 1;
                let widget = field["widget"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{at}: no widget"));
                let (schema, nullable) = without_null(prop);
                let optional = field.get("required") == Some(&json!(false));
                assert_eq!(
                    optional,
                    !required.contains(&name.as_str()) || nullable,
                    "{at}: required"
                );
                let (def, def_name) = resolve(&schema, root);
                if let Some(options) = choices(def) {
                    assert_eq!(widget, "select", "{at}");
                    assert_eq!(field["options"].as_array().unwrap().len(), options.len());
                    continue;
                }
                if let Some(pattern) = def.get("pattern") {
                    // A date picker and the image picker write only what the pattern takes.
                    if !matches!(def_name, Some("Date" | "DateTime" | "ImageSrc")) {
                        assert_eq!(&field["pattern"][0], pattern, "{at}: pattern");
                    }
                }
                match def.get("type").and_then(Value::as_str) {
                    Some("boolean") => assert_eq!(widget, "boolean", "{at}"),
                    Some("integer" | "number") => {
                        assert_eq!(widget, "number", "{at}");
                        if let Some(min) = def.get("minimum") {
                            assert_eq!(&field["min"], min, "{at}: minimum");
                        }
                    }
                    Some("array") => {
                        assert_eq!(widget, "list", "{at}");
                        let (item, _) = resolve(&def["items"], root);
                        if let Some(types) = field.get("types") {
                            for (t, block) in types
                                .as_array()
                                .unwrap()
                                .iter()
                                .zip(item["oneOf"].as_array().unwrap())
                            {
                                check(
                                    t["fields"].as_array().unwrap(),
                                    block,
                                    root,
                                    &format!("{at}[{}]", t["name"]),
                                    seen,
                                );
                            }
                        } else if item.get("properties").is_some() {
                            check(field["fields"].as_array().unwrap(), item, root, &at, seen);
                        } else {
                            assert!(field["field"]["widget"].is_string(), "{at}: item widget");
                        }
                    }
                    Some("object") if def.get("properties").is_some() => {
                        assert_eq!(widget, "object", "{at}");
                        check(field["fields"].as_array().unwrap(), def, root, &at, seen);
                    }
                    Some("string") => match def_name {
                        Some("Markdown") => assert_eq!(widget, "markdown", "{at}"),
                        Some("ImageSrc") => assert_eq!(widget, "image", "{at}"),
                        Some("Date" | "DateTime") => assert_eq!(widget, "datetime", "{at}"),
                        _ => assert!(["string", "text"].contains(&widget), "{at}: {widget}"),
                    },
                    _ => assert_eq!(widget, YAML_WIDGET, "{at}: a union is edited as YAML"),
                }
            }
        }
        let mut seen = 0;
        for (name, schema) in crate::schema::schemas() {
            let root = schema.as_value().clone();
            if root.get("properties").is_none() || name == "strings.schema.json" {
                continue;
            }
            check(&fields(&root, &root), &root, &root, name, &mut seen);
        }
        assert!(seen > 300, "only {seen} fields were checked");
    }
}
