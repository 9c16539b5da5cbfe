//! Inputs that once made a fuzz target (`make fuzz`) panic, kept as tests: each
//! file of `tests/fuzz-cases/<target>/` goes through what that target does, and
//! must give a page or errors that can be shown, never a panic.

use std::path::Path;
use std::sync::Arc;

use site::content::publishing::{Collection, CollectionKind};
use site::content::{page, yaml, SiteConfig};

fn cases(target: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-cases")
        .join(target);
    let mut cases: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            // The targets take UTF-8 text only.
            let text = String::from_utf8(bytes).ok()?;
            Some((e.file_name().to_string_lossy().to_string(), text))
        })
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    cases
}

/// Errors as the terminal shows them: every one must have its text.
fn shown(diagnostics: &[site::Diagnostic]) -> String {
    let text = site::diagnostics::render(diagnostics, false);
    assert!(diagnostics.is_empty() || !text.is_empty());
    text
}

#[test]
fn yaml_that_once_panicked_gives_errors_at_a_position() {
    const FILE: &str = "content/pages/fuzz.yaml";
    for (name, text) in cases("yaml_page") {
        let source: Arc<str> = text.as_str().into();
        let mut diagnostics = Vec::new();
        if let Err(failed) = page::from_yaml("/fuzz/".into(), FILE.into(), &text) {
            diagnostics.extend(failed.errors.iter().map(|e| e.diagnostic(FILE, &source)));
        }
        match yaml::parse(&text) {
            Ok(node) => {
                if let Err(failed) = yaml::read::<SiteConfig>(&node, "") {
                    diagnostics.extend(failed.errors.iter().map(|e| e.diagnostic(FILE, &source)));
                }
            }
            Err(e) => diagnostics.push(e.diagnostic(FILE, &source)),
        }
        assert!(!diagnostics.is_empty(), "{name}: not a page");
        assert!(shown(&diagnostics).contains(FILE), "{name}");
    }
}

#[test]
fn markdown_that_once_panicked_gives_errors_at_a_position() {
    const FILE: &str = "content/pages/insights/fuzz.md";
    for (name, text) in cases("front_matter") {
        let source: Arc<str> = text.as_str().into();
        // Every kind of collection reads front matter of its own.
        let reading = page::Reading {
            offices: vec!["London".into()],
            ..Default::default()
        };
        let collections = [
            CollectionKind::Articles,
            CollectionKind::Events,
            CollectionKind::Jobs,
        ]
        .map(|kind| Collection {
            name: "insights".into(),
            kind,
            per_page: 12,
        });
        for collection in [None].into_iter().chain(collections.iter().map(Some)) {
            if let Err(failed) =
                page::from_markdown("/fuzz/".into(), FILE.into(), &text, collection, &reading)
            {
                let diagnostics: Vec<_> = failed
                    .errors
                    .iter()
                    .map(|e| e.diagnostic(FILE, &source))
                    .collect();
                assert!(shown(&diagnostics).contains(FILE), "{name}");
            }
        }
    }
}
