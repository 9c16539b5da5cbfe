//! The contact messages' table and its rules, in one place: its columns, what the
//! public (`anon`) role may write, the CHECK constraints, the spam measures and the
//! retention job. The Supabase migration is rendered from here
//! (`supabase/migrations/`, checked by a test), and `site serve`'s built-in backend
//! (`http.rs`) decides each row with the same rules, in PostgreSQL's order, so a
//! row the live project refuses is refused in development too, with the same error.

use regex::Regex;

use crate::storage::policy::CONTACT_ATTACHMENTS;

pub const TABLE: &str = "contact_messages";

/// The migration's path below the repository root.
pub const MIGRATION: &str = "supabase/migrations/20261123000000_contact_messages.sql";

/// A column's type, as PostgreSQL names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Text,
    Boolean,
    Integer,
    Uuid,
    Timestamptz,
}

impl Type {
    pub fn sql(self) -> &'static str {
        match self {
            Type::Text => "text",
            Type::Boolean => "boolean",
            Type::Integer => "integer",
            Type::Uuid => "uuid",
            Type::Timestamptz => "timestamptz",
        }
    }
}

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: Type,
    pub not_null: bool,
    /// What PostgreSQL fills in when the row does not name it.
    pub default: Option<Fill>,
    /// Whether the public may give it a value (a column-level INSERT grant).
    pub anon_insert: bool,
    pub doc: &'static str,
}

const fn column(
    name: &'static str,
    ty: Type,
    not_null: bool,
    default: Option<Fill>,
    anon_insert: bool,
    doc: &'static str,
) -> Column {
    Column {
        name,
        ty,
        not_null,
        default,
        anon_insert,
        doc,
    }
}

/// A column's default.
#[derive(Debug, Clone, Copy)]
pub enum Fill {
    /// A new random UUID.
    Uuid,
    /// The time of the insert.
    Now,
    Text(&'static str),
}

impl Fill {
    fn sql(self) -> String {
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

/// The table's columns, in order.
pub const COLUMNS: &[Column] = &[
    column(
        "id",
        Type::Uuid,
        true,
        Some(Fill::Uuid),
        false,
        "made by the server",
    ),
    column(
        "received_at",
        Type::Timestamptz,
        true,
        Some(Fill::Now),
        false,
        "when the server received it",
    ),
    column(
        "status",
        Type::Text,
        true,
        Some(Fill::Text("new")),
        false,
        "the team's: new, read or answered",
    ),
    column(
        "name",
        Type::Text,
        true,
        None,
        true,
        "the sender's full name",
    ),
    column(
        "email",
        Type::Text,
        true,
        None,
        true,
        "the sender's e-mail address",
    ),
    column(
        "phone",
        Type::Text,
        true,
        Some(Fill::Text("")),
        true,
        "optional",
    ),
    column(
        "company",
        Type::Text,
        true,
        Some(Fill::Text("")),
        true,
        "optional",
    ),
    column("subject", Type::Text, true, None, true, ""),
    column("message", Type::Text, true, None, true, ""),
    column(
        "privacy",
        Type::Boolean,
        true,
        None,
        true,
        "the privacy policy was accepted",
    ),
    column(
        "attachment_key",
        Type::Text,
        false,
        None,
        true,
        "the image's key in the contact-attachments bucket",
    ),
    column(
        "attachment_url",
        Type::Text,
        false,
        None,
        true,
        "the image's public URL",
    ),
    column(
        "page",
        Type::Text,
        true,
        None,
        true,
        "the path of the page the form was sent from",
    ),
    column(
        "fill_ms",
        Type::Integer,
        true,
        None,
        true,
        "milliseconds from the form's first render to its submission",
    ),
    column(
        "website",
        Type::Text,
        false,
        None,
        true,
        "the honeypot: a field people never see, so always empty",
    ),
];

pub fn column_named(name: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.name == name)
}

/// The form's limits, in characters (code points, as PostgreSQL's `char_length`).
pub const MAX_NAME: usize = 200;
pub const MAX_EMAIL: usize = 254;
pub const MAX_PHONE: usize = 50;
pub const MAX_COMPANY: usize = 200;
pub const MAX_SUBJECT: usize = 200;
pub const MAX_MESSAGE: usize = 5000;
pub const MAX_URL: usize = 2048;

/// The browsers' rule for `<input type="email">`, which the form applies too
/// (`islands/lib/contact.ts`); it means the same to PostgreSQL, Rust and JavaScript.
pub const EMAIL_PATTERN: &str = "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
/// An attachment's public URL: in the contact-attachments bucket, under public/.
/// ASCII only (as every pattern here), so no engine's idea of a space or a letter
/// can differ.
pub const ATTACHMENT_URL_PATTERN: &str =
    "^https?://[A-Za-z0-9.:-]+/storage/v1/object/public/contact-attachments/public/[!-~]+$";
/// A path of this site, as `location.pathname` gives it (percent-encoded).
pub const PAGE_PATTERN: &str = "^/[!-~]*$";

/// What a CHECK constraint requires.
#[derive(Debug)]
pub enum Rule {
    /// At most `max` characters; with `required`, not only spaces.
    Length {
        column: &'static str,
        max: usize,
        required: bool,
    },
    /// At most `max` characters, matching `pattern`; NULL passes.
    Pattern {
        column: &'static str,
        max: usize,
        pattern: &'static str,
    },
    IsTrue(&'static str),
    OneOf(&'static str, &'static [&'static str]),
    /// Both NULL, or neither.
    Together(&'static str, &'static str),
}

#[derive(Debug)]
pub struct Check {
    pub name: &'static str,
    pub rule: Rule,
}

/// The CHECK constraints, sorted by name: PostgreSQL tests them in that order and
/// reports the first that fails, and so does the built-in backend.
pub const CHECKS: &[Check] = &[
    Check {
        name: "contact_messages_attachment_check",
        rule: Rule::Together("attachment_key", "attachment_url"),
    },
    Check {
        name: "contact_messages_attachment_key_check",
        rule: Rule::Pattern {
            column: "attachment_key",
            max: 1024,
            pattern: CONTACT_ATTACHMENTS.insert_key_pattern,
        },
    },
    Check {
        name: "contact_messages_attachment_url_check",
        rule: Rule::Pattern {
            column: "attachment_url",
            max: MAX_URL,
            pattern: ATTACHMENT_URL_PATTERN,
        },
    },
    Check {
        name: "contact_messages_company_check",
        rule: Rule::Length {
            column: "company",
            max: MAX_COMPANY,
            required: false,
        },
    },
    Check {
        name: "contact_messages_email_check",
        rule: Rule::Pattern {
            column: "email",
            max: MAX_EMAIL,
            pattern: EMAIL_PATTERN,
        },
    },
    Check {
        name: "contact_messages_message_check",
        rule: Rule::Length {
            column: "message",
            max: MAX_MESSAGE,
            required: true,
        },
    },
    Check {
        name: "contact_messages_name_check",
        rule: Rule::Length {
            column: "name",
            max: MAX_NAME,
            required: true,
        },
    },
    Check {
        name: "contact_messages_page_check",
        rule: Rule::Pattern {
            column: "page",
            max: MAX_URL,
            pattern: PAGE_PATTERN,
        },
    },
    Check {
        name: "contact_messages_phone_check",
        rule: Rule::Length {
            column: "phone",
            max: MAX_PHONE,
            required: false,
        },
    },
    Check {
        name: "contact_messages_privacy_check",
        rule: Rule::IsTrue("privacy"),
    },
    Check {
        name: "contact_messages_status_check",
        rule: Rule::OneOf("status", &["new", "read", "answered"]),
    },
    Check {
        name: "contact_messages_subject_check",
        rule: Rule::Length {
            column: "subject",
            max: MAX_SUBJECT,
            required: true,
        },
    },
];

/// The fewest milliseconds between the form's first render and its submission:
/// a person needs longer to fill it in, a script that posts at once does not.
pub const MIN_FILL_MS: i64 = 3000;
/// At most this many messages per sender address, and per e-mail address, in
/// [`RATE_WINDOW_SECONDS`].
pub const RATE_LIMIT: usize = 5;
pub const RATE_WINDOW_SECONDS: u64 = 3600;
/// What a sender over the limit is told: by its network address, or by its
/// e-mail address.
pub const RATE_LIMIT_ADDRESS_MESSAGE: &str =
    "Too many messages have been sent from your network in the last hour. Please try again later.";
pub const RATE_LIMIT_EMAIL_MESSAGE: &str =
    "Too many messages have been sent from this e-mail address in the last hour. Please try again later.";
/// The rate limit's keys: `address:<ip>` and `email:<lowercased address>`.
pub const ADDRESS_KEY: &str = "address:";
pub const EMAIL_KEY: &str = "email:";
/// PostgREST answers a raised `PTxyz` with HTTP status xyz.
pub const RATE_LIMIT_CODE: &str = "PT429";

/// Who sent a message, as the rate limit counts it: the address the proxy in
/// front saw. Cloudflare, in front of Supabase's API, overwrites
/// `CF-Connecting-IP` with it, and appends it to any `X-Forwarded-For` the client
/// wrote, so only the last entry of that header is the proxy's; everything
/// before it is the client's to choose (docs/deploy.md, "Who sent a message").
/// An IPv6 address counts as its /64, which one client holds whole; an
/// IPv4-mapped one as the IPv4 address. The migration's `private.contact_sender`
/// is the same rule in SQL.
pub fn sender(connecting_ip: Option<&str>, forwarded_for: Option<&str>) -> Option<String> {
    let given = connecting_ip
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .or_else(|| {
            forwarded_for
                .and_then(|v| v.rsplit(',').next())
                .map(str::trim)
                .filter(|s| !s.is_empty())
        })?;
    Some(match given.parse::<std::net::IpAddr>() {
        Ok(address) => sender_address(address),
        Err(_) => given.to_string(),
    })
}

/// An address as the rate limit counts it: IPv4 itself, IPv6 its /64.
pub fn sender_address(address: std::net::IpAddr) -> String {
    match address {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                let network = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                format!("{network}/64")
            }
        },
    }
}

/// The one URL an attachment may have: the project's public URL of exactly its
/// key. Anything else (another host, `http`, another key) could be a link the
/// team opens from the dashboard.
pub fn attachment_url(project_url: &str, key: &str) -> String {
    format!(
        "{}/storage/v1/object/public/{}/{key}",
        project_url.trim_end_matches('/'),
        crate::storage::policy::CONTACT_ATTACHMENTS.name
    )
}

/// What a row whose attachment URL is not [`attachment_url`] is told.
pub const ATTACHMENT_URL_MESSAGE: &str =
    "The image's address is not this project's storage address for its key.";
/// The project's URL as Vault may hold it: https, or plain http on loopback
/// (the Supabase CLI's local stack, http://127.0.0.1:54321).
pub const PROJECT_URL_PATTERN: &str =
    "^(https://[A-Za-z0-9.-]+|http://(127\\.0\\.0\\.1|localhost))(:[0-9]{1,5})?$";

/// The attachment trigger's verdict: a key and a URL that is not the project's
/// URL of that key are refused (23514, a CHECK's SQLSTATE). Without both, the
/// constraints decide.
pub fn attachment_url_refusal(get: &dyn Fn(&str) -> Value, project_url: &str) -> Option<Refusal> {
    match (get("attachment_key"), get("attachment_url")) {
        (Value::Text(key), Value::Text(url)) if url != attachment_url(project_url, &key) => {
            Some(Refusal::new("23514", ATTACHMENT_URL_MESSAGE.into()))
        }
        _ => None,
    }
}

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

/// Why PostgreSQL (or PostgREST before it) refuses a row, with its SQLSTATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub details: Option<String>,
}

impl Refusal {
    fn new(code: &'static str, message: String) -> Refusal {
        Refusal {
            code,
            message,
            details: None,
        }
    }
}

/// The row-level security policy: no honeypot, and not sent too soon.
pub fn passes_insert_policy(website: &Value, fill_ms: &Value) -> bool {
    let trap_empty = match website {
        Value::Null => true,
        Value::Text(s) => s.is_empty(),
        _ => false,
    };
    trap_empty && matches!(fill_ms, Value::Int(ms) if *ms >= MIN_FILL_MS)
}

/// The first NOT NULL column, in column order, that `get` finds NULL.
pub fn not_null_violation(get: &dyn Fn(&str) -> Value) -> Option<Refusal> {
    COLUMNS
        .iter()
        .find(|c| c.not_null && get(c.name) == Value::Null)
        .map(|c| {
            Refusal::new(
                "23502",
                format!(
                    "null value in column \"{}\" of relation \"{TABLE}\" violates not-null constraint",
                    c.name
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
        }
    }

    fn sql(&self) -> String {
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
        }
    }
}

/// The first CHECK constraint, by name, that the row breaks.
pub fn check_violation(get: &dyn Fn(&str) -> Value) -> Option<Refusal> {
    CHECKS.iter().find(|c| !c.rule.holds(get)).map(|c| {
        Refusal::new(
            "23514",
            format!(
                "new row for relation \"{TABLE}\" violates check constraint \"{}\"",
                c.name
            ),
        )
    })
}

pub fn refused_by_policy() -> Refusal {
    Refusal::new(
        "42501",
        format!("new row violates row-level security policy for table \"{TABLE}\""),
    )
}

pub fn permission_denied() -> Refusal {
    Refusal::new("42501", format!("permission denied for table {TABLE}"))
}

/// The refusal of a sender whose rate-limit `key` is over the limit.
pub fn rate_limited(key: &str) -> Refusal {
    let message = if key.starts_with(ADDRESS_KEY) {
        RATE_LIMIT_ADDRESS_MESSAGE
    } else {
        RATE_LIMIT_EMAIL_MESSAGE
    };
    Refusal::new(RATE_LIMIT_CODE, message.to_string())
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
        // Never written by the public (no grant), so never read from a request.
        Type::Uuid | Type::Timestamptz => Ok(Value::Text(text.clone())),
    }
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

fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The SQL that creates the table, its grants, its policy, the rate limit and the
/// retention job in a Supabase project. It can run any number of times.
pub fn migration_sql(retention_months: u32) -> String {
    let mut sql = format!(
        "-- The contact form's messages: the table, what the public may write, the spam\n\
         -- measures and how long messages are kept. Rendered from\n\
         -- generator/src/messages/policy.rs, by whose rules `site serve`'s built-in\n\
         -- backend decides too, and from contact.retention_months in\n\
         -- content/site.yaml ({retention_months}); after changing either, run\n\
         --     site messages --write-migration\n\
         -- It can be applied any number of times. It needs pg_cron, which every\n\
         -- Supabase project can enable (Database > Extensions).\n\
         \n\
         create table if not exists public.{TABLE} (\n"
    );
    let columns: Vec<String> = COLUMNS
        .iter()
        .map(|c| {
            let mut line = format!("  {} {}", c.name, c.ty.sql());
            if c.name == "id" {
                line.push_str(" primary key");
            }
            if c.not_null && c.name != "id" {
                line.push_str(" not null");
            }
            if let Some(d) = c.default {
                line.push_str(&format!(" default {}", d.sql()));
            }
            line
        })
        .collect();
    sql.push_str(&columns.join(",\n"));
    sql.push_str("\n);\n");
    for c in COLUMNS {
        if !c.doc.is_empty() {
            sql.push_str(&format!(
                "comment on column public.{TABLE}.{} is {};\n",
                c.name,
                sql_text(c.doc)
            ));
        }
    }
    sql.push_str(
        "\n-- The form's own validation, and a bound on every field, where the database\n\
         -- enforces it whoever writes.\n",
    );
    for check in CHECKS {
        sql.push_str(&format!(
            "alter table public.{TABLE} drop constraint if exists {name};\n\
             alter table public.{TABLE} add constraint {name} check ({rule});\n",
            name = check.name,
            rule = check.rule.sql(),
        ));
    }
    let insertable: Vec<&str> = COLUMNS
        .iter()
        .filter(|c| c.anon_insert)
        .map(|c| c.name)
        .collect();
    sql.push_str(&format!(
        "\n\
         -- The public may insert a message, naming only the form's columns, and nothing\n\
         -- else: no SELECT (so no `return=representation`, and no reading back even its\n\
         -- own row), UPDATE or DELETE. The team reads messages in the dashboard, as a\n\
         -- role that bypasses row-level security.\n\
         alter table public.{TABLE} enable row level security;\n\
         revoke all on table public.{TABLE} from anon, authenticated;\n\
         grant insert ({cols}) on table public.{TABLE} to anon;\n\
         \n\
         -- Spam: the honeypot `website` must be empty (people never see it; scripts that\n\
         -- fill every field do), and the form must have been open at least\n\
         -- {min_fill} ms (a person takes longer; a script that posts at once does not).\n\
         drop policy if exists \"{TABLE}: public inserts\" on public.{TABLE};\n\
         create policy \"{TABLE}: public inserts\"\n  \
           on public.{TABLE}\n  \
           for insert\n  \
           to anon\n  \
           with check (coalesce(website, '') = '' and fill_ms >= {min_fill});\n",
        cols = insertable.join(", "),
        min_fill = MIN_FILL_MS,
    ));
    sql.push_str(&format!(
        "\n\
         -- Spam: at most {limit} messages an hour from one sender and {limit} to one\n\
         -- e-mail address. Counted in a table the public cannot reach, by a\n\
         -- security-definer trigger; a refused row is not counted (its transaction\n\
         -- rolls back). PostgREST answers the raised PT429 with HTTP 429.\n\
         create schema if not exists private;\n\
         revoke all on schema private from public, anon, authenticated;\n\
         \n\
         -- The sender is the address Cloudflare, in front of Supabase's API, saw:\n\
         -- CF-Connecting-IP, which it overwrites, else the last entry of\n\
         -- X-Forwarded-For, the one the last proxy appended (the entries before it\n\
         -- are the client's to write). An IPv6 address counts as its /64, which one\n\
         -- client holds whole. See docs/deploy.md, \"Who sent a message\".\n\
         create or replace function private.contact_sender(headers json)\n\
         returns text\n\
         language plpgsql\n\
         immutable\n\
         set search_path = ''\n\
         as $$\n\
         declare\n  \
           given text := coalesce(\n    \
             nullif(btrim(headers ->> 'cf-connecting-ip'), ''),\n    \
             nullif(btrim(substring(headers ->> 'x-forwarded-for' from '[^,]*$')), ''));\n  \
           address inet;\n\
         begin\n  \
           if given is null then\n    \
             return null;\n  \
           end if;\n  \
           begin\n    \
             address := given::inet;\n  \
           exception when others then\n    \
             return given;\n  \
           end;\n  \
           if family(address) = 6 and address << '::ffff:0:0/96'::inet then\n    \
             return host('0.0.0.0'::inet + (address - '::ffff:0.0.0.0'::inet));\n  \
           elsif family(address) = 6 then\n    \
             return host(network(set_masklen(address, 64))) || '/64';\n  \
           end if;\n  \
           return host(address);\n\
         end\n\
         $$;\n\
         revoke all on function private.contact_sender(json) from public, anon, authenticated;\n\
         create table if not exists private.contact_message_rate (\n  \
           key_hash text not null,\n  \
           at timestamptz not null default now()\n\
         );\n\
         create index if not exists contact_message_rate_key_at\n  \
           on private.contact_message_rate (key_hash, at);\n\
         \n\
         create or replace function private.contact_messages_rate_limit()\n\
         returns trigger\n\
         language plpgsql\n\
         security definer\n\
         set search_path = ''\n\
         as $$\n\
         declare\n  \
           headers json := nullif(current_setting('request.headers', true), '')::json;\n  \
           sender text := private.contact_sender(headers);\n  \
           key text;\n  \
           hash text;\n\
         begin\n  \
           foreach key in array array['{address_key}' || sender, '{email_key}' || lower(new.email)] loop\n    \
             continue when key is null;\n    \
             hash := encode(sha256(convert_to(key, 'UTF8')), 'hex');\n    \
             -- One sender's messages are counted one at a time.\n    \
             perform pg_advisory_xact_lock(hashtextextended(hash, 0));\n    \
             if (select count(*) from private.contact_message_rate r\n        \
                 where r.key_hash = hash and r.at > now() - interval '{window} seconds') >= {limit} then\n      \
               raise exception using errcode = '{code}', message = case\n        \
                 when key like '{address_key}%' then {address_message}\n        \
                 else {email_message} end;\n    \
             end if;\n    \
             insert into private.contact_message_rate (key_hash) values (hash);\n  \
           end loop;\n  \
           return new;\n\
         end\n\
         $$;\n\
         revoke all on function private.contact_messages_rate_limit() from public, anon, authenticated;\n\
         drop trigger if exists contact_messages_rate_limit on public.{TABLE};\n\
         create trigger contact_messages_rate_limit\n  \
           before insert on public.{TABLE}\n  \
           for each row execute function private.contact_messages_rate_limit();\n",
        limit = RATE_LIMIT,
        window = RATE_WINDOW_SECONDS,
        code = RATE_LIMIT_CODE,
        address_key = ADDRESS_KEY,
        email_key = EMAIL_KEY,
        address_message = sql_text(RATE_LIMIT_ADDRESS_MESSAGE),
        email_message = sql_text(RATE_LIMIT_EMAIL_MESSAGE),
    ));
    sql.push_str(&format!(
        "\n\
         -- An image's URL must be the project's own public URL of exactly its key:\n\
         -- another host, http, or another key's URL could be a link the team opens\n\
         -- from the dashboard. The project's URL is not known to this migration: it\n\
         -- is kept in Vault as the secret `project_url` (docs/deploy.md), which must\n\
         -- be https (or http on loopback, the local stack). Without it, a message\n\
         -- with an image is refused with a hint, not stored unchecked.\n\
         create or replace function private.contact_attachment_url(key text)\n\
         returns text\n\
         language plpgsql\n\
         stable\n\
         security definer\n\
         set search_path = ''\n\
         as $$\n\
         declare\n  \
           project text;\n\
         begin\n  \
           select rtrim(btrim(s.decrypted_secret), '/') into project\n    \
             from vault.decrypted_secrets s where s.name = 'project_url';\n  \
           if project is null or project !~ {project_pattern} then\n    \
             raise exception using errcode = 'PT500',\n      \
               message = 'The project''s URL is not set in Vault (or is not https), so the image''s address cannot be checked.',\n      \
               hint = 'Once, in the SQL Editor: select vault.create_secret(''https://<project-ref>.supabase.co'', ''project_url''); see docs/deploy.md.';\n  \
           end if;\n  \
           return project || '/storage/v1/object/public/{bucket}/' || key;\n\
         end\n\
         $$;\n\
         revoke all on function private.contact_attachment_url(text) from public, anon, authenticated;\n\
         \n\
         create or replace function private.contact_messages_attachment_url()\n\
         returns trigger\n\
         language plpgsql\n\
         security definer\n\
         set search_path = ''\n\
         as $$\n\
         begin\n  \
           if new.attachment_key is not null and new.attachment_url is not null\n     \
              and new.attachment_url is distinct from private.contact_attachment_url(new.attachment_key) then\n    \
             raise exception using errcode = '23514', message = {url_message};\n  \
           end if;\n  \
           return new;\n\
         end\n\
         $$;\n\
         revoke all on function private.contact_messages_attachment_url() from public, anon, authenticated;\n\
         -- Before the rate limit (triggers fire in the order of their names), so a\n\
         -- refused image is not counted.\n\
         drop trigger if exists contact_messages_attachment_url on public.{TABLE};\n\
         create trigger contact_messages_attachment_url\n  \
           before insert on public.{TABLE}\n  \
           for each row execute function private.contact_messages_attachment_url();\n",
        project_pattern = sql_text(PROJECT_URL_PATTERN),
        bucket = crate::storage::policy::CONTACT_ATTACHMENTS.name,
        url_message = sql_text(ATTACHMENT_URL_MESSAGE),
    ));
    sql.push_str(&format!(
        "\n\
         -- Retention: every night, messages older than {retention_months} months are deleted\n\
         -- (contact.retention_months in content/site.yaml; the privacy policy says so),\n\
         -- and the rate limit's counts older than a day. cron.schedule replaces the job\n\
         -- of the same name.\n\
         create extension if not exists pg_cron with schema pg_catalog;\n\
         select cron.schedule(\n  \
           'contact-messages-retention',\n  \
           '17 3 * * *',\n  \
           $$delete from public.{TABLE} where received_at < now() - interval '{retention_months} months';\n    \
           delete from private.contact_message_rate where at < now() - interval '1 day'$$\n\
         );\n"
    ));
    sql
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn the_sender_is_the_address_the_proxy_saw_never_the_clients_words() {
        // Cloudflare overwrites CF-Connecting-IP, whatever the client sent.
        assert_eq!(
            sender(Some("203.0.113.7"), Some("1.2.3.4, 203.0.113.7")).as_deref(),
            Some("203.0.113.7")
        );
        // Else the entry the last proxy appended; the ones before are forged.
        assert_eq!(
            sender(None, Some("6.6.6.6, 7.7.7.7,203.0.113.7")).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(
            sender(None, Some(" 203.0.113.7 ")).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(sender(Some(" "), Some("")), None);
        assert_eq!(sender(None, None), None);
    }

    #[test]
    fn an_ipv6_sender_is_its_slash_64() {
        for (given, key) in [
            ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
            ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
            ("2001:db8::1", "2001:db8::/64"),
            ("::ffff:198.51.100.9", "198.51.100.9"),
        ] {
            assert_eq!(sender(Some(given), None).as_deref(), Some(key), "{given}");
        }
    }

    #[test]
    fn an_attachment_url_is_the_projects_url_of_exactly_its_key() {
        let key = "public/1763800000000_plan.png";
        let own = attachment_url("https://abc.supabase.co/", key);
        assert_eq!(
            own,
            "https://abc.supabase.co/storage/v1/object/public/contact-attachments/public/1763800000000_plan.png"
        );
        let with = |url: &str| row(&[("attachment_key", text(key)), ("attachment_url", text(url))]);
        assert!(attachment_url_refusal(&with(&own), "https://abc.supabase.co").is_none());
        for other in [
            own.replace("https://abc.supabase.co", "https://evil.example"),
            own.replace("https://", "http://"),
            own.replace("1763800000000_plan", "1763800000001_other"),
        ] {
            let refusal = attachment_url_refusal(&with(&other), "https://abc.supabase.co");
            assert_eq!(refusal.map(|r| r.code), Some("23514"), "{other}");
        }
        // Without both, the constraints decide.
        assert!(
            attachment_url_refusal(&row(&[("attachment_url", text("x"))]), "https://a").is_none()
        );
    }

    #[test]
    fn the_project_url_pattern_takes_https_and_the_local_stack_only() {
        let pattern = Regex::new(PROJECT_URL_PATTERN).unwrap();
        for ok in [
            "https://abc.supabase.co",
            "https://db.example.com:8443",
            "http://127.0.0.1:54321",
            "http://localhost:54321",
        ] {
            assert!(pattern.is_match(ok), "{ok}");
        }
        for bad in [
            "http://abc.supabase.co",
            "https://abc.supabase.co/path",
            "ftp://x",
            "https://",
        ] {
            assert!(!pattern.is_match(bad), "{bad}");
        }
    }

    #[test]
    fn the_checks_are_in_the_order_postgresql_tests_them() {
        let names: Vec<&str> = CHECKS.iter().map(|c| c.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn the_patterns_compile() {
        for p in [EMAIL_PATTERN, ATTACHMENT_URL_PATTERN, PAGE_PATTERN] {
            assert!(Regex::new(p).is_ok(), "{p}");
        }
    }

    #[test]
    fn a_row_breaks_the_first_failing_check_by_name() {
        let get = row(&[
            ("name", text(" ")),
            ("email", text("not an address")),
            ("privacy", Value::Bool(true)),
        ]);
        let refusal = check_violation(&get).unwrap();
        assert!(
            refusal.message.contains("contact_messages_email_check"),
            "{}",
            refusal.message
        );
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let at_most = "é".repeat(MAX_NAME);
        assert!(check_violation(&row(&[("name", text(&at_most))])).is_none());
        let over = "é".repeat(MAX_NAME + 1);
        assert!(check_violation(&row(&[("name", text(&over))])).is_some());
    }

    #[test]
    fn the_policy_wants_an_empty_trap_and_a_human_pace() {
        assert!(passes_insert_policy(&Value::Null, &Value::Int(3000)));
        assert!(passes_insert_policy(&text(""), &Value::Int(60_000)));
        assert!(!passes_insert_policy(
            &text("http://spam"),
            &Value::Int(60_000)
        ));
        assert!(!passes_insert_policy(&Value::Null, &Value::Int(2999)));
        assert!(!passes_insert_policy(&Value::Null, &Value::Null));
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
        assert_eq!(
            read_value(Type::Text, &json!("a\u{0}b")).unwrap_err().code,
            "22P05"
        );
    }

    #[test]
    fn the_retention_and_the_switch_are_read_from_site_yaml() {
        let dir = std::env::temp_dir().join(format!("site-retention-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("content")).unwrap();
        std::fs::write(
            dir.join("content/site.yaml"),
            "name: X\ncontact:\n  address: A\n  messages: supabase\n  retention_months: 6\n",
        )
        .unwrap();
        let settings = crate::content::message_settings(&dir);
        assert_eq!(
            settings.messages,
            crate::content::site::MessageDelivery::Supabase
        );
        assert_eq!(settings.retention_months, 6);
        assert!(migration_sql(6).contains("interval '6 months'"));
        std::fs::remove_dir_all(&dir).unwrap();
        let absent = crate::content::message_settings(&dir);
        assert_eq!(
            absent.messages,
            crate::content::site::MessageDelivery::Console
        );
        assert_eq!(absent.retention_months, 12);
    }

    /// The committed migration is what this module renders with the project's
    /// retention, so production and `site serve` cannot drift apart.
    /// `site messages --write-migration` writes it again.
    #[test]
    fn the_committed_migration_is_rendered_from_the_policy() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let months = crate::content::message_settings(&root).retention_months;
        let committed = std::fs::read_to_string(root.join(MIGRATION)).unwrap_or_default();
        assert!(
            committed == migration_sql(months),
            "{MIGRATION} differs from generator/src/messages/policy.rs and \
             content/site.yaml; run `site messages --write-migration`"
        );
    }
}
