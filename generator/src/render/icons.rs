//! `icon(name)`: an icon as inline SVG, from the site's own `templates/icons/` or
//! from lucide's. Inline SVG needs no request and takes the text's colour.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::value::Kwargs;
use minijinja::{Error, ErrorKind, Value};

use super::svg::clean_svg;

pub struct Icons {
    /// The site root, for naming icon files in errors.
    root: PathBuf,
    pub dirs: Vec<PathBuf>,
    cache: Mutex<HashMap<String, Arc<str>>>,
}

impl Icons {
    pub fn new(root: &std::path::Path, dirs: Vec<PathBuf>) -> Icons {
        Icons {
            root: root.to_path_buf(),
            dirs,
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn render(&self, name: &str, kwargs: Kwargs) -> Result<Value, Error> {
        let size: Option<u32> = kwargs.get("size")?;
        let class: Option<String> = kwargs.get("class")?;
        kwargs.assert_all_used()?;
        let svg = self.load(name)?;
        let size = size.unwrap_or(24);
        // An arrow or chevron points along the line: on a right-to-left page it
        // is mirrored (`styles/`), as logos and other icons are not.
        let points = (name.starts_with("arrow-") || name.starts_with("chevron"))
            && (name.contains("left") || name.contains("right"));
        let directional = if points { " icon--directional" } else { "" };
        let class = match class {
            Some(c) => format!("icon icon-{name}{directional} {c}"),
            None => format!("icon icon-{name}{directional}"),
        };
        let open = format!(
            r#"<svg class="{class}" width="{size}" height="{size}" aria-hidden="true" focusable="false""#
        );
        Ok(Value::from_safe_string(svg.replacen("<svg", &open, 1)))
    }

    fn load(&self, name: &str) -> Result<Arc<str>, Error> {
        if let Some(svg) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
        {
            return Ok(svg.clone());
        }
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        let found = self
            .dirs
            .iter()
            .filter(|_| valid)
            .find_map(|dir| {
                let path = dir.join(format!("{name}.svg"));
                std::fs::read_to_string(&path).ok().map(|text| (path, text))
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("unknown icon `{name}`: it is neither in templates/icons/ nor a lucide icon (lucide.dev/icons)"),
                )
            })?;
        let svg: Arc<str> = clean_svg(&found.1)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "icon `{name}` ({}) is not an SVG: it has no <svg> element",
                        crate::diagnostics::relative(&found.0, &self.root)
                    ),
                )
            })?
            .into();
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_string(), svg.clone());
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_icon_file_that_is_not_an_svg_is_an_error_not_a_panic() {
        let dir = std::env::temp_dir().join(format!("site-icons-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("broken.svg"), "a tag-less file").unwrap();
        std::fs::write(dir.join("ok.svg"), "<svg viewBox=\"0 0 1 1\"><path/></svg>").unwrap();
        let icons = Icons::new(&dir, vec![dir.clone()]);
        let err = icons.load("broken").unwrap_err();
        assert!(
            err.to_string()
                .contains("icon `broken` (broken.svg) is not an SVG"),
            "{err}"
        );
        assert!(icons.load("ok").is_ok());
        assert!(icons
            .load("missing")
            .unwrap_err()
            .to_string()
            .contains("unknown icon"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
