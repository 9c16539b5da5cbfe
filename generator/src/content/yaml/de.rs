//! Typed models read from the tree by a serde `Deserializer` that keeps going
//! after a mistake, so that one reading reports all of a file's mistakes.
//!
//! A mistake at a value (a wrong type, an unknown field, a name not in the list)
//! is recorded with its position and path, and a placeholder of the expected
//! kind (`placeholder.rs`) is read in its place, so the reading goes on to the
//! next value. serde stops a struct at its first absent required field; that
//! fact about the struct is learned, and the reading starts over knowing it, up
//! to [`MAX_PASSES`] times.
//!
//! It stays one file because it is one piece: serde's `Deserializer` for a node
//! and the sequence and map access it hands to visitors, which hand each child
//! node back to it, all sharing one reading's state.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

use super::placeholder::{EmptySeq, Phantom, PhantomEnum, PhantomMap};
use super::words::{article, friendly, names};
use super::{child_path, index_path, Error, Failed, Key, Kind, Node, Reference};
use crate::content::values;
use crate::suggest;

/// Each pass learns at least one absent required field, so this bounds the
/// passes for the worst file; real files need one or two.
const MAX_PASSES: usize = 64;

/// Required fields, learned as files are read, as (type, field): which fields a
/// struct cannot do without is a fact about its type, the same for every file,
/// so it is kept for the process. The type is named by its serde visitor's type
/// name (`std::any::type_name`), which is unique to the struct, where serde's
/// struct name alone is not (two structs may share a name).
static REQUIRED: Mutex<BTreeSet<(&'static str, &'static str)>> = Mutex::new(BTreeSet::new());

fn required(ty: &'static str, fields: &'static [&'static str]) -> Vec<&'static str> {
    let known = REQUIRED.lock().unwrap_or_else(PoisonError::into_inner);
    fields
        .iter()
        .copied()
        .filter(|f| known.contains(&(ty, *f)))
        .collect()
}

/// One reading's findings.
#[derive(Default)]
struct State {
    errors: RefCell<Vec<Error>>,
    references: RefCell<Vec<Reference>>,
    /// Absent fields of mappings read without a field list (by path), carried
    /// over from earlier passes.
    absent: RefCell<BTreeSet<(String, &'static str)>>,
    learned: Cell<bool>,
}

impl State {
    fn record(&self, mut error: Error) -> Error {
        if !error.recorded {
            error.recorded = true;
            self.errors.borrow_mut().push(error.clone());
        }
        error
    }
}

pub fn read<'a, T: Deserialize<'a>>(
    node: &'a Node,
    path: &str,
    skip_key: Option<&'static str>,
) -> Result<(T, Vec<Reference>), Failed> {
    let mut absent = BTreeSet::new();
    let mut pass = 1;
    loop {
        let state = State {
            absent: RefCell::new(absent),
            ..State::default()
        };
        let result = T::deserialize(NodeDe {
            node,
            path: path.to_string(),
            skip_key,
            state: &state,
        });
        let learned = state.learned.get();
        let mut errors = state.errors.into_inner();
        let references = state.references.into_inner();
        match result {
            Ok(value) if errors.is_empty() => return Ok((value, references)),
            // A required field was found absent: read again, knowing it.
            Err(e) if e.missing.is_some() && learned && pass < MAX_PASSES => {
                absent = state.absent.into_inner();
                pass += 1;
                continue;
            }
            Err(e) if !e.recorded => errors.push(e),
            _ => {}
        }
        return Err(Failed { errors, references });
    }
}

struct NodeDe<'a, 's> {
    node: &'a Node,
    path: String,
    skip_key: Option<&'static str>,
    state: &'s State,
}

impl<'a, 's> NodeDe<'a, 's> {
    fn child(&self, node: &'a Node, path: String) -> NodeDe<'a, 's> {
        NodeDe {
            node,
            path,
            skip_key: None,
            state: self.state,
        }
    }

    /// Records a mistake at this value.
    fn mistake(&self, message: impl Into<String>) {
        self.state
            .record(Error::at(self.node.span, &self.path, message));
    }

    /// The innermost deserializer that sees an error gives it its position and
    /// records it; callers above pass it on.
    fn locate<T>(&self, r: Result<T, Error>) -> Result<T, Error> {
        r.map_err(|mut e| {
            if e.span.is_none() {
                e.span = Some(self.node.span);
                e.path = self.path.clone();
            }
            if e.missing.is_some() {
                // Kept unrecorded: the next pass reports it where it belongs.
                return e;
            }
            self.state.record(e)
        })
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

    fn integer(&self) -> Option<i128> {
        match &self.node.kind {
            Kind::Int(i) => Some(i128::from(*i)),
            Kind::UInt(u) => Some(i128::from(*u)),
            _ => None,
        }
    }

    fn read_integer<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        min: i128,
        max: i128,
    ) -> Result<V::Value, Error> {
        let value = match self.integer() {
            Some(i) if (min..=max).contains(&i) => i,
            Some(i) => {
                self.mistake(format!(
                    "expected a whole number from {min} to {max}, found {i}"
                ));
                min.max(0)
            }
            None => {
                self.mistake(format!(
                    "expected a whole number, found {}",
                    self.node.described()
                ));
                min.max(0)
            }
        };
        let r = match u64::try_from(value) {
            Ok(u) => visitor.visit_u64(u),
            Err(_) => visitor.visit_i64(i64::try_from(value).unwrap_or(i64::MIN)),
        };
        self.locate(r)
    }

    /// A mapping's entries as the struct `name` with `fields` reads them: unknown
    /// keys are reported and left out, known absent required fields reported and
    /// given placeholders.
    fn struct_map<'p>(
        &'p self,
        entries: &'a [(Key, Node)],
        name: &'static str,
        ty: &'static str,
        fields: &'static [&'static str],
    ) -> MapDe<'a, 's, 'p> {
        let mut kept = Vec::with_capacity(entries.len());
        // A field meant by a misspelt key is not reported again as absent.
        let mut meant = Vec::new();
        for (key, value) in entries {
            if Some(key.name.as_str()) == self.skip_key {
                continue;
            }
            if fields.contains(&key.name.as_str()) {
                kept.push((key, value));
                continue;
            }
            let hint = suggest::nearest(&key.name, fields.iter().copied());
            meant.extend(hint);
            let message = match hint {
                Some(n) => format!("unknown field `{}`; did you mean `{n}`?", key.name),
                None => format!(
                    "unknown field `{}`; {} {} has the fields {}",
                    key.name,
                    article(&friendly(name)),
                    friendly(name),
                    names(fields)
                ),
            };
            self.state.record(Error::at(
                key.span,
                &child_path(&self.path, &key.name),
                message,
            ));
        }
        let mut absent = Vec::new();
        for field in required(ty, fields) {
            if !entries.iter().any(|(k, _)| k.name == field) {
                absent.push(field);
            }
        }
        self.report_absent(&absent, name, &meant);
        MapDe {
            entries: kept.into_iter(),
            absent: absent.into_iter(),
            value: None,
            parent: self,
        }
    }

    fn report_absent(&self, absent: &[&'static str], name: &str, meant: &[&str]) {
        for field in absent.iter().filter(|f| !meant.contains(f)) {
            let what = friendly(name);
            self.mistake(format!(
                "this {what} has no `{field}`, which it needs; add a `{field}:` line"
            ));
        }
    }
}

/// A hook for the site's own value types, told apart by their serde name: the
/// value is checked, and what it refers to is kept for the references pass.
fn checked_value<'de, V: Visitor<'de>>(
    de: NodeDe<'de, '_>,
    kind: values::Kind,
    visitor: V,
) -> Result<V::Value, Error> {
    // Dates are text to an editor even when YAML reads them otherwise.
    let Some(text) = de.scalar_text() else {
        return visitor.visit_newtype_struct(de);
    };
    match values::check(kind, &text) {
        Ok(found) => {
            de.state.references.borrow_mut().extend(
                found
                    .into_iter()
                    .map(|f| Reference::at(f, de.node.span, de.path.clone())),
            );
            visitor.visit_newtype_struct(de)
        }
        Err(message) => {
            de.mistake(message);
            visitor
                .visit_newtype_struct(Phantom)
                .map_err(|e| de.state.record(Error::silenced(e)))
        }
    }
}

impl<'de, 's> de::Deserializer<'de> for NodeDe<'de, 's> {
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
                parent: &self,
            }),
            Kind::Map(entries) => {
                let r = visitor.visit_map(self.plain_map(entries));
                self.learn_absent(&r);
                r
            }
        };
        self.locate(r)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match &self.node.kind {
            Kind::Bool(b) => *b,
            _ => {
                self.mistake(format!(
                    "expected `true` or `false`, found {}",
                    self.node.described()
                ));
                false
            }
        };
        let r = visitor.visit_bool(value);
        self.locate(r)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, i128::from(i8::MIN), i128::from(i8::MAX))
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, i128::from(i16::MIN), i128::from(i16::MAX))
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, i128::from(i32::MIN), i128::from(i32::MAX))
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, i128::from(i64::MIN), i128::from(i64::MAX))
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, 0, i128::from(u8::MAX))
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, 0, i128::from(u16::MAX))
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, 0, i128::from(u32::MAX))
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, 0, i128::from(u64::MAX))
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match &self.node.kind {
            Kind::Float(f) => *f,
            Kind::Int(i) => *i as f64,
            Kind::UInt(u) => *u as f64,
            _ => {
                self.mistake(format!(
                    "expected a number, found {}",
                    self.node.described()
                ));
                0.0
            }
        };
        let r = visitor.visit_f64(value);
        self.locate(r)
    }

    // A plain `Yes` or `2021` where text is expected is the editor's text, not a boolean
    // or a number; YAML's guessing should not turn it into an error.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let text = match self.scalar_text() {
            Some(text) => text,
            None => {
                let hint = match self.node.kind {
                    Kind::Seq(_) => "; write it on one line after the `:`, or as `- ` lines only where a list is wanted",
                    Kind::Map(_) => "; a `:` followed by a space starts a field: put the text in quotes if the `:` belongs to it",
                    _ => "",
                };
                self.mistake(format!(
                    "expected text, found {}{hint}",
                    self.node.described()
                ));
                String::new()
            }
        };
        let r = visitor.visit_string(text);
        self.locate(r)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.kind {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if !matches!(self.node.kind, Kind::Null) {
            self.mistake(format!(
                "expected nothing here, found {}",
                self.node.described()
            ));
        }
        let r = visitor.visit_unit();
        self.locate(r)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match values::Kind::from_serde_name(name) {
            Some(kind) => checked_value(self, kind, visitor),
            None => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = match &self.node.kind {
            Kind::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
                parent: &self,
            }),
            _ => {
                self.mistake(format!(
                    "expected a list, found {}; write a list as `- item` lines, or as `[a, b]` on one line",
                    self.node.described()
                ));
                visitor.visit_seq(EmptySeq)
            }
        };
        self.locate(r)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = match &self.node.kind {
            Kind::Map(entries) => {
                let r = visitor.visit_map(self.plain_map(entries));
                self.learn_absent(&r);
                r
            }
            _ => {
                self.mistake(format!(
                    "expected a mapping (`name: value` lines), found {}",
                    self.node.described()
                ));
                visitor.visit_map(PhantomMap { fields: [].iter() })
            }
        };
        self.locate(r)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let r = match &self.node.kind {
            Kind::Map(entries) => {
                let map = self.struct_map(entries, name, std::any::type_name::<V>(), fields);
                visitor.visit_map(map)
            }
            _ => {
                let what = friendly(name);
                let hint = match self.node.kind {
                    Kind::Seq(_) => format!(
                        "; write each field on its own line as `name: value`, not as a list ({})",
                        names(fields)
                    ),
                    _ => format!(", with the fields {}", names(fields)),
                };
                self.mistake(format!(
                    "expected {} {what} written as `name: value` lines, found {}{hint}",
                    article(&what),
                    self.node.described()
                ));
                visitor
                    .visit_map(PhantomMap {
                        fields: fields.iter(),
                    })
                    .map_err(|e| self.state.record(Error::silenced(e)))
            }
        };
        if let Err(e) = &r {
            if let (Some(field), None) = (e.missing, e.span) {
                let key = (std::any::type_name::<V>(), field);
                let mut known = REQUIRED.lock().unwrap_or_else(PoisonError::into_inner);
                if known.insert(key) {
                    self.state.learned.set(true);
                }
            }
        }
        self.locate(r)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let text = self.scalar_text();
        let chosen = match variants.iter().find(|v| Some(**v) == text.as_deref()) {
            Some(variant) => *variant,
            None => {
                let hint = match &text {
                    Some(s) => suggest::did_you_mean(s, variants.iter().copied()),
                    None => String::new(),
                };
                let what = friendly(name);
                self.mistake(format!(
                    "expected {} {what}, one of {}; found {}{hint}",
                    article(&what),
                    names(variants),
                    self.node.described()
                ));
                let first = variants.first().copied().unwrap_or_default();
                return visitor
                    .visit_enum(PhantomEnum(first))
                    .map_err(|e| self.state.record(Error::silenced(e)));
            }
        };
        let r = visitor.visit_enum(chosen.into_deserializer());
        self.locate(r)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, i128::from(i64::MIN), i128::from(i64::MAX))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.read_integer(visitor, 0, i128::from(u64::MAX))
    }
}

impl<'a, 's> NodeDe<'a, 's> {
    /// A required field serde found absent from a mapping read without a field list.
    fn learn_absent<T>(&self, r: &Result<T, Error>) {
        if let Err(Error {
            missing: Some(field),
            span: None,
            ..
        }) = r
        {
            if self
                .state
                .absent
                .borrow_mut()
                .insert((self.path.clone(), field))
            {
                self.state.learned.set(true);
            }
        }
    }

    /// A mapping read without a field list (`HashMap`, `BTreeMap`, flattened
    /// structs), with placeholders for the fields an earlier pass found absent.
    fn plain_map<'p>(&'p self, entries: &'a [(Key, Node)]) -> MapDe<'a, 's, 'p> {
        let absent: Vec<&'static str> = self
            .state
            .absent
            .borrow()
            .iter()
            .filter(|(path, _)| *path == self.path)
            .map(|(_, f)| *f)
            .collect();
        self.report_absent(&absent, "mapping", &[]);
        MapDe {
            entries: entries
                .iter()
                .filter(|(k, _)| Some(k.name.as_str()) != self.skip_key)
                .map(|(k, v)| (k, v))
                .collect::<Vec<_>>()
                .into_iter(),
            absent: absent.into_iter(),
            value: None,
            parent: self,
        }
    }
}

struct SeqDe<'a, 's, 'p> {
    items: std::slice::Iter<'a, Node>,
    index: usize,
    parent: &'p NodeDe<'a, 's>,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'de, '_, '_> {
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
        let child = self
            .parent
            .child(node, index_path(&self.parent.path, index));
        seed.deserialize(child).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// Either a value from the file, or a placeholder for an absent field.
enum Pending<'a> {
    Entry(&'a Key, &'a Node),
    Absent,
}

struct MapDe<'a, 's, 'p> {
    entries: std::vec::IntoIter<(&'a Key, &'a Node)>,
    absent: std::vec::IntoIter<&'static str>,
    value: Option<Pending<'a>>,
    parent: &'p NodeDe<'a, 's>,
}

impl<'de> de::MapAccess<'de> for MapDe<'de, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if let Some((key, node)) = self.entries.next() {
            self.value = Some(Pending::Entry(key, node));
            let path = child_path(&self.parent.path, &key.name);
            return seed
                .deserialize(key.name.as_str().into_deserializer())
                .map(Some)
                .map_err(|e: Error| {
                    self.parent.state.record(Error {
                        span: Some(key.span),
                        path,
                        ..e
                    })
                });
        }
        if let Some(field) = self.absent.next() {
            self.value = Some(Pending::Absent);
            return seed
                .deserialize(field.into_deserializer())
                .map(Some)
                .map_err(Error::silenced);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(Pending::Entry(key, node)) => {
                let path = child_path(&self.parent.path, &key.name);
                let span = node.span;
                let child = self.parent.child(node, path.clone());
                // A value's own rule (a time zone, a status) broken after it was
                // read is the value's error, at its line.
                seed.deserialize(child).map_err(|mut e| {
                    if e.span.is_none() && e.missing.is_none() {
                        e.span = Some(span);
                        e.path = path;
                        return self.parent.state.record(e);
                    }
                    e
                })
            }
            Some(Pending::Absent) => seed.deserialize(Phantom).map_err(Error::silenced),
            None => Err(Error::silenced(de::Error::custom(
                "a value was asked for before its key",
            ))),
        }
    }
}
