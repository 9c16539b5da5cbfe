//! A Markdown page read from any text: the front matter split off, read as
//! YAML, the body rendered. An error is fine, a panic is not.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use site::content::page;

const FILE: &str = "content/pages/insights/fuzz.md";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source: Arc<str> = text.into();
    for collection in [None, Some("insights")] {
        match page::from_markdown("/fuzz/".into(), FILE.into(), text, collection) {
            Ok(_) => {}
            Err(failed) => {
                let diagnostics: Vec<_> = failed
                    .errors
                    .iter()
                    .map(|e| e.diagnostic(FILE, &source))
                    .collect();
                let _ = site::diagnostics::render(&diagnostics, false);
            }
        }
    }
});
