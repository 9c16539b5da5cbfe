//! A page of blocks and `site.yaml` read from any text: an error is fine, a
//! panic or a diagnostic that cannot be shown is not.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use site::content::{page, yaml, SiteConfig};

const FILE: &str = "content/pages/fuzz.yaml";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source: Arc<str> = text.into();
    let mut diagnostics = Vec::new();
    if let Err(failed) = page::from_yaml("/fuzz/".into(), FILE.into(), text) {
        diagnostics.extend(failed.errors.iter().map(|e| e.diagnostic(FILE, &source)));
    }
    match yaml::parse(text) {
        Ok(node) => {
            if let Err(failed) = yaml::read::<SiteConfig>(&node, "") {
                diagnostics.extend(failed.errors.iter().map(|e| e.diagnostic(FILE, &source)));
            }
            diagnostics.extend(
                yaml::cut_by_comments(text, &node)
                    .iter()
                    .map(|w| w.warning(FILE, &source)),
            );
        }
        Err(e) => diagnostics.push(e.diagnostic(FILE, &source)),
    }
    let shown = site::diagnostics::render(&diagnostics, false);
    assert!(diagnostics.is_empty() || !shown.is_empty());
});
