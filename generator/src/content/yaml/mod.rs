//! YAML documents as a tree of spanned nodes (`tree.rs`), and typed models read
//! from that tree (`de.rs`, with `placeholder.rs` for what a mistake reads as)
//! with every error at its exact position and field path, and what the values
//! name (`Reference`). `syntax.rs` explains the parser's errors in plain words;
//! `words.rs` words the reader's messages.
//!
//! Reading typed models from our own tree instead of straight from the parser keeps
//! precise positions inside internally tagged blocks, which serde would otherwise
//! buffer, and lets one reading report all of a file's mistakes.

mod de;
mod placeholder;
mod syntax;
mod tree;
mod words;

use std::fmt;

use serde::de as serde_de;
use serde::Deserialize;

pub use syntax::cut_by_comments;
pub use tree::parse;
use words::in_words;

use crate::content::values::{Found, Target};

/// A position in a source file: byte range plus 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
    pub line: usize,
    pub column: usize,
}

impl Span {
    /// The first character of line `line` (1-based) of `source`.
    pub fn line_start(source: &str, line: usize) -> Span {
        let offset = source
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum();
        Span {
            offset,
            len: 1,
            line,
            column: 1,
        }
    }

    fn from_location(loc: &serde_saphyr::Location) -> Span {
        let span = loc.span();
        Span {
            offset: span.byte_offset().unwrap_or(span.offset()) as usize,
            len: span.byte_len().unwrap_or(span.len()) as usize,
            line: loc.line() as usize,
            column: loc.column() as usize,
        }
    }

    /// Moves a span found in an embedded document (front matter) to its place in the file.
    pub fn shifted(self, bytes: usize, lines: usize) -> Span {
        Span {
            offset: self.offset + bytes,
            line: self.line + lines,
            ..self
        }
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub kind: Kind,
    pub span: Span,
    /// The source text of a plain scalar that YAML read as a boolean or number.
    pub raw: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Key, Node)>),
}

#[derive(Debug, Clone)]
pub struct Key {
    pub name: String,
    pub span: Span,
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|(k, _)| k.name == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// What the node is, in an editor's words: "text `Hello`", "a list".
    pub fn described(&self) -> String {
        match &self.kind {
            Kind::Null => "nothing (the value is empty)".to_string(),
            Kind::Bool(b) => format!("`{b}`"),
            Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => {
                format!("the number {}", self.raw.as_deref().unwrap_or("?"))
            }
            Kind::Str(s) => {
                let short: String = s.chars().take(40).collect();
                let more = if short.len() < s.len() { "…" } else { "" };
                format!("text `{short}{more}`")
            }
            Kind::Seq(_) => "a list".to_string(),
            Kind::Map(_) => "a mapping (`name: value` lines)".to_string(),
        }
    }
}

/// An error with the position and field path it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub message: String,
    pub span: Option<Span>,
    pub path: String,
    /// The required field serde found absent (`de.rs` learns from it).
    missing: Option<&'static str>,
    /// Already in the reading's list of errors: callers above only pass it on.
    recorded: bool,
}

impl Error {
    /// This error as a diagnostic of `file`, whose text is `source`.
    pub fn diagnostic(
        &self,
        file: &str,
        source: &std::sync::Arc<str>,
    ) -> crate::diagnostics::Diagnostic {
        let d = crate::diagnostics::Diagnostic::new(file, self.to_string());
        match self.span {
            Some(span) => {
                d.at(span.line, span.column)
                    .with_snippet(source.clone(), span.offset, span.len)
            }
            None => d,
        }
    }

    /// This error as a warning of `file`.
    pub fn warning(
        &self,
        file: &str,
        source: &std::sync::Arc<str>,
    ) -> crate::diagnostics::Diagnostic {
        self.diagnostic(file, source).as_warning()
    }

    pub fn at(node_span: Span, path: &str, message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: Some(node_span),
            path: path.to_string(),
            missing: None,
            recorded: false,
        }
    }

    /// An error already reported, or one a placeholder value raised: passed on
    /// so the reading stops, never shown.
    fn silenced(e: Error) -> Error {
        Error {
            recorded: true,
            missing: None,
            ..e
        }
    }

    /// An error of a whole document (no position).
    pub fn whole(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: None,
            path: String::new(),
            missing: None,
            recorded: false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            match in_words(&self.path) {
                Some(words) => write!(f, "{} ({words}): {}", self.path, self.message),
                None => write!(f, "{}: {}", self.path, self.message),
            }
        }
    }
}

impl std::error::Error for Error {}

impl serde_de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::whole(msg.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        Error {
            missing: Some(field),
            ..Error::whole(format!(
                "this mapping has no `{field}`, which it needs; add a `{field}:` line"
            ))
        }
    }
}

/// What a value names (`values::Target`) with the place in a content file it is
/// named at, for the references pass.
#[derive(Debug, Clone)]
pub struct Reference {
    pub target: Target,
    pub span: Span,
    pub path: String,
}

impl Reference {
    /// What a value read at `span` (the field `path`) was found to name.
    pub fn at(found: Found, span: Span, path: String) -> Reference {
        Reference {
            target: found.target,
            span,
            path,
        }
    }
}

/// A reading that found mistakes: every one of them, and what the values read
/// around them refer to (so that a missing icon is reported with them).
#[derive(Debug, Default)]
pub struct Failed {
    pub errors: Vec<Error>,
    pub references: Vec<Reference>,
}

/// A typed model read from a node, with what its values refer to (icons, images,
/// links), or every error found in it.
pub fn read<'a, T: Deserialize<'a>>(
    node: &'a Node,
    path: &str,
) -> Result<(T, Vec<Reference>), Failed> {
    de::read(node, path, None)
}

/// Like [`read`] for a mapping, leaving out one key (a block's `type` tag).
pub fn read_without<'a, T: Deserialize<'a>>(
    node: &'a Node,
    path: &str,
    skip_key: &'static str,
) -> Result<(T, Vec<Reference>), Failed> {
    de::read(node, path, Some(skip_key))
}

/// [`read`], keeping the model alone.
pub fn from_node<'a, T: Deserialize<'a>>(node: &'a Node, path: &str) -> Result<T, Vec<Error>> {
    read(node, path)
        .map(|(value, _)| value)
        .map_err(|failed| failed.errors)
}

pub fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

pub fn index_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Card {
        title: String,
        count: u32,
        note: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Grid {
        cards: Vec<Card>,
    }

    fn load<T: for<'a> Deserialize<'a>>(src: &str) -> Result<T, Error> {
        let node = parse(src)?;
        from_node(&node, "").map_err(|mut e| e.remove(0))
    }

    fn all<T: for<'a> Deserialize<'a>>(src: &str) -> Vec<Error> {
        let node = parse(src).unwrap();
        from_node::<T>(&node, "").map(|_| ()).unwrap_err()
    }

    #[test]
    fn reports_every_mistake_of_a_reading_not_only_the_first() {
        let src = "cards:\n  - title: A\n    count: x\n  - count: 2\n  - title: C\n    count: 3\n    colour: red\n";
        let errs = all::<Grid>(src);
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["cards[0].count", "cards[1]", "cards[2].colour"],
            "{errs:#?}"
        );
        assert!(
            errs[1].message.contains("has no `title`"),
            "{}",
            errs[1].message
        );
    }

    #[test]
    fn five_hundred_bad_cards_give_five_hundred_errors() {
        let src = format!("cards:\n{}", "  - count: 1\n".repeat(500));
        assert_eq!(all::<Grid>(&src).len(), 500);
    }

    #[test]
    fn a_list_where_a_mapping_belongs_is_an_error_not_fields_by_position() {
        let errs = all::<Grid>("cards:\n  - [A, 1]\n");
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert_eq!(errs[0].path, "cards[0]");
        assert!(
            errs[0].message.contains("not as a list"),
            "{}",
            errs[0].message
        );
    }

    #[test]
    fn reports_wrong_type_at_the_value_with_its_path() {
        let err = load::<Grid>("cards:\n  - title: A\n    count: three\n").unwrap_err();
        assert_eq!(err.path, "cards[0].count");
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((3, 12)));
        assert!(
            err.message
                .contains("expected a whole number, found text `three`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn reports_unknown_field_at_the_key() {
        let err =
            load::<Grid>("cards:\n  - title: A\n    count: 1\n    colour: red\n").unwrap_err();
        assert_eq!(err.path, "cards[0].colour");
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((4, 5)));
        assert!(err.message.contains("unknown field `colour`"));
        assert!(
            err.message.contains("the fields `title`, `count`, `note`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn reports_missing_field_at_its_mapping() {
        let err = load::<Grid>("cards:\n  - title: A\n").unwrap_err();
        assert_eq!(err.path, "cards[0]");
        assert_eq!(err.span.map(|s| s.line), Some(2));
        assert!(err.message.contains("no `count`"), "{}", err.message);
    }

    #[test]
    fn takes_plain_scalars_as_text_where_text_is_expected() {
        let grid: Grid = load("cards:\n  - title: Yes\n    count: 2\n    note: 2021\n").unwrap();
        assert_eq!(grid.cards[0].title, "Yes");
        assert_eq!(grid.cards[0].note.as_deref(), Some("2021"));
    }

    #[test]
    fn reports_syntax_errors_with_position() {
        let err = parse("a: [b\nc: d\n").unwrap_err();
        assert!(
            err.message.contains("`[` is never closed"),
            "{}",
            err.message
        );
        assert!(err.span.is_some());
    }

    #[test]
    fn refuses_an_alias_bomb() {
        let mut src = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
        for (i, name) in ["b", "c", "d", "e", "f", "g", "h"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e", "f", "g"][i];
            src.push_str(&format!(
                "{name}: &{name} [{}]\n",
                vec![format!("*{prev}"); 9].join(",")
            ));
        }
        let err = parse(&src).unwrap_err();
        assert!(err.message.contains("budget"), "{}", err.message);
    }

    #[test]
    fn refuses_duplicate_keys() {
        let err = parse("a: 1\na: 2\n").unwrap_err();
        assert!(err.message.contains("appears twice"), "{}", err.message);
    }
}
