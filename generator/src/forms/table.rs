//! What a form's table is, described as data: its columns, CHECK constraints,
//! spam measures, guards and retention. `sql.rs` renders a description into a
//! Supabase migration, `postgres.rs` decides rows by it as PostgreSQL would, and
//! `constants.rs` writes the numbers and patterns the islands import.

use crate::storage::policy::BucketPolicy;

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

/// A column's default.
#[derive(Debug, Clone, Copy)]
pub enum Fill {
    /// A new random UUID.
    Uuid,
    /// The time of the insert.
    Now,
    Text(&'static str),
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

/// A column only the server fills in.
pub const fn server(name: &'static str, ty: Type, fill: Fill, doc: &'static str) -> Column {
    Column {
        name,
        ty,
        not_null: true,
        default: Some(fill),
        anon_insert: false,
        doc,
    }
}

/// A column the public writes; `required` is NOT NULL.
pub const fn public(name: &'static str, ty: Type, required: bool, doc: &'static str) -> Column {
    Column {
        name,
        ty,
        not_null: required,
        default: None,
        anon_insert: true,
        doc,
    }
}

/// A NOT NULL text column the public may leave out: it is then empty.
pub const fn optional_text(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        ty: Type::Text,
        not_null: true,
        default: Some(Fill::Text("")),
        anon_insert: true,
        doc,
    }
}

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
    /// The first folder of the key in `column` is the value of `folder`.
    FolderIs {
        column: &'static str,
        folder: &'static str,
    },
}

#[derive(Debug)]
pub struct Check {
    pub name: &'static str,
    pub rule: Rule,
}

/// A guard a BEFORE INSERT trigger keeps, beyond what constraints can say.
#[derive(Debug)]
pub enum Guard {
    /// `url` must be the project's public URL of exactly `key`, in `bucket`.
    PublicUrl {
        key: &'static str,
        url: &'static str,
        bucket: &'static BucketPolicy,
    },
    /// `key` must name an object that is stored in `bucket`.
    StoredObject {
        key: &'static str,
        bucket: &'static BucketPolicy,
    },
    /// `job` must be a posting of `public.job_openings` still open now, and
    /// `country` one it takes applicants from.
    OpenPosting {
        job: &'static str,
        country: &'static str,
    },
}

impl Guard {
    /// The trigger's name, after the table's: triggers fire in name order.
    pub fn suffix(&self) -> &'static str {
        match self {
            Guard::PublicUrl { .. } => "attachment_url",
            Guard::StoredObject { .. } => "cv_object",
            Guard::OpenPosting { .. } => "job_open",
        }
    }
}

/// The spam measures: a honeypot, a minimum time, a rate limit.
#[derive(Debug)]
pub struct Spam {
    /// The column people never see, so always empty.
    pub trap: &'static str,
    /// The column with milliseconds from the form's first render to its
    /// submission, and the fewest a person takes.
    pub fill: &'static str,
    pub min_fill_ms: i64,
    /// At most this many rows per sender address, and per e-mail address, in
    /// `window_seconds`.
    pub rate_limit: usize,
    pub window_seconds: u64,
    /// The column with the e-mail address the limit counts.
    pub email: &'static str,
    /// The private table the limit counts in.
    pub rate_table: &'static str,
}

/// How long rows are kept, and where that is set.
#[derive(Debug)]
pub struct Retention {
    /// The setting of content/site.yaml, e.g. `contact.retention_months`.
    pub setting: &'static str,
    pub default_months: u32,
    /// The pg_cron job's name.
    pub job: &'static str,
    /// The column whose age counts.
    pub since: &'static str,
    /// The page that tells the public how long rows are kept.
    pub notice: &'static str,
    /// Where the rows' files go when their rows do.
    pub files: &'static str,
}

/// A table a form writes to, whole.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    /// The migration's path below the repository root.
    pub migration: &'static str,
    /// What a row is, in the plural: `messages`, `applications`.
    pub rows: &'static str,
    /// The migration's opening lines, about the table.
    pub about: &'static str,
    pub columns: &'static [Column],
    /// Sorted by name: PostgreSQL tests them in that order and reports the first
    /// that fails, and so does the built-in backend.
    pub checks: &'static [Check],
    /// In the order their triggers fire (by name), all before the rate limit.
    pub guards: &'static [Guard],
    pub spam: Spam,
    pub retention: Retention,
    /// Whether this table's migration creates `private.contact_sender`, the rule
    /// for who sent a row (the first migration does; later ones use it).
    pub defines_sender: bool,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The columns a repeat of a send must match its first attempt in: what the
    /// visitor wrote and chose. Not the time taken nor the trap, which a later
    /// attempt of the same words may differ in, nor the key itself.
    pub fn repeat_columns(&self) -> impl Iterator<Item = &'static Column> + '_ {
        self.columns.iter().filter(|c| {
            c.anon_insert
                && c.name != self.spam.fill
                && c.name != self.spam.trap
                && c.name != SEND_KEY.name
        })
    }

    /// The longest value of each length-bounded text column, by name.
    pub fn max_lengths(&self) -> Vec<(&'static str, usize)> {
        self.checks
            .iter()
            .filter_map(|c| match c.rule {
                Rule::Length { column, max, .. } | Rule::Pattern { column, max, .. } => {
                    Some((column, max))
                }
                _ => None,
            })
            .collect()
    }
}

/// The limits shared by the forms, in characters (code points, as PostgreSQL's
/// `char_length`).
pub const MAX_NAME: usize = 200;
pub const MAX_EMAIL: usize = 254;
pub const MAX_PHONE: usize = 50;
pub const MAX_TEXT: usize = 5000;
pub const MAX_URL: usize = 2048;

/// The browsers' rule for `<input type="email">`, which the forms apply too; it
/// means the same to PostgreSQL, Rust and JavaScript.
pub const EMAIL_PATTERN: &str = "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
/// A path of this site, as `location.pathname` gives it (percent-encoded).
pub const PAGE_PATTERN: &str = "^/[!-~]*$";
/// The columns every form's table has: made by the server, or the spam
/// measures' and the page's.
pub const ID: Column = server("id", Type::Uuid, Fill::Uuid, "made by the server");
pub const RECEIVED_AT: Column = server(
    "received_at",
    Type::Timestamptz,
    Fill::Now,
    "when the server received it",
);
pub const PAGE: Column = public(
    "page",
    Type::Text,
    true,
    "the path of the page the form was sent from",
);
pub const FILL_MS: Column = public(
    "fill_ms",
    Type::Integer,
    true,
    "milliseconds from the form's first render to its submission",
);
/// The key of one message the visitor means to send, made by the form and kept
/// across its failed attempts: a repeat of a send whose answer was lost is
/// skipped by the rate limit's trigger, so it is stored once and counted once,
/// and answered as a success. Rows from before the key have none.
pub const SEND_KEY: Column = public(
    "send_key",
    Type::Uuid,
    false,
    "the form's key for one message the visitor means to send: a repeated send is stored once",
);
/// The unique index on the key: one row per send, whoever writes.
pub fn send_key_index(table: &Table) -> String {
    format!("{}_{}_key", table.name, SEND_KEY.name)
}
pub const WEBSITE: Column = public(
    "website",
    Type::Text,
    false,
    "the honeypot: a field people never see, so always empty",
);

/// The rules every form's e-mail address and page follow.
pub const EMAIL_RULE: Rule = Rule::Pattern {
    column: "email",
    max: MAX_EMAIL,
    pattern: EMAIL_PATTERN,
};
pub const PAGE_RULE: Rule = Rule::Pattern {
    column: "page",
    max: MAX_URL,
    pattern: PAGE_PATTERN,
};

/// The fewest milliseconds between a form's first render and its submission: a
/// person needs longer to fill it in, a script that posts at once does not.
pub const MIN_FILL_MS: i64 = 3000;
/// PostgREST answers a raised `PTxyz` with HTTP status xyz.
pub const RATE_LIMIT_CODE: &str = "PT429";
