//! The forms' tables, each described once (`table.rs`): the contact form's
//! messages (`contact.rs`) and the careers form's applications
//! (`applications.rs`). From a description come the Supabase migration
//! (`sql.rs`, with the triggers of `guards.rs`), `site serve`'s verdict on a row
//! (`postgres.rs`), and the constants the islands import (`constants.rs`). The
//! generated files are committed; `site forms --write` writes them again and a
//! test fails while one differs.

pub mod applications;
pub mod constants;
pub mod contact;
pub mod guards;
pub mod postgres;
pub mod sender;
pub mod sql;
pub mod table;

use std::path::{Path, PathBuf};

use crate::storage::policy::APPLICATIONS;
use table::Table;

/// Every form's table.
pub const TABLES: &[&Table] = &[&contact::CONTACT_MESSAGES, &applications::JOB_APPLICATIONS];

/// The table named `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// How many months `table`'s rows are kept, by its setting in content/site.yaml.
pub fn retention_months(root: &Path, table: &Table) -> u32 {
    crate::content::retention_months(root, table.retention.setting)
        .unwrap_or(table.retention.default_months)
}

/// Each generated file, below `root`, with what it should hold.
pub fn generated(root: &Path) -> Vec<(PathBuf, String)> {
    let contact = &contact::CONTACT_MESSAGES;
    let jobs = &applications::JOB_APPLICATIONS;
    vec![
        (
            root.join(contact.migration),
            sql::migration_sql(contact, retention_months(root, contact), &[]),
        ),
        (
            root.join(jobs.migration),
            sql::migration_sql(jobs, retention_months(root, jobs), &[&APPLICATIONS]),
        ),
        (root.join(constants::PATH), constants::module()),
    ]
}

/// The generated files that differ from what is committed.
pub fn stale(root: &Path) -> Vec<PathBuf> {
    generated(root)
        .into_iter()
        .filter(|(path, text)| std::fs::read_to_string(path).ok().as_deref() != Some(text))
        .map(|(path, _)| path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::postgres::*;
    use super::table::*;
    use super::*;
    use std::collections::HashMap;

    fn row(pairs: &[(&str, Value)]) -> impl Fn(&str) -> Value {
        let map: HashMap<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        move |k: &str| map.get(k).cloned().unwrap_or(Value::Null)
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    const CONTACT: &Table = &contact::CONTACT_MESSAGES;

    #[test]
    fn the_checks_are_in_the_order_postgresql_tests_them_and_name_their_table() {
        for table in TABLES {
            let names: Vec<&str> = table.checks.iter().map(|c| c.name).collect();
            let mut sorted = names.clone();
            sorted.sort();
            assert_eq!(names, sorted, "{}", table.name);
            for name in names {
                assert!(name.starts_with(table.name), "{name}");
            }
            let guards: Vec<&str> = table.guards.iter().map(|g| g.suffix()).collect();
            let mut sorted = guards.clone();
            sorted.sort();
            assert_eq!(guards, sorted, "{}: guards fire in name order", table.name);
            assert!(guards.iter().all(|g| *g < "rate_limit"));
        }
    }

    #[test]
    fn the_patterns_compile_and_name_columns_of_their_table() {
        for table in TABLES {
            for check in table.checks {
                if let Rule::Pattern {
                    pattern, column, ..
                } = check.rule
                {
                    assert!(regex::Regex::new(pattern).is_ok(), "{pattern}");
                    assert!(table.column(column).is_some(), "{column}");
                }
            }
        }
    }

    #[test]
    fn a_row_breaks_the_first_failing_check_by_name() {
        let get = row(&[
            ("name", text(" ")),
            ("email", text("not an address")),
            ("privacy", Value::Bool(true)),
        ]);
        let refusal = check_violation(CONTACT, &get).unwrap();
        assert!(
            refusal.message.contains("contact_messages_email_check"),
            "{}",
            refusal.message
        );
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let at_most = "é".repeat(MAX_NAME);
        assert!(check_violation(CONTACT, &row(&[("name", text(&at_most))])).is_none());
        let over = "é".repeat(MAX_NAME + 1);
        assert!(check_violation(CONTACT, &row(&[("name", text(&over))])).is_some());
    }

    #[test]
    fn a_cv_must_be_in_its_own_postings_folder_and_a_profile_on_https() {
        let jobs = &applications::JOB_APPLICATIONS;
        let broken =
            |pairs: &[(&str, Value)]| check_violation(jobs, &row(pairs)).map(|r| r.message);
        let own = [
            ("job_id", text("security-consultant-london")),
            (
                "cv_key",
                text("security-consultant-london/1763800000000_cv.pdf"),
            ),
        ];
        assert_eq!(broken(&own), None);
        let other = [
            ("job_id", text("security-consultant-london")),
            ("cv_key", text("senior-data-engineer/1763800000000_cv.pdf")),
        ];
        assert!(broken(&other)
            .unwrap()
            .contains("job_applications_cv_folder_check"));
        for url in ["http://example.com/me", "javascript:alert(1)", "https://"] {
            let got = broken(&[("profile_url", text(url))]).unwrap_or_default();
            assert!(got.contains("profile_url_check"), "{url}: {got}");
        }
        assert_eq!(
            broken(&[("profile_url", text("https://www.linkedin.com/in/asha"))]),
            None
        );
        assert!(broken(&[("country", text("gb"))]).is_some());
    }

    #[test]
    fn the_policy_wants_an_empty_trap_and_a_human_pace() {
        let passes = |trap: Value, fill: Value| {
            passes_insert_policy(CONTACT, &row(&[("website", trap), ("fill_ms", fill)]))
        };
        assert!(passes(Value::Null, Value::Int(3000)));
        assert!(passes(text(""), Value::Int(60_000)));
        assert!(!passes(text("http://spam"), Value::Int(60_000)));
        assert!(!passes(Value::Null, Value::Int(2999)));
        assert!(!passes(Value::Null, Value::Null));
    }

    #[test]
    fn values_are_read_as_postgresql_reads_them() {
        use serde_json::json;
        assert_eq!(
            read_value(Type::Boolean, &json!("YES")),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            read_value(Type::Boolean, &json!("of")),
            Ok(Value::Bool(false))
        );
        assert_eq!(read_value(Type::Boolean, &json!(1)), Ok(Value::Bool(true)));
        assert_eq!(
            read_value(Type::Boolean, &json!("o")).unwrap_err().message,
            "invalid input syntax for type boolean: \"o\""
        );
        assert_eq!(
            read_value(Type::Integer, &json!(" 42 ")),
            Ok(Value::Int(42))
        );
        assert_eq!(
            read_value(Type::Integer, &json!(3.5)).unwrap_err().code,
            "22P02"
        );
        assert_eq!(
            read_value(Type::Integer, &json!(4_000_000_000u64))
                .unwrap_err()
                .code,
            "22003"
        );
        assert_eq!(read_value(Type::Text, &json!(true)), Ok(text("true")));
        let key = "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b";
        for form in [
            key.to_string(),
            key.to_uppercase(),
            format!("{{{key}}}"),
            key.replace('-', ""),
            "3f2a-9c1e-0b4d-4e8f-9a7b-6c5d-4e3f-2a1b".into(),
        ] {
            assert_eq!(
                read_value(Type::Uuid, &json!(form)),
                Ok(text(key)),
                "{form}"
            );
        }
        for bad in [
            format!(" {key}"),
            format!("{{{key}"),
            format!("{key}-"),
            "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1".into(),
            "3f2a9c1e--0b4d-4e8f-9a7b-6c5d4e3f2a1b".into(),
            "3f2a9c1-e0b4d-4e8f-9a7b-6c5d4e3f2a1b".into(),
            "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1g".into(),
        ] {
            let refusal = read_value(Type::Uuid, &json!(bad)).unwrap_err();
            assert_eq!(
                refusal.message,
                format!("invalid input syntax for type uuid: \"{bad}\""),
            );
        }
        assert_eq!(
            read_value(Type::Text, &json!("a\u{0}b")).unwrap_err().code,
            "22P05"
        );
    }

    #[test]
    fn the_retentions_are_read_from_site_yaml() {
        let dir = std::env::temp_dir().join(format!("site-retention-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("content")).unwrap();
        std::fs::write(
            dir.join("content/site.yaml"),
            "name: X\ncontact:\n  address: A\n  messages: supabase\n  retention_months: 9\ncareers:\n  retention_months: 3\n",
        )
        .unwrap();
        assert_eq!(retention_months(&dir, CONTACT), 9);
        assert_eq!(retention_months(&dir, &applications::JOB_APPLICATIONS), 3);
        assert_eq!(
            crate::content::message_delivery(&dir),
            crate::content::site::MessageDelivery::Supabase
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(retention_months(&dir, CONTACT), 12);
        assert_eq!(retention_months(&dir, &applications::JOB_APPLICATIONS), 6);
    }

    /// The committed migrations and constants are what the descriptions render
    /// with the project's retentions, so production, `site serve` and the
    /// islands cannot drift apart. `site forms --write` writes them again.
    #[test]
    fn the_committed_generated_files_are_rendered_from_the_descriptions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let stale = stale(&root);
        assert!(
            stale.is_empty(),
            "{stale:?} differ from generator/src/forms/ and content/site.yaml; run `site forms --write`"
        );
    }
}
