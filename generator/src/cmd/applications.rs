//! `site applications`: the job applications `site serve` received, newest
//! last, with where each CV is on disk; or `--openings`, the postings the
//! applications' table takes them for, as the deploy sends them to Supabase.

use site::content::openings::openings;
use site::forms::applications::JOB_APPLICATIONS;
use site::rest::Inbox;
use site::storage::policy::APPLICATIONS;

use super::messages::{rows, text};
use crate::cli::ApplicationsArgs;

pub fn run(args: &ApplicationsArgs) -> bool {
    if args.openings {
        return print_openings(args);
    }
    let Some(rows) = rows(&args.root, &JOB_APPLICATIONS) else {
        return false;
    };
    if args.json {
        for row in &rows {
            println!("{}", serde_json::to_string(row).unwrap_or_default());
        }
        return true;
    }
    let storage = args.root.join(".site").join("storage");
    for row in &rows {
        let text = |name: &str| text(row, name);
        println!("── {} · {}", text("received_at"), text("job_id"));
        println!("From:    {} <{}>", text("name"), text("email"));
        println!("Phone:   {}", text("phone"));
        println!("Country: {}", text("country"));
        if !text("profile_url").is_empty() {
            println!("Profile: {}", text("profile_url"));
        }
        let cv = site::storage::local_file(&storage, APPLICATIONS.name, &text("cv_key"));
        match cv {
            Some(path) if path.is_file() => println!("CV:      {}", path.display()),
            _ => println!("CV:      {} (not in .site/storage/)", text("cv_key")),
        }
        println!();
        for line in text("note").lines() {
            println!("  {line}");
        }
        println!();
    }
    println!(
        "{} in {} (kept {} months: careers.retention_months)",
        match rows.len() {
            1 => "1 application".to_string(),
            n => format!("{n} applications"),
        },
        Inbox::dir(&args.root, &JOB_APPLICATIONS).display(),
        site::forms::retention_months(&args.root, &JOB_APPLICATIONS),
    );
    true
}

fn print_openings(args: &ApplicationsArgs) -> bool {
    match site::content::load(&args.root) {
        Ok(content) => {
            let all = openings(&content.pages, content.config.timezone.tz());
            println!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
            true
        }
        Err(failure) => {
            eprint!("{}", site::diagnostics::render(&failure.diagnostics, false));
            false
        }
    }
}
