//! The forms' rules as a TypeScript module (`islands/lib/forms.generated.ts`):
//! the limits, patterns and spam measures the islands check before sending,
//! and the deploy scripts read, from the same description as the migrations.

use serde_json::{json, Map, Value};

use super::applications::JOB_APPLICATIONS;
use super::contact::CONTACT_MESSAGES;
use super::table::{Rule, Table, SEND_KEY};
use crate::storage::policy::{BucketPolicy, APPLICATIONS, CONTACT_ATTACHMENTS};

/// The module's path below the repository root.
pub const PATH: &str = "islands/lib/forms.generated.ts";

fn table(t: &Table) -> Value {
    let max: Map<String, Value> = t
        .max_lengths()
        .into_iter()
        .map(|(column, max)| (column.to_string(), json!(max)))
        .collect();
    let patterns: Map<String, Value> = t
        .checks
        .iter()
        .filter_map(|c| match c.rule {
            Rule::Pattern {
                column, pattern, ..
            } => Some((column.to_string(), json!(pattern))),
            _ => None,
        })
        .collect();
    let required: Vec<&str> = t
        .columns
        .iter()
        .filter(|c| c.anon_insert && c.not_null && c.default.is_none())
        .map(|c| c.name)
        .collect();
    json!({
        "table": t.name,
        "sendKey": SEND_KEY.name,
        "required": required,
        "maxLength": max,
        "patterns": patterns,
        "minFillMs": t.spam.min_fill_ms,
        "rateLimit": t.spam.rate_limit,
        "retention": {
            "setting": t.retention.setting,
            "defaultMonths": t.retention.default_months,
        },
    })
}

fn bucket(b: &BucketPolicy) -> Value {
    json!({
        "name": b.name,
        "public": b.public,
        "maxBytes": b.file_size_limit,
        "types": b.allowed_mime_types,
        "keyPattern": b.insert_key_pattern,
    })
}

/// The module's text.
pub fn module() -> String {
    let pretty = |v: Value| serde_json::to_string_pretty(&v).unwrap_or_default();
    format!(
        "// The forms' rules, for the islands and the deploy scripts: the same\n\
         // description the migrations and `site serve` are made from. Generated from\n\
         // generator/src/forms/ by `site forms --write`; a test fails when it differs.\n\
         \n\
         export const CONTACT_MESSAGES = {} as const;\n\
         \n\
         export const JOB_APPLICATIONS = {} as const;\n\
         \n\
         export const CONTACT_ATTACHMENTS = {} as const;\n\
         \n\
         export const APPLICATIONS = {} as const;\n",
        pretty(table(&CONTACT_MESSAGES)),
        pretty(table(&JOB_APPLICATIONS)),
        pretty(bucket(&CONTACT_ATTACHMENTS)),
        pretty(bucket(&APPLICATIONS)),
    )
}
