//! `site check`: review the built site and report every finding.

use std::path::PathBuf;

use crate::cli::CheckArgs;
use site::check;

pub fn run(args: &CheckArgs) -> bool {
    let out: PathBuf = args.out.clone().unwrap_or_else(|| args.root.join("dist"));
    let summary = match check::check(&out) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let mut page = "";
    for (i, f) in summary.findings.iter().enumerate() {
        if f.page != page {
            page = &f.page;
            println!("{page}");
        }
        println!("  {}. {}", i + 1, f.message);
    }
    // How far each language is translated: pages, and the words outside them.
    for c in check::coverage(&args.root).unwrap_or_default() {
        let total = c.translated + c.missing.len();
        println!(
            "{} ({}): {} of {total} pages translated ({} stale), {} missing; {} strings missing in {}",
            c.name,
            c.code,
            c.translated,
            c.stale.len(),
            c.missing.len(),
            c.missing_strings.len(),
            c.strings_file
        );
        for route in &c.missing {
            println!("  not translated: {route}");
        }
        for key in &c.missing_strings {
            println!("  {}: missing `{key}`", c.strings_file);
        }
        // Stale translations are listed, not findings: the site is whole, and a
        // translator brings each up to date when they can.
        for stale in &c.stale {
            println!(
                "  stale: {} (from {}): its words changed since in {}",
                stale.file,
                stale.source_file,
                stale.fields.join(", ")
            );
        }
    }
    let n = summary.findings.len();
    // The build counts its pages; each language's 404 page is one more HTML
    // file here.
    let pages = match summary.not_found {
        0 => format!("{} pages", summary.pages),
        1 => format!("{} pages and the 404 page", summary.pages - 1),
        n => format!("{} pages and {n} 404 pages", summary.pages - n),
    };
    println!(
        "Checked {pages}, {} links and {} images in {}: {}",
        summary.links,
        summary.images,
        out.display(),
        match n {
            0 => "no findings".to_string(),
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        }
    );
    n == 0
}
