//! `site messages`: what visitors sent through `site serve`'s contact form, newest
//! last, or `--write-migration` to render the messages' table for Supabase.

use site::messages::{policy, policy::Value, Inbox};

use crate::cli::MessagesArgs;

pub fn run(args: &MessagesArgs) -> bool {
    if args.write_migration {
        let months = site::content::message_settings(&args.root).retention_months;
        let path = args.root.join(policy::MIGRATION);
        return match std::fs::write(&path, policy::migration_sql(months)) {
            Ok(()) => {
                println!(
                    "Wrote {} (messages kept {months} months): apply it to the Supabase \
                     project as docs/deploy.md says",
                    path.display()
                );
                true
            }
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                false
            }
        };
    }
    let rows = match Inbox::list(&args.root) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    if args.json {
        for row in &rows {
            println!("{}", serde_json::to_string(row).unwrap_or_default());
        }
        return true;
    }
    for row in &rows {
        let text = |name: &str| match row.get(name) {
            Some(Value::Text(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Int(n)) => n.to_string(),
            _ => String::new(),
        };
        println!("── {} · from {}", text("received_at"), text("page"));
        println!("From:    {} <{}>", text("name"), text("email"));
        for (label, name) in [("Phone:", "phone"), ("Company:", "company")] {
            if !text(name).is_empty() {
                println!("{label:<8} {}", text(name));
            }
        }
        println!("Subject: {}", text("subject"));
        if !text("attachment_url").is_empty() {
            println!("Image:   {}", text("attachment_url"));
        }
        println!();
        for line in text("message").lines() {
            println!("  {line}");
        }
        println!();
    }
    let settings = site::content::message_settings(&args.root);
    println!(
        "{} in {} (contact.messages: {})",
        match rows.len() {
            1 => "1 message".to_string(),
            n => format!("{n} messages"),
        },
        Inbox::dir(&args.root).display(),
        settings.messages.as_str()
    );
    true
}
