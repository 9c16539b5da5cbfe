//! `site schema`: the JSON Schemas of the content files, generated from the
//! models the loader reads (so the two cannot disagree), and the editors'
//! reference `docs/content.md`, generated from the same schemas.

mod reference;

use std::path::{Path, PathBuf};

use schemars::{schema_for, Schema};

use crate::content::matter::{ArticleMatter, EventMatter, FrontMatter, JobMatter, PageHead};
use crate::content::SiteConfig;

/// Where the schemas are committed, under the site root.
pub const SCHEMAS: &str = "schemas";
/// The generated content reference, under the site root.
pub const REFERENCE: &str = "docs/content.md";

/// A generated file: its path under the site root and its text.
pub struct File {
    pub path: String,
    pub text: String,
}

/// The schemas: what each content file is checked against.
pub fn schemas() -> Vec<(&'static str, Schema)> {
    vec![
        ("site.schema.json", schema_for!(SiteConfig)),
        ("page.schema.json", schema_for!(PageHead)),
        ("front-matter.schema.json", schema_for!(FrontMatter)),
        ("article.schema.json", schema_for!(ArticleMatter)),
        ("event.schema.json", schema_for!(EventMatter)),
        ("job.schema.json", schema_for!(JobMatter)),
        (
            "strings.schema.json",
            schema_for!(crate::content::strings::StringsSchema),
        ),
    ]
}

/// Every generated file with its text.
pub fn files() -> Vec<File> {
    let schemas = schemas();
    let mut files: Vec<File> = schemas
        .iter()
        .map(|(name, schema)| File {
            path: format!("{SCHEMAS}/{name}"),
            text: format!(
                "{}\n",
                serde_json::to_string_pretty(schema).unwrap_or_default()
            ),
        })
        .collect();
    files.push(File {
        path: REFERENCE.to_string(),
        text: reference::markdown(&schemas),
    });
    files
}

/// What `site schema` did: the files it wrote, or with `check`, the stale ones.
#[derive(Debug, Default)]
pub struct Outcome {
    pub written: Vec<PathBuf>,
    pub stale: Vec<PathBuf>,
}

/// Writes the generated files under `root`, or with `check` only compares them.
pub fn generate(root: &Path, check: bool) -> std::io::Result<Outcome> {
    let mut outcome = Outcome::default();
    for file in files() {
        let path = root.join(&file.path);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() == Some(file.text.as_str()) {
            continue;
        }
        if check {
            outcome.stale.push(path);
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &file.text)?;
        outcome.written.push(path);
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::blocks::Block;
    use crate::content::yaml;

    /// Every property of every schema has a description, from a doc comment.
    #[test]
    fn every_field_is_described() {
        fn walk(value: &serde_json::Value, at: &str, missing: &mut Vec<String>) {
            if let Some(props) = value.get("properties").and_then(|p| p.as_object()) {
                for (name, prop) in props {
                    if prop.get("description").is_none() && name != "type" {
                        missing.push(format!("{at}.{name}"));
                    }
                }
            }
            if let Some(map) = value.as_object() {
                for (k, v) in map {
                    walk(v, &format!("{at}/{k}"), missing);
                }
            }
            if let Some(list) = value.as_array() {
                for (i, v) in list.iter().enumerate() {
                    walk(v, &format!("{at}[{i}]"), missing);
                }
            }
        }
        let mut missing = Vec::new();
        for (name, schema) in schemas() {
            walk(schema.as_value(), name, &mut missing);
        }
        assert!(
            missing.is_empty(),
            "fields without a doc comment: {missing:#?}"
        );
    }

    /// The reference's examples are real: each reads as its block.
    #[test]
    fn every_block_type_has_an_example_that_reads() {
        for tag in Block::TYPES {
            let text = reference::example(tag).unwrap_or_else(|| {
                panic!("no example for `{tag}` in src/content/blocks/examples/")
            });
            let node = yaml::parse(text).unwrap();
            let yaml::Kind::Seq(items) = &node.kind else {
                panic!("{tag}: the example is a list of one block");
            };
            let read = Block::from_node(&items[0], "blocks[0]");
            assert!(read.is_ok(), "{tag}: {:?}", read.err());
        }
    }
}
