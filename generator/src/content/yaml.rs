//! YAML documents as a tree of spanned nodes, and a serde `Deserializer` over that
//! tree that reports every error with its exact position and field path.
//!
//! serde-saphyr parses (with its budget guarding against alias bombs); deserializing
//! typed models from our own tree instead of straight from the parser keeps precise
//! positions inside internally tagged blocks, which serde would otherwise buffer.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

/// A position in a source file: byte range plus 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
    pub line: usize,
    pub column: usize,
}

impl Span {
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

    fn unexpected(&self) -> de::Unexpected<'_> {
        match &self.kind {
            Kind::Null => de::Unexpected::Unit,
            Kind::Bool(b) => de::Unexpected::Bool(*b),
            Kind::Int(i) => de::Unexpected::Signed(*i),
            Kind::UInt(u) => de::Unexpected::Unsigned(*u),
            Kind::Float(f) => de::Unexpected::Float(*f),
            Kind::Str(s) => de::Unexpected::Str(s),
            Kind::Seq(_) => de::Unexpected::Seq,
            Kind::Map(_) => de::Unexpected::Map,
        }
    }
}

/// An error with the position and field path it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub message: String,
    pub span: Option<Span>,
    pub path: String,
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

    pub fn at(node_span: Span, path: &str, message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: Some(node_span),
            path: path.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            message: msg.to_string(),
            span: None,
            path: String::new(),
        }
    }
}

/// Parses one YAML document into a spanned tree. An empty document is `Null`.
pub fn parse(source: &str) -> Result<Node, Error> {
    if source.trim().is_empty() {
        return Ok(Node {
            kind: Kind::Null,
            span: Span {
                line: 1,
                column: 1,
                ..Span::default()
            },
            raw: None,
        });
    }
    let options = serde_saphyr::options! { with_snippet: false };
    match serde_saphyr::from_str_with_options::<RawNode>(source, options) {
        Ok(raw) => Ok(raw.into_node(source)),
        Err(e) => {
            let span = e.location().map(|l| Span::from_location(&l));
            // The parser's message repeats the position; we show it separately.
            let message = e.to_string();
            let message = match message.find(" at line ") {
                Some(i) => message[..i].to_string(),
                None => message,
            };
            let message = message
                .strip_prefix("error: ")
                .map(str::to_string)
                .unwrap_or(message);
            Err(Error {
                message: format!("invalid YAML: {message}"),
                span,
                path: String::new(),
            })
        }
    }
}

/// Deserializes `T` from a node, with `path` naming where the node sits.
pub fn from_node<'a, T: Deserialize<'a>>(node: &'a Node, path: &str) -> Result<T, Error> {
    T::deserialize(NodeDe {
        node,
        path: path.to_string(),
        skip_key: None,
    })
}

/// Like [`from_node`] for a mapping, leaving out one key (a block's `type` tag).
pub fn from_map_without<'a, T: Deserialize<'a>>(
    node: &'a Node,
    path: &str,
    skip_key: &'static str,
) -> Result<T, Error> {
    T::deserialize(NodeDe {
        node,
        path: path.to_string(),
        skip_key: Some(skip_key),
    })
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

// ---- building the tree from serde-saphyr ----

struct RawNode(Spanned<RawKind>);

enum RawKind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<RawNode>),
    Map(Vec<(Spanned<String>, RawNode)>),
}

impl RawNode {
    fn into_node(self, source: &str) -> Node {
        let span = Span::from_location(&self.0.referenced);
        let kind = match self.0.value {
            RawKind::Null => Kind::Null,
            RawKind::Bool(b) => Kind::Bool(b),
            RawKind::Int(i) => Kind::Int(i),
            RawKind::UInt(u) => Kind::UInt(u),
            RawKind::Float(f) => Kind::Float(f),
            RawKind::Str(s) => Kind::Str(s),
            RawKind::Seq(items) => {
                Kind::Seq(items.into_iter().map(|n| n.into_node(source)).collect())
            }
            RawKind::Map(entries) => Kind::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| {
                        (
                            Key {
                                span: Span::from_location(&k.referenced),
                                name: k.value,
                            },
                            v.into_node(source),
                        )
                    })
                    .collect(),
            ),
        };
        let raw = match kind {
            Kind::Bool(_) | Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => source
                .get(span.offset..span.offset + span.len)
                .filter(|t| !t.is_empty() && !t.starts_with(['*', '&', '!']))
                .map(str::to_string),
            _ => None,
        };
        Node { kind, span, raw }
    }
}

impl<'de> Deserialize<'de> for RawNode {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Spanned::<RawKind>::deserialize(d).map(RawNode)
    }
}

impl<'de> Deserialize<'de> for RawKind {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawKind;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a YAML value")
            }
            fn visit_unit<E>(self) -> Result<RawKind, E> {
                Ok(RawKind::Null)
            }
            fn visit_none<E>(self) -> Result<RawKind, E> {
                Ok(RawKind::Null)
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<RawKind, D::Error> {
                RawKind::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<RawKind, E> {
                Ok(RawKind::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<RawKind, E> {
                Ok(RawKind::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<RawKind, E> {
                Ok(RawKind::UInt(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<RawKind, E> {
                Ok(RawKind::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<RawKind, E> {
                Ok(RawKind::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<RawKind, E> {
                Ok(RawKind::Str(v))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<RawKind, A::Error> {
                let mut items = Vec::new();
                while let Some(n) = a.next_element()? {
                    items.push(n);
                }
                Ok(RawKind::Seq(items))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<RawKind, A::Error> {
                let mut entries: Vec<(Spanned<String>, RawNode)> = Vec::new();
                while let Some((k, v)) = a.next_entry::<Spanned<KeyText>, RawNode>()? {
                    let key = Spanned::new(k.value.0, k.referenced, k.defined);
                    if entries.iter().any(|(e, _)| e.value == key.value) {
                        return Err(de::Error::custom(format!("duplicate key `{}`", key.value)));
                    }
                    entries.push((key, v));
                }
                Ok(RawKind::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping key, taken as text whatever scalar it is (`404:` or `yes:` are fine keys).
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

// ---- deserializing typed models from the tree ----

struct NodeDe<'a> {
    node: &'a Node,
    path: String,
    skip_key: Option<&'static str>,
}

impl NodeDe<'_> {
    /// The innermost deserializer that sees an error gives it its position.
    fn locate<T>(&self, r: Result<T, Error>) -> Result<T, Error> {
        located(r, self.node, || self.path.clone())
    }

    fn scalar_text(&self) -> Option<String> {
        if let Some(raw) = &self.node.raw {
            return Some(raw.clone());
        }
        match &self.node.kind {
            Kind::Str(s) => Some(s.clone()),
            Kind::Bool(b) => Some(b.to_string()),
            Kind::Int(i) => Some(i.to_string()),
            Kind::UInt(u) => Some(u.to_string()),
            Kind::Float(f) => Some(f.to_string()),
            _ => None,
        }
    }
}

impl<'de> de::Deserializer<'de> for NodeDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = match &self.node.kind {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(*b),
            Kind::Int(i) => visitor.visit_i64(*i),
            Kind::UInt(u) => visitor.visit_u64(*u),
            Kind::Float(f) => visitor.visit_f64(*f),
            Kind::Str(s) => visitor.visit_str(s),
            Kind::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
                path: &self.path,
            }),
            Kind::Map(entries) => visitor.visit_map(MapDe {
                entries: entries.iter(),
                value: None,
                path: &self.path,
                skip_key: self.skip_key,
            }),
        };
        self.locate(r)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.kind {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    // A plain `Yes` or `2021` where text is expected is the editor's text, not a boolean
    // or a number; YAML's guessing should not turn it into an error.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = match self.scalar_text() {
            Some(text) => visitor.visit_string(text),
            None => Err(de::Error::invalid_type(self.node.unexpected(), &visitor)),
        };
        self.locate(r)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let r = match &self.node.kind {
            Kind::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::invalid_type(
                self.node.unexpected(),
                &"one of the listed names",
            )),
        };
        self.locate(r)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct SeqDe<'a, 'p> {
    items: std::slice::Iter<'a, Node>,
    index: usize,
    path: &'p str,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(node) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        child(seed, node, || index_path(self.path, index)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a, 'p> {
    entries: std::slice::Iter<'a, (Key, Node)>,
    value: Option<(&'a Key, &'a Node)>,
    path: &'p str,
    skip_key: Option<&'static str>,
}

impl<'de> de::MapAccess<'de> for MapDe<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, node)) = self
            .entries
            .find(|(k, _)| Some(k.name.as_str()) != self.skip_key)
        else {
            return Ok(None);
        };
        self.value = Some((key, node));
        let path = child_path(self.path, &key.name);
        seed.deserialize(key.name.as_str().into_deserializer())
            .map(Some)
            .map_err(|e: Error| Error {
                span: Some(key.span),
                path,
                ..e
            })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, node)) = self.value.take() else {
            return Err(de::Error::custom("a value was asked for before its key"));
        };
        child(seed, node, || child_path(self.path, &key.name))
    }
}

fn child<'de, T: DeserializeSeed<'de>>(
    seed: T,
    node: &'de Node,
    path: impl Fn() -> String,
) -> Result<T::Value, Error> {
    let de = NodeDe {
        node,
        path: path(),
        skip_key: None,
    };
    located(seed.deserialize(de), node, path)
}

/// Errors raised after a value was read (a custom check in a type's own
/// `Deserialize`) belong to that value. The path is only built for an error.
fn located<T>(r: Result<T, Error>, node: &Node, path: impl FnOnce() -> String) -> Result<T, Error> {
    r.map_err(|mut e| {
        if e.span.is_none() {
            e.span = Some(node.span);
            e.path = path();
        }
        e
    })
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
        from_node(&node, "")
    }

    #[test]
    fn reports_wrong_type_at_the_value_with_its_path() {
        let err = load::<Grid>("cards:\n  - title: A\n    count: three\n").unwrap_err();
        assert_eq!(err.path, "cards[0].count");
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((3, 12)));
        assert!(err.message.contains("expected u32"), "{}", err.message);
    }

    #[test]
    fn reports_unknown_field_at_the_key() {
        let err =
            load::<Grid>("cards:\n  - title: A\n    count: 1\n    colour: red\n").unwrap_err();
        assert_eq!(err.path, "cards[0].colour");
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((4, 5)));
        assert!(err.message.contains("unknown field `colour`"));
    }

    #[test]
    fn reports_missing_field_at_its_mapping() {
        let err = load::<Grid>("cards:\n  - title: A\n").unwrap_err();
        assert_eq!(err.path, "cards[0]");
        assert_eq!(err.span.map(|s| s.line), Some(2));
        assert!(err.message.contains("missing field `count`"));
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
        assert!(err.message.starts_with("invalid YAML"), "{}", err.message);
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
        assert!(err.message.contains("duplicate"), "{}", err.message);
    }
}
