//! The spanned tree: serde-saphyr parses (its budget refuses alias bombs) into
//! [`Node`]s that keep each value's position.

use std::fmt;

use serde::de::{self, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{syntax, Error, Key, Kind, Node, Span};

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
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            let message = match message.find(" at line ") {
                Some(i) => &message[..i],
                None => message,
            };
            let message = strip_position(message);
            Err(syntax::explain(source, span, message))
        }
    }
}

/// `line 5 column 10: mapping values …` → `mapping values …`.
fn strip_position(message: &str) -> &str {
    match message.strip_prefix("line ") {
        Some(rest) => rest.split_once(": ").map_or(message, |(_, m)| m),
        None => message,
    }
}

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
                // A few keys are compared one by one; past those, by hash, so a
                // mapping of many keys stays linear.
                let mut seen: std::collections::HashSet<String> = Default::default();
                while let Some((k, v)) = a.next_entry::<Spanned<KeyText>, RawNode>()? {
                    let key = Spanned::new(k.value.0, k.referenced, k.defined);
                    let duplicate = if entries.len() < 16 {
                        entries.iter().any(|(e, _)| e.value == key.value)
                    } else {
                        if seen.is_empty() {
                            seen.extend(entries.iter().map(|(e, _)| e.value.clone()));
                        }
                        !seen.insert(key.value.clone())
                    };
                    if duplicate {
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
