//! The `island()` template function and the scripts a page with islands needs.
//!
//! `island("Header", props, hydrate="idle")` places React's server HTML in a marker
//! `<div data-island>` followed by the props as `<script type="application/json">`
//! (data, not code, so a strict CSP needs no `unsafe-inline`). The runtime named by
//! `island_scripts()` hydrates each marker when its directive says.

use std::sync::Arc;

use minijinja::value::Kwargs;
use minijinja::{Error, ErrorKind, State, Value};

use super::ssr;
use super::text::script_safe_json;
use crate::bundle::Bundle;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hydrate {
    Load,
    Idle,
    Visible,
    None,
}

impl Hydrate {
    const NAMES: &'static str = "load, idle, visible, none";

    fn parse(s: &str) -> Option<Hydrate> {
        Some(match s {
            "load" => Hydrate::Load,
            "idle" => Hydrate::Idle,
            "visible" => Hydrate::Visible,
            "none" => Hydrate::None,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Hydrate::Load => "load",
            Hydrate::Idle => "idle",
            Hydrate::Visible => "visible",
            Hydrate::None => "none",
        }
    }
}

/// The islands a page placed, in order; kept on the render state.
#[derive(Debug, Default)]
pub struct PageIslands(pub Vec<(String, Hydrate)>);

pub struct Islands {
    pub bundle: Arc<Bundle>,
    pub ssr: Arc<ssr::Renderer>,
}

impl Islands {
    pub fn place(
        &self,
        state: &mut State,
        name: &str,
        props: Value,
        kwargs: Kwargs,
    ) -> Result<Value, Error> {
        let hydrate_name: Option<String> = kwargs.get("hydrate")?;
        let per_page: Option<Vec<String>> = kwargs.get("per_page")?;
        kwargs.assert_all_used()?;
        let hydrate = match hydrate_name.as_deref() {
            None => Hydrate::Load,
            Some(h) => Hydrate::parse(h).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "unknown hydrate directive `{h}`, expected one of {}",
                        Hydrate::NAMES
                    ),
                )
            })?,
        };
        let Some(entry) = self.bundle.island(name) else {
            let known: Vec<&str> = self
                .bundle
                .island_names()
                .iter()
                .map(String::as_str)
                .collect();
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                match crate::suggest::nearest(name, known.iter().copied()) {
                    Some(near) => format!("unknown island `{name}`; did you mean `{near}`?"),
                    None => format!(
                        "unknown island `{name}`: islands are the files islands/<Name>.tsx ({})",
                        if known.is_empty() {
                            "there are none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                },
            ));
        };
        if !(props.is_undefined()
            || props.is_none()
            || props
                .as_object()
                .is_some_and(|o| o.repr() == minijinja::value::ObjectRepr::Map))
        {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "island props must be a mapping",
            ));
        }
        let json = if props.is_undefined() || props.is_none() {
            "{}".to_string()
        } else {
            serde_json::to_string(&props).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("island props cannot be JSON: {e}"),
                )
            })?
        };
        // Strings that differ from page to page (`per_page`, dotted paths with `*`
        // for every item of a list) are rendered as numbered stand-ins and put in
        // the HTML after: pages that differ only in them share one server render.
        let (rendered_json, values) = match &per_page {
            Some(paths) if !paths.is_empty() => {
                let mut value: serde_json::Value = serde_json::from_str(&json).map_err(|e| {
                    Error::new(ErrorKind::InvalidOperation, format!("island props: {e}"))
                })?;
                let mut values = Vec::new();
                for path in paths {
                    let segments: Vec<&str> = path.split('.').collect();
                    stand_in(&mut value, &segments, &mut values);
                }
                (script_safe_json(&value.to_string()), values)
            }
            _ => (String::new(), Vec::new()),
        };
        let json = script_safe_json(&json);
        let rendered_json = if values.is_empty() {
            &json
        } else {
            &rendered_json
        };
        let mut html = self
            .ssr
            .render(name, rendered_json)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
        for (i, value) in values.iter().enumerate() {
            html = html.replace(&stand_in_token(i), &html_escape(value)).into();
        }

        state
            .get_or_insert_extension(PageIslands::default())
            .0
            .push((name.to_string(), hydrate));

        let out = if hydrate == Hydrate::None {
            format!(r#"<div data-island="{name}" data-hydrate="none">{html}</div>"#)
        } else {
            format!(
                r#"<div data-island="{name}" data-hydrate="{}" data-component="{}">{html}</div><script type="application/json" data-island-props>{json}</script>"#,
                hydrate.name(),
                entry.url,
            )
        };
        Ok(Value::from_safe_string(out))
    }

    /// Preloads for `load` islands and the runtime script; nothing when the page has
    /// no island that hydrates.
    pub fn scripts(&self, state: &mut State) -> Value {
        let placed: Vec<(String, Hydrate)> = state
            .get_extension::<PageIslands>()
            .map(|p| p.0.clone())
            .unwrap_or_default();
        let Some(runtime) = self.bundle.runtime() else {
            return Value::from_safe_string(String::new());
        };
        if placed.iter().all(|(_, h)| *h == Hydrate::None) {
            return Value::from_safe_string(String::new());
        }
        let mut preload: Vec<String> = Vec::new();
        for (name, hydrate) in &placed {
            if *hydrate != Hydrate::Load {
                continue;
            }
            if let Some(entry) = self.bundle.island(name) {
                for url in std::iter::once(entry.url).chain(entry.preload) {
                    if !preload.contains(&url) {
                        preload.push(url);
                    }
                }
            }
        }
        let mut out = String::new();
        for url in preload {
            out.push_str(&format!(r#"<link rel="modulepreload" href="{url}">"#));
        }
        out.push_str(&format!(
            r#"<script type="module" src="{}"></script>"#,
            runtime.url
        ));
        Value::from_safe_string(out)
    }
}

/// The stand-in of the `i`th per-page string: private-use characters, which
/// React writes as they are in text and attributes.
fn stand_in_token(i: usize) -> String {
    format!("\u{F8FF}{i}\u{F8FF}")
}

/// Replaces the strings at `path` (`*` for every item of a list) with stand-ins,
/// keeping each replaced string in `values`.
fn stand_in(value: &mut serde_json::Value, path: &[&str], values: &mut Vec<String>) {
    let Some((first, rest)) = path.split_first() else {
        if let serde_json::Value::String(s) = value {
            values.push(std::mem::replace(s, stand_in_token(values.len())));
        }
        return;
    };
    match (value, *first) {
        (serde_json::Value::Array(items), "*") => {
            for item in items {
                stand_in(item, rest, values);
            }
        }
        (serde_json::Value::Object(map), key) => {
            if let Some(v) = map.get_mut(key) {
                stand_in(v, rest, values);
            }
        }
        _ => {}
    }
}

/// Text for HTML: in an attribute or between tags.
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_page_strings_become_numbered_stand_ins() {
        let mut props = serde_json::json!({
            "active": "/about",
            "languages": { "links": [{ "code": "en", "href": "/about/" }, { "code": "de", "href": "/de/about/" }] }
        });
        let mut values = Vec::new();
        stand_in(
            &mut props,
            &["languages", "links", "*", "href"],
            &mut values,
        );
        assert_eq!(values, ["/about/", "/de/about/"]);
        assert_eq!(props["languages"]["links"][1]["href"], stand_in_token(1));
        // Everything else is rendered as it is.
        assert_eq!(props["active"], "/about");
        assert_eq!(props["languages"]["links"][0]["code"], "en");
        assert_eq!(html_escape("/a?b=1&c=\"x\""), "/a?b=1&amp;c=&quot;x&quot;");
    }
}
