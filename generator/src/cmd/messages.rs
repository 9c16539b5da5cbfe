//! `site messages`: what visitors sent through `site serve`'s contact form, newest
//! last.

use site::forms::contact::CONTACT_MESSAGES;
use site::forms::postgres::Value;
use site::rest::{Inbox, Row};

use crate::cli::MessagesArgs;

/// A column's value as text: empty when NULL.
pub fn text(row: &Row, name: &str) -> String {
    match row.get(name) {
        Some(Value::Text(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Int(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The stored rows of a table, or None after saying why not.
pub fn rows(root: &std::path::Path, table: &site::forms::table::Table) -> Option<Vec<Row>> {
    match Inbox::list(root, table) {
        Ok(rows) => Some(rows),
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

pub fn run(args: &MessagesArgs) -> bool {
    let Some(rows) = rows(&args.root, &CONTACT_MESSAGES) else {
        return false;
    };
    if args.json {
        for row in &rows {
            println!("{}", serde_json::to_string(row).unwrap_or_default());
        }
        return true;
    }
    for row in &rows {
        let text = |name: &str| text(row, name);
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
    let delivery = site::content::message_delivery(&args.root);
    println!(
        "{} in {} (contact.messages: {})",
        match rows.len() {
            1 => "1 message".to_string(),
            n => format!("{n} messages"),
        },
        Inbox::dir(&args.root, &CONTACT_MESSAGES).display(),
        delivery.as_str()
    );
    true
}
