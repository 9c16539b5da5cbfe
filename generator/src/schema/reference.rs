//! `docs/content.md`, the editors' reference, written from the schemas: every
//! block type with its fields, their types, defaults and descriptions, and an
//! example from `content/blocks/examples/` (tested to read).

use std::fmt::Write;

use schemars::Schema;
use serde_json::{Map, Value};

use crate::content::blocks::Block;

/// The example of block type `tag`, as YAML.
pub fn example(tag: &str) -> Option<&'static str> {
    Block::EXAMPLES
        .iter()
        .find(|(t, _)| *t == tag)
        .map(|(_, text)| *text)
}

pub fn markdown(schemas: &[(&'static str, Schema)]) -> String {
    let find = |name: &str| {
        schemas
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s.as_value().clone())
            .unwrap_or(Value::Null)
    };
    let page = find("page.schema.json");
    // The parts and values of every kind of page, each described once.
    let mut defs = serde_json::Map::new();
    for file in [
        "page.schema.json",
        "front-matter.schema.json",
        "article.schema.json",
        "event.schema.json",
        "job.schema.json",
    ] {
        if let Some(found) = find(file).get("$defs").and_then(Value::as_object) {
            for (name, def) in found {
                defs.entry(name.clone()).or_insert_with(|| def.clone());
            }
        }
    }
    let mut out = String::new();
    out.push_str(
        "# Content reference\n\n\
         <!-- Written by `site schema` from the models the build reads; edit the doc comments in generator/src/content/, not this file. -->\n\n\
         Every content file is checked against these fields when the site builds, and an editor \
         with a YAML extension (see `.vscode/`) checks and completes them as you type, from the \
         schemas in `schemas/`. A field without a default is required.\n\n\
         - [Pages](#pages): `content/pages/**/*.yaml`\n\
         - [Blocks](#blocks): the sections a page is made of\n\
         - [Parts](#parts): what blocks share (buttons, pictures, cards …)\n\
         - [Markdown pages](#markdown-pages): `content/pages/**/*.md`\n\
         - [Article pages](#article-pages): Markdown pages in a collection's folder\n\
         - [Event pages](#event-pages) and [Job postings](#job-postings): entries of collections of kind `events` and `jobs`\n\
         - [Site](#site): `content/site.yaml`\n\n",
    );
    out.push_str("## Pages\n\nA file `content/pages/about.yaml` is the page `/about/`.\n\n");
    fields(&mut out, &page);
    out.push_str("\n## Blocks\n\nEach block starts with `- type:` and its type's name.\n\n");
    let blocks = defs
        .get("Block")
        .and_then(|b| b.get("oneOf"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let tags: Vec<String> = blocks.iter().filter_map(tag_of).collect();
    out.push_str(
        &tags
            .iter()
            .map(|t| format!("[`{t}`](#{t})"))
            .collect::<Vec<_>>()
            .join(" · "),
    );
    out.push_str("\n\n");
    for block in &blocks {
        let Some(tag) = tag_of(block) else { continue };
        let _ = writeln!(out, "### {tag}\n");
        if let Some(d) = block.get("description").and_then(Value::as_str) {
            let _ = writeln!(out, "{}\n", one_line(d));
        }
        fields(&mut out, block);
        if let Some(example) = example(&tag) {
            let _ = writeln!(out, "\n```yaml\n{}```\n", example);
        }
    }
    out.push_str("## Parts\n\n");
    for (name, def) in &defs {
        if name == "Block" || def.get("properties").is_none() {
            continue;
        }
        let _ = writeln!(out, "### {name}\n");
        if let Some(d) = def.get("description").and_then(Value::as_str) {
            let _ = writeln!(out, "{}\n", one_line(d));
        }
        fields(&mut out, def);
        out.push('\n');
    }
    let values: Vec<(&String, &Value)> = defs
        .iter()
        .filter(|(name, def)| *name != "Block" && def.get("properties").is_none())
        .collect();
    if !values.is_empty() {
        out.push_str("### Values\n\n| Name | What it is |\n|---|---|\n");
        for (name, def) in values {
            let _ = writeln!(
                out,
                "| <a id=\"{}\"></a>`{name}` | {} |",
                name.to_lowercase(),
                describe_value(def)
            );
        }
        out.push('\n');
    }
    for (title, file, intro) in [
        (
            "Markdown pages",
            "front-matter.schema.json",
            "A file `content/pages/privacy-policy.md` starts with front matter between `---` lines; the Markdown body follows. Raw HTML in the body passes the same allowlist as [Markdown](#markdown) fields.",
        ),
        (
            "Article pages",
            "article.schema.json",
            "A Markdown file directly in the folder of a collection named in `site.yaml` (`collections: [insights]`) is an article: `content/pages/insights/my-article.md` is `/insights/my-article/`. Its listing, the previous and next links and the feed `/insights/feed.xml` follow by themselves.",
        ),
        (
            "Event pages",
            "event.schema.json",
            "A Markdown file in the folder of a collection of kind `events` (`{ name: events, kind: events }`) is an event: its page offers a calendar file, and it moves from the upcoming events to `/events/archive/` once it has ended.",
        ),
        (
            "Job postings",
            "job.schema.json",
            "A Markdown file in the folder of a collection of kind `jobs` (`{ name: careers, kind: jobs }`) is a job posting: listed newest first, with a page per office and per team, until its `valid_through` day has passed.",
        ),
        ("Site", "site.schema.json", "`content/site.yaml`: the company, navigation, footer and how the site is built."),
    ] {
        let schema = find(file);
        let _ = writeln!(out, "## {title}\n\n{intro}\n");
        fields(&mut out, &schema);
        out.push('\n');
        if title == "Site" {
            if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
                for (name, def) in defs {
                    if def.get("properties").is_none() {
                        continue;
                    }
                    let _ = writeln!(out, "### site: {name}\n");
                    fields(&mut out, def);
                    out.push('\n');
                }
            }
        }
    }
    out.trim_end().to_string() + "\n"
}

/// A block's `type`, from its variant schema.
fn tag_of(block: &Value) -> Option<String> {
    block
        .get("properties")?
        .get("type")?
        .get("const")?
        .as_str()
        .map(str::to_string)
}

/// The table of an object schema's fields.
fn fields(out: &mut String, schema: &Value) {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    out.push_str("| Field | Type | Default | Description |\n|---|---|---|---|\n");
    // The order the loader declares, with required fields first.
    let mut names: Vec<&String> = props.keys().filter(|k| *k != "type").collect();
    names.sort_by_key(|n| !required.contains(&n.as_str()));
    for name in names {
        let prop = &props[name.as_str()];
        let default = if required.contains(&name.as_str()) {
            "required".to_string()
        } else {
            match prop.get("default") {
                None | Some(Value::Null) => "—".to_string(),
                Some(Value::Array(a)) if a.is_empty() => "none".to_string(),
                Some(v) => format!("`{}`", v.to_string().trim_matches('"')),
            }
        };
        let description = prop
            .get("description")
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| `{name}` | {} | {default} | {} |",
            type_name(prop),
            description.replace('|', "\\|")
        );
    }
}

/// A field's type in an editor's words.
fn type_name(prop: &Value) -> String {
    if let Some(r) = prop.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("[{name}](#{})", name.to_lowercase());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = prop.get(key).and_then(Value::as_array) {
            let consts: Vec<String> = options
                .iter()
                .filter_map(|o| o.get("const").and_then(Value::as_str))
                .map(|c| format!("`{c}`"))
                .collect();
            if !consts.is_empty() {
                return format!("one of {}", consts.join(", "));
            }
            let named: Vec<String> = options
                .iter()
                .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                .map(type_name)
                .collect();
            return named.join(" or ");
        }
    }
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", v.to_string().trim_matches('"')))
            .collect();
        return format!("one of {}", names.join(", "));
    }
    let kind = match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_string(),
        _ => String::new(),
    };
    match kind.as_str() {
        "string" => "text".into(),
        "integer" => match (prop.get("minimum"), prop.get("maximum")) {
            (Some(min), Some(max))
                if min.as_i64() != Some(0) || max.as_i64().is_some_and(|m| m < 1000) =>
            {
                format!("whole number, {min} to {max}")
            }
            _ => "whole number".into(),
        },
        "number" => "number".into(),
        "boolean" => "`true` or `false`".into(),
        "array" => format!(
            "list of {}",
            prop.get("items").map(type_name).unwrap_or_default()
        ),
        "object" => match prop.get("additionalProperties") {
            Some(v @ Value::Object(_)) => format!("mapping of names to {}", type_name(v)),
            _ => "mapping".into(),
        },
        _ => "any".into(),
    }
}

/// What a value type (a def without fields) is.
fn describe_value(def: &Value) -> String {
    let d = def
        .get("description")
        .and_then(Value::as_str)
        .map(one_line)
        .unwrap_or_default();
    let kinds = type_name(def);
    if kinds.starts_with("one of") {
        format!("{d} {kinds}.")
    } else {
        d
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
