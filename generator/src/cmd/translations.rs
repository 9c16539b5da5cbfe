//! `site translations`: every translation with where it stands against its
//! source, or `--mark-current` to record that translations say what their
//! sources say now.

use std::io::IsTerminal;

use site::diagnostics;
use site::translation_status::{self, State};

use crate::cli::TranslationsArgs;

pub fn run(args: &TranslationsArgs) -> bool {
    let failed = |diags: Vec<site::Diagnostic>| {
        eprint!(
            "{}",
            diagnostics::render(&diags, std::io::stderr().is_terminal())
        );
        false
    };
    if let Some(files) = &args.mark_current {
        if files.is_empty() && !args.all {
            eprintln!("error: name the translations to mark current (`--mark-current content/pages/about.de.yaml`), or every one with `--mark-current --all`");
            return false;
        }
        if !files.is_empty() && args.all {
            eprintln!("error: `--all` marks every translation: name no file with it");
            return false;
        }
        return match translation_status::mark_current(&args.root, files) {
            Ok(changed) if changed.is_empty() => {
                println!("Every translation named already records its source as it is.");
                true
            }
            Ok(changed) => {
                for file in &changed {
                    println!("marked current: {file}");
                }
                true
            }
            Err(diags) => failed(diags),
        };
    }
    match translation_status::list(&args.root) {
        Ok(list) => {
            let stale = list
                .iter()
                .filter(|t| matches!(t.state, State::Stale(_)))
                .count();
            for t in &list {
                match &t.state {
                    State::Current => println!("current     {} (from {})", t.file, t.source),
                    State::Unrecorded => {
                        println!("unrecorded  {} (from {})", t.file, t.source)
                    }
                    State::Stale(fields) => println!(
                        "stale       {} (from {}): changed since in {}",
                        t.file,
                        t.source,
                        fields.join(", ")
                    ),
                }
            }
            println!(
                "{} translations, {stale} stale{}",
                list.len(),
                match stale {
                    0 => "",
                    _ => ": bring each up to date and save it in the editor, or mark it current with `site translations --mark-current FILE`",
                }
            );
            true
        }
        Err(diags) => failed(diags),
    }
}
