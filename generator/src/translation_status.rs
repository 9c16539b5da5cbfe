//! `site translations`: each translation's state against its source (current,
//! stale and in which fields, or not recorded), and marking translations current:
//! writing into each the fingerprint of its source as it is now
//! (`translated_from`), as the editor does when a translation is saved. For
//! files translated outside the editor, once someone has checked them.

use std::path::{Path, PathBuf};

use crate::content::staleness::{self, kind_of, Stale};
use crate::content::translatable::Kind;
use crate::content::{self, Page};
use crate::diagnostics::Diagnostic;

/// A translation and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The translation's file and its source's, relative to the site root.
    pub file: String,
    pub source: String,
    pub state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Its record matches its source.
    Current,
    /// Its source's words changed since, in these fields.
    Stale(Vec<String>),
    /// It records nothing yet: not stale, until it is marked current.
    Unrecorded,
}

/// Every translation of the site with its state, by file.
pub fn list(root: &Path) -> Result<Vec<Translation>, Vec<Diagnostic>> {
    let content = content::load(root).map_err(|f| f.diagnostics)?;
    let mut found: Vec<Translation> = content
        .pages
        .iter()
        .filter(|p| !p.lang.is_default())
        .filter_map(|page| {
            let source = source_of(&content.pages, page)?;
            let state = match (&page.translated_from, content.stale.of(&page.route)) {
                (None, _) => State::Unrecorded,
                (Some(_), Some(Stale { fields, .. })) => State::Stale(fields.clone()),
                (Some(_), None) => State::Current,
            };
            Some(Translation {
                file: page.source.clone(),
                source: source.source.clone(),
                state,
            })
        })
        .collect();
    found.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(found)
}

/// Marks the translations in `files` (relative to `root`, or absolute) current,
/// or every translation with `files` empty: each records its source's
/// fingerprint now. Gives the files whose record changed.
pub fn mark_current(root: &Path, files: &[PathBuf]) -> Result<Vec<String>, Vec<Diagnostic>> {
    let content = content::load(root).map_err(|f| f.diagnostics)?;
    let root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let wanted: Vec<String> = files
        .iter()
        .map(|f| {
            let abs = match f.is_absolute() {
                true => f.clone(),
                false => std::env::current_dir().unwrap_or_default().join(f),
            };
            let abs = abs.canonicalize().unwrap_or(abs);
            abs.strip_prefix(&root_abs)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| f.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    let mut problems = Vec::new();
    for file in &wanted {
        match content.pages.iter().find(|p| &p.source == file) {
            None => problems.push(Diagnostic::new(
                file.clone(),
                "no page of the site is read from this file (a translation is a page file named `<name>.<code>.yaml` or `.md`)",
            )),
            Some(p) if p.lang.is_default() => problems.push(Diagnostic::new(
                file.clone(),
                "this page is in the default language: only a translation records what it was translated from",
            )),
            Some(_) => {}
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut changed = Vec::new();
    for page in content.pages.iter().filter(|p| !p.lang.is_default()) {
        if !wanted.is_empty() && !wanted.contains(&page.source) {
            continue;
        }
        let Some(source) = source_of(&content.pages, page) else {
            continue;
        };
        let Some(fingerprint) = staleness::fingerprint_of_file(root, source) else {
            continue;
        };
        let path = root.join(&page.source);
        let text = content::files::read_text(&path, root).map_err(|d| vec![d])?;
        let written = with_record(&text, kind_of(page), &fingerprint);
        if written != text {
            std::fs::write(&path, written).map_err(|e| {
                vec![Diagnostic::new(
                    page.source.clone(),
                    format!("cannot write it: {e}"),
                )]
            })?;
            changed.push(page.source.clone());
        }
    }
    Ok(changed)
}

/// The page of the default language `page` translates.
fn source_of<'a>(pages: &'a [std::sync::Arc<Page>], page: &Page) -> Option<&'a Page> {
    let key = page.translation_key();
    pages
        .binary_search_by(|p| p.route.as_str().cmp(key))
        .ok()
        .map(|at| pages[at].as_ref())
        .filter(|p| p.lang.is_default())
}

/// `text` (a page file) with its record of its source replaced by
/// `fingerprint`: every other line as it was. In a page of blocks the record
/// goes before `blocks:`; in a Markdown page, at the end of its front matter.
pub fn with_record(text: &str, kind: Kind, fingerprint: &[(String, String)]) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // The part that holds the fields: the whole file, or the front matter.
    let (start, end) = match kind {
        Kind::Page => (0, lines.len()),
        _ => {
            let close = lines
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, l)| l.trim_end() == "---")
                .map_or(lines.len(), |(i, _)| i);
            (1.min(lines.len()), close)
        }
    };
    // The old record: its key line and the indented lines under it.
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if i >= start && i < end && lines[i].starts_with("translated_from:") {
            i += 1;
            while i < end && (lines[i].starts_with(' ') || lines[i].trim().is_empty()) {
                i += 1;
            }
            continue;
        }
        kept.push(lines[i]);
        i += 1;
    }
    let removed = lines.len() - kept.len();
    let end = end - removed;
    let at = match kind {
        Kind::Page => kept[start..end]
            .iter()
            .position(|l| l.starts_with("blocks:"))
            .map_or(end, |p| start + p),
        _ => end,
    };
    let mut record = String::from("translated_from:\n");
    for (path, print) in fingerprint {
        let key = match path.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            true => path.clone(),
            false => format!("\"{path}\""),
        };
        record.push_str(&format!("  {key}: \"{print}\"\n"));
    }
    let mut out = String::with_capacity(text.len() + record.len());
    for line in &kept[..at] {
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&record);
    for line in &kept[at..] {
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print() -> Vec<(String, String)> {
        vec![
            ("title".into(), "1a2b3c4d".into()),
            ("blocks[0].heading".into(), "00000001".into()),
        ]
    }

    #[test]
    fn a_page_of_blocks_gets_its_record_before_its_blocks_and_keeps_every_other_line() {
        let text = "# yaml-language-server: $schema=../../schemas/page.schema.json\ntitle: Über uns # kept\ndescription: Wer wir sind\n\nblocks:\n  - type: text\n    heading: Unsere Geschichte\n";
        let written = with_record(text, Kind::Page, &print());
        assert_eq!(
            written,
            "# yaml-language-server: $schema=../../schemas/page.schema.json\ntitle: Über uns # kept\ndescription: Wer wir sind\n\ntranslated_from:\n  title: \"1a2b3c4d\"\n  \"blocks[0].heading\": \"00000001\"\nblocks:\n  - type: text\n    heading: Unsere Geschichte\n"
        );
        // Marked again, the old record is replaced, nothing else moves.
        let again = with_record(&written, Kind::Page, &[("title".into(), "ffffffff".into())]);
        assert_eq!(
            again,
            text.replace(
                "\nblocks:",
                "\ntranslated_from:\n  title: \"ffffffff\"\nblocks:"
            )
        );
        let node = crate::content::yaml::parse(&written).unwrap();
        assert!(node.get("translated_from").is_some());
    }

    #[test]
    fn a_markdown_page_gets_its_record_at_the_end_of_its_front_matter() {
        let text = "---\ntitle: KI\ndescription: D\n---\nText.\n";
        let written = with_record(text, Kind::Article, &print()[..1]);
        assert_eq!(
            written,
            "---\ntitle: KI\ndescription: D\ntranslated_from:\n  title: \"1a2b3c4d\"\n---\nText.\n"
        );
        assert_eq!(with_record(&written, Kind::Article, &print()[..1]), written);
    }
}
