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
        let json = script_safe_json(&json);
        let html = self
            .ssr
            .render(name, &json)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;

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
