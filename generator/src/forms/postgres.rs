//! PostgreSQL's verdict on a row of a form's table, as `site serve`'s built-in
//! backend reproduces it: each value read by its column's type, the row-level
//! security policy, NOT NULL, then the CHECK constraints by name, each with
//! PostgreSQL's SQLSTATE and words.

use regex::Regex;

use super::table::{Fill, Rule, Table, Type, RATE_LIMIT_CODE};

/// A value of a row, once read as its column's type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Text(String),
}

impl Value {
    pub fn text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl Fill {
    pub fn sql(self) -> String {
        match self {
            Fill::Uuid => "gen_random_uuid()".into(),
            Fill::Now => "now()".into(),
            Fill::Text(t) => sql_text(t),
        }
    }

    /// The value it gives a row inserted now.
    pub fn value(self) -> Value {
        Value::Text(match self {
            Fill::Uuid => uuid::Uuid::new_v4().to_string(),
            Fill::Now => chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            Fill::Text(t) => t.to_string(),
        })
    }
}

/// A string as an SQL literal.
pub fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Why PostgreSQL (or PostgREST before it) refuses a row, with its SQLSTATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub details: Option<String>,
}

impl Refusal {
    pub fn new(code: &'static str, message: String) -> Refusal {
        Refusal {
            code,
            message,
            details: None,
        }
    }
}

/// The row-level security policy: no honeypot, and not sent too soon.
pub fn passes_insert_policy(table: &Table, get: &dyn Fn(&str) -> Value) -> bool {
    let trap_empty = match get(table.spam.trap) {
        Value::Null => true,
        Value::Text(s) => s.is_empty(),
        _ => false,
    };
    trap_empty && matches!(get(table.spam.fill), Value::Int(ms) if ms >= table.spam.min_fill_ms)
}

/// The first NOT NULL column, in column order, that `get` finds NULL.
pub fn not_null_violation(table: &Table, get: &dyn Fn(&str) -> Value) -> Option<Refusal> {
    table
        .columns
        .iter()
        .find(|c| c.not_null && get(c.name) == Value::Null)
        .map(|c| {
            Refusal::new(
                "23502",
                format!(
                    "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                    c.name, table.name
                ),
            )
        })
}

/// PostgreSQL's `btrim(x)` with one argument: spaces only.
fn blank(s: &str) -> bool {
    s.trim_matches(' ').is_empty()
}

impl Rule {
    /// PostgreSQL's verdict: a CHECK passes when its expression is true or NULL.
    pub fn holds(&self, get: &dyn Fn(&str) -> Value) -> bool {
        match self {
            Rule::Length {
                column,
                max,
                required,
            } => match get(column) {
                Value::Text(s) => s.chars().count() <= *max && !(*required && blank(&s)),
                _ => true,
            },
            Rule::Pattern {
                column,
                max,
                pattern,
            } => match get(column) {
                Value::Text(s) => {
                    s.chars().count() <= *max && Regex::new(pattern).is_ok_and(|p| p.is_match(&s))
                }
                _ => true,
            },
            Rule::IsTrue(column) => !matches!(get(column), Value::Bool(false)),
            Rule::OneOf(column, allowed) => match get(column) {
                Value::Text(s) => allowed.contains(&s.as_str()),
                _ => true,
            },
            Rule::Together(a, b) => (get(a) == Value::Null) == (get(b) == Value::Null),
            // split_part(key, '/', 1) = folder
            Rule::FolderIs { column, folder } => match (get(column), get(folder)) {
                (Value::Text(key), Value::Text(folder)) => {
                    key.split('/').next().unwrap_or("") == folder
                }
                _ => true,
            },
        }
    }

    pub fn sql(&self) -> String {
        match self {
            Rule::Length {
                column,
                max,
                required: true,
            } => format!("char_length({column}) <= {max} and btrim({column}) <> ''"),
            Rule::Length { column, max, .. } => format!("char_length({column}) <= {max}"),
            Rule::Pattern {
                column,
                max,
                pattern,
            } => format!(
                "char_length({column}) <= {max} and {column} ~ {}",
                sql_text(pattern)
            ),
            Rule::IsTrue(column) => column.to_string(),
            Rule::OneOf(column, allowed) => {
                let list: Vec<String> = allowed.iter().map(|a| sql_text(a)).collect();
                format!("{column} in ({})", list.join(", "))
            }
            Rule::Together(a, b) => format!("({a} is null) = ({b} is null)"),
            Rule::FolderIs { column, folder } => {
                format!("split_part({column}, '/', 1) = {folder}")
            }
        }
    }
}

/// The first CHECK constraint, by name, that the row breaks.
pub fn check_violation(table: &Table, get: &dyn Fn(&str) -> Value) -> Option<Refusal> {
    table.checks.iter().find(|c| !c.rule.holds(get)).map(|c| {
        Refusal::new(
            "23514",
            format!(
                "new row for relation \"{}\" violates check constraint \"{}\"",
                table.name, c.name
            ),
        )
    })
}

pub fn refused_by_policy(table: &Table) -> Refusal {
    Refusal::new(
        "42501",
        format!(
            "new row violates row-level security policy for table \"{}\"",
            table.name
        ),
    )
}

pub fn permission_denied(table: &Table) -> Refusal {
    Refusal::new(
        "42501",
        format!("permission denied for table {}", table.name),
    )
}

/// What a row is told whose send key was sent before with other words. The
/// form makes a new key when the words change, so only another client meets it.
pub const REUSED_KEY_MESSAGE: &str =
    "This message's key was sent before with other words: a new message needs a new key.";
/// Its SQLSTATE, a unique violation's (PostgREST answers 409).
pub const REUSED_KEY_CODE: &str = "23505";

/// The rate limit's keys: `address:<ip>` and `email:<lowercased address>`.
pub const ADDRESS_KEY: &str = "address:";
pub const EMAIL_KEY: &str = "email:";

/// What a sender over the limit is told: by its network address, or by its
/// e-mail address.
pub fn rate_limit_message(table: &Table, by_address: bool) -> String {
    let rows = table.rows;
    if by_address {
        format!("Too many {rows} have been sent from your network in the last hour. Please try again later.")
    } else {
        format!("Too many {rows} have been sent from this e-mail address in the last hour. Please try again later.")
    }
}

/// The refusal of a sender whose rate-limit `key` is over the limit.
pub fn rate_limited(table: &Table, key: &str) -> Refusal {
    Refusal::new(
        RATE_LIMIT_CODE,
        rate_limit_message(table, key.starts_with(ADDRESS_KEY)),
    )
}

/// Reads a JSON value as PostgreSQL's `json_to_recordset` does for a column of
/// type `ty`: a string by its text, any other scalar by its JSON text, each through
/// the type's input function.
pub fn read_value(ty: Type, json: &serde_json::Value) -> Result<Value, Refusal> {
    use serde_json::Value as J;
    let text = match json {
        J::Null => return Ok(Value::Null),
        J::String(s) => {
            if s.contains('\0') {
                return Err(Refusal {
                    code: "22P05",
                    message: "unsupported Unicode escape sequence".into(),
                    details: Some("\\u0000 cannot be converted to text.".into()),
                });
            }
            s.clone()
        }
        other => other.to_string(),
    };
    let invalid = |type_name: &str| {
        Refusal::new(
            "22P02",
            format!("invalid input syntax for type {type_name}: \"{text}\""),
        )
    };
    match ty {
        Type::Text => Ok(Value::Text(text.clone())),
        Type::Boolean => parse_bool(&text)
            .map(Value::Bool)
            .ok_or_else(|| invalid("boolean")),
        Type::Integer => {
            let t = text.trim();
            let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return Err(invalid("integer"));
            }
            match t.parse::<i32>() {
                Ok(n) => Ok(Value::Int(n.into())),
                Err(_) => Err(Refusal::new(
                    "22003",
                    format!("value \"{text}\" is out of range for type integer"),
                )),
            }
        }
        Type::Uuid => parse_uuid(&text)
            .map(Value::Text)
            .ok_or_else(|| invalid("uuid")),
        // Never written by the public (no grant), so never read from a request.
        Type::Timestamptz => Ok(Value::Text(text.clone())),
    }
}

/// PostgreSQL's `uuid_in`: 32 hex digits, either case, a hyphen allowed after
/// any group of four but the last, the whole optionally in braces; as it
/// prints it (lowercase, hyphenated 8-4-4-4-12), which is how it compares.
fn parse_uuid(text: &str) -> Option<String> {
    let inner = match text.strip_prefix('{') {
        Some(rest) => rest.strip_suffix('}')?,
        None => text,
    };
    let bytes = inner.as_bytes();
    let mut digits = String::with_capacity(32);
    let mut at = 0;
    for i in 0..16 {
        let pair = bytes.get(at..at + 2)?;
        if !pair.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        digits.push_str(&inner[at..at + 2]);
        at += 2;
        if i % 2 == 1 && i < 15 && bytes.get(at) == Some(&b'-') {
            at += 1;
        }
    }
    if at != bytes.len() {
        return None;
    }
    let d = digits.to_ascii_lowercase();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &d[..8],
        &d[8..12],
        &d[12..16],
        &d[16..20],
        &d[20..]
    ))
}

/// PostgreSQL's `boolin`: any unique prefix of true/false/yes/no, `on`/`off`,
/// `1`/`0`, ignoring case and surrounding whitespace.
fn parse_bool(text: &str) -> Option<bool> {
    let t = text.trim().to_ascii_lowercase();
    let prefix_of = |word: &str, min: usize| t.len() >= min && word.starts_with(t.as_str());
    if prefix_of("true", 1) || prefix_of("yes", 1) || t == "on" || t == "1" {
        Some(true)
    } else if prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || t == "0" {
        Some(false)
    } else {
        None
    }
}
