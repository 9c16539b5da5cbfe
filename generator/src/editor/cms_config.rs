//! The editor's configuration (Decap CMS's `config.yml`, which Sveltia CMS reads as
//! `admin/config.json`),
//! derived from the same JSON Schemas the build checks content against, so the
//! editor offers every field the models have and refuses what they refuse.
//! This file lays out the collections (one per kind of content file); each
//! collection's fields come from `widgets.rs`, what each is to a translation
//! from `languages.rs`, and the words files' fields from `strings.rs`.

use std::path::Path;

use serde_json::{json, Value};

use super::widgets::{
    fields, label, FRONT_MATTER_FORMAT, MEDIA_FOLDER, PUBLIC_FOLDER, YAML_FORMAT,
};
use super::{languages, strings};
use crate::content::publishing::CollectionKind;
use crate::content::translatable::Kind;
use crate::content::Content;

/// The schema a schema file's fields come from.
/// The schemas are made once: `site serve` makes the configuration on every save.
pub(super) fn schema(name: &str) -> Value {
    static SCHEMAS: std::sync::OnceLock<Vec<(&'static str, Value)>> = std::sync::OnceLock::new();
    SCHEMAS
        .get_or_init(|| {
            crate::schema::schemas()
                .into_iter()
                .map(|(file, s)| (file, s.as_value().clone()))
                .collect()
        })
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, s)| s.clone())
        .unwrap_or(Value::Null)
}

/// The whole configuration: the backend, where pictures go, the languages, and
/// a collection for each kind of content file; and each folder collection's
/// kind of page file, for the editor's script (`languages.rs`).
pub fn config(root: &Path, content: &Content, backend: Value) -> (Value, Vec<(String, Kind)>) {
    let (collections, kinds) = collections(root, content);
    let mut config = json!({
        "backend": backend,
        "media_folder": MEDIA_FOLDER,
        "public_folder": PUBLIC_FOLDER,
        // Pictures are the site's own files: no stock photos, no addresses elsewhere.
        "media_libraries": { "stock_assets": false },
        "collections": collections,
    });
    if let Some(i18n) = languages::i18n(content.languages()) {
        config["i18n"] = i18n;
    }
    (config, kinds)
}

/// A folder collection of one kind of page file.
struct Folder<'a> {
    name: String,
    label: String,
    folder: String,
    kind: Kind,
    /// The folder of its entries' addresses (`insights` for `insights/{{slug}}/`),
    /// which the editor links to. Pages have none: Home, `index.yaml`, is at
    /// `/`, which no path template of the editor can say.
    preview: Option<&'a str>,
}

fn collections(root: &Path, content: &Content) -> (Vec<Value>, Vec<(String, Kind)>) {
    let mut folders = vec![
        Folder {
            name: "pages".into(),
            label: "Pages".into(),
            folder: "content/pages".into(),
            kind: Kind::Page,
            preview: None,
        },
        Folder {
            name: "documents".into(),
            label: "Documents".into(),
            folder: "content/pages".into(),
            kind: Kind::Document,
            preview: Some(""),
        },
    ];
    for collection in &content.config.collections {
        folders.push(Folder {
            name: collection.name.clone(),
            label: label(&collection.name),
            folder: format!("content/pages/{}", collection.name),
            kind: match collection.kind {
                CollectionKind::Articles => Kind::Article,
                CollectionKind::Events => Kind::Event,
                CollectionKind::Jobs => Kind::Job,
            },
            preview: Some(&collection.name),
        });
    }
    // Pages kept in a folder that is no collection (`services/cloud.md`).
    let collections: Vec<&str> = content
        .config
        .collections
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut kept = std::collections::BTreeMap::<String, (bool, bool)>::new();
    for page in &content.pages {
        let Some(rel) = page.source.strip_prefix("content/pages/") else {
            continue;
        };
        let Some((dir, _)) = rel.rsplit_once('/') else {
            continue;
        };
        if collections.contains(&dir) {
            continue;
        }
        let kinds = kept.entry(dir.to_string()).or_default();
        match rel.ends_with(".md") {
            true => kinds.0 = true,
            false => kinds.1 = true,
        }
    }
    for (dir, (markdown, blocks)) in &kept {
        let name = dir.replace('/', "-");
        if *markdown {
            folders.push(Folder {
                name: name.clone(),
                label: format!("{} pages", label(dir)),
                folder: format!("content/pages/{dir}"),
                kind: Kind::Document,
                preview: Some(dir),
            });
        }
        if *blocks {
            folders.push(Folder {
                name: format!("{name}-blocks"),
                label: format!("{} pages of blocks", label(dir)),
                folder: format!("content/pages/{dir}"),
                kind: Kind::Page,
                preview: Some(dir),
            });
        }
    }
    let default = content.languages().default_language().code();
    let mut out = Vec::new();
    let mut kinds = Vec::new();
    for f in &folders {
        let mut collection = folder(f, default, content.languages().many());
        if let Some(dir) = f.preview {
            let path = match dir {
                "" => "{{slug}}/".to_string(),
                dir => format!("{dir}/{{{{slug}}}}/"),
            };
            collection["preview_path"] = json!(path);
        }
        out.push(collection);
        kinds.push((f.name.clone(), f.kind));
    }
    if let Some(words) = strings::collection(root, content) {
        out.push(words);
    }
    let site = schema("site.schema.json");
    out.push(json!({
        "name": "settings",
        "label": "Settings",
        "files": [{
            "name": "site",
            "label": "Site",
            "file": "content/site.yaml",
            "format": YAML_FORMAT,
            "fields": fields(&site, &site),
        }],
    }));
    (out, kinds)
}

/// A folder collection: its files, each one page, in its kind's fields; with
/// languages, one entry per page whatever its translations, each field told
/// what it is to a translation.
fn folder(f: &Folder, default: &str, many: bool) -> Value {
    let schema = schema(match f.kind {
        Kind::Page => "page.schema.json",
        Kind::Document => "front-matter.schema.json",
        Kind::Article => "article.schema.json",
        Kind::Event => "event.schema.json",
        Kind::Job => "job.schema.json",
    });
    let mut fields = fields(&schema, &schema);
    let (extension, format) = match f.kind {
        Kind::Page => ("yaml", YAML_FORMAT),
        _ => {
            fields = with_body(fields);
            ("md", FRONT_MATTER_FORMAT)
        }
    };
    let mut collection = json!({
        "name": f.name,
        "label": f.label,
        "folder": f.folder,
        "extension": extension,
        "format": format,
        "create": true,
        "delete": true,
        "slug": "{{slug}}",
        "identifier_field": "title",
        "summary": "{{title}}",
    });
    match many {
        true => {
            // Every field has its model's rule (a test holds each model to it).
            languages::localize(&mut fields, f.kind, default);
            collection["i18n"] = json!(true);
            // Each page once, with the languages it is in.
            collection["summary"] = json!("{{title}} · {{locales}}");
        }
        false => languages::without_record(&mut fields),
    }
    collection["fields"] = json!(fields);
    collection
}

fn with_body(mut fields: Vec<Value>) -> Vec<Value> {
    fields.push(json!({
        "name": "body",
        "label": "Text",
        "widget": "markdown",
        "hint": "The page's text, in Markdown.",
    }));
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_a_list_of_types_told_apart_by_type() {
        let page = schema("page.schema.json");
        let fields = fields(&page, &page);
        let blocks = fields.iter().find(|f| f["name"] == "blocks").unwrap();
        assert_eq!(blocks["typeKey"], "type");
        let hero = blocks["types"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "hero")
            .unwrap();
        let heading = hero["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "heading")
            .unwrap();
        assert_eq!(heading["widget"], "string");
        assert!(
            heading.get("required").is_none(),
            "a hero's heading is required"
        );
        let names: Vec<&str> = blocks["types"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, crate::content::blocks::Block::TYPES);
    }
}
