//! The editor's configuration (Sveltia CMS reads Decap CMS's `config.yml`),
//! derived from the same JSON Schemas the build checks content against, so the
//! editor offers every field the models have and refuses what they refuse.
//! This file lays out the collections (one per kind of content file); each
//! collection's fields come from `widgets.rs`.

use serde_json::{json, Value};

use super::widgets::{fields, label, MEDIA_FOLDER, PUBLIC_FOLDER};
use crate::content::publishing::CollectionKind;
use crate::content::Content;

/// The custom formats `islands/admin/` registers: YAML and front matter saved
/// by editing the file's own document, so a save changes only what was changed.
pub const YAML_FORMAT: &str = "yaml-kept";
pub const FRONT_MATTER_FORMAT: &str = "kept-frontmatter";

/// The schema a schema file's fields come from.
/// The schemas are made once: `site serve` makes the configuration on every save.
fn schema(name: &str) -> Value {
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

/// The whole configuration: the backend, where pictures go, and a collection
/// for each kind of content file.
pub fn config(content: &Content, backend: Value) -> Value {
    json!({
        "backend": backend,
        "media_folder": MEDIA_FOLDER,
        "public_folder": PUBLIC_FOLDER,
        // Pictures are the site's own files: no stock photos, no addresses elsewhere.
        "media_libraries": { "stock_assets": false },
        "collections": collections(content),
    })
}

fn collections(content: &Content) -> Vec<Value> {
    let page = schema("page.schema.json");
    let front_matter = schema("front-matter.schema.json");
    let mut out = vec![
        folder(
            "pages",
            "Pages",
            "content/pages",
            "yaml",
            YAML_FORMAT,
            fields(&page, &page),
        ),
        with_preview(
            folder(
                "documents",
                "Documents",
                "content/pages",
                "md",
                FRONT_MATTER_FORMAT,
                with_body(fields(&front_matter, &front_matter)),
            ),
            "{{slug}}/",
        ),
    ];
    for collection in &content.config.collections {
        let file = match collection.kind {
            CollectionKind::Articles => "article.schema.json",
            CollectionKind::Events => "event.schema.json",
            CollectionKind::Jobs => "job.schema.json",
        };
        let schema = schema(file);
        out.push(with_preview(
            folder(
                &collection.name,
                &label(&collection.name),
                &format!("content/pages/{}", collection.name),
                "md",
                FRONT_MATTER_FORMAT,
                with_body(fields(&schema, &schema)),
            ),
            &format!("{}/{{{{slug}}}}/", collection.name),
        ));
    }
    // Pages kept in a folder that is no collection (`services/cloud.md`).
    let collections: Vec<&str> = content
        .config
        .collections
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut folders = std::collections::BTreeMap::<String, (bool, bool)>::new();
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
        let kinds = folders.entry(dir.to_string()).or_default();
        match rel.ends_with(".md") {
            true => kinds.0 = true,
            false => kinds.1 = true,
        }
    }
    for (dir, (markdown, blocks)) in folders {
        let name = dir.replace('/', "-");
        if markdown {
            out.push(with_preview(
                folder(
                    &name,
                    &format!("{} pages", label(&dir)),
                    &format!("content/pages/{dir}"),
                    "md",
                    FRONT_MATTER_FORMAT,
                    with_body(fields(&front_matter, &front_matter)),
                ),
                &format!("{dir}/{{{{slug}}}}/"),
            ));
        }
        if blocks {
            out.push(with_preview(
                folder(
                    &format!("{name}-blocks"),
                    &format!("{} pages of blocks", label(&dir)),
                    &format!("content/pages/{dir}"),
                    "yaml",
                    YAML_FORMAT,
                    fields(&page, &page),
                ),
                &format!("{dir}/{{{{slug}}}}/"),
            ));
        }
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
    out
}

fn folder(
    name: &str,
    label: &str,
    folder: &str,
    extension: &str,
    format: &str,
    fields: Vec<Value>,
) -> Value {
    json!({
        "name": name,
        "label": label,
        "folder": folder,
        "extension": extension,
        "format": format,
        "create": true,
        "delete": true,
        "slug": "{{slug}}",
        "identifier_field": "title",
        "summary": "{{title}}",
        "fields": fields,
    })
}

/// Where an entry's page is, from the site's address or a draft's preview: the
/// editor links to it. (Pages have none: Home, `index.yaml`, is at `/`, which
/// no path template of the editor can say.)
fn with_preview(mut collection: Value, path: &str) -> Value {
    collection["preview_path"] = json!(path);
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
