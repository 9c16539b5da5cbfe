//! `image(src, alt)`: an `<img>` for a file under `public/`, always with its
//! intrinsic width and height (so nothing shifts as it loads), lazy unless `eager`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use minijinja::value::Kwargs;
use minijinja::{Error, ErrorKind, Value};

use super::svg::svg_size;
use super::text::escape_attribute;

pub struct Images {
    public: PathBuf,
    sizes: Mutex<HashMap<String, (u32, u32)>>,
}

impl Images {
    pub fn new(public: PathBuf) -> Images {
        Images {
            public,
            sizes: Mutex::new(HashMap::new()),
        }
    }

    pub fn render(&self, src: &str, alt: &str, kwargs: Kwargs) -> Result<Value, Error> {
        let eager: Option<bool> = kwargs.get("eager")?;
        let class: Option<String> = kwargs.get("class")?;
        kwargs.assert_all_used()?;
        let (width, height) = self.size(src)?;
        let loading = if eager.unwrap_or(false) {
            r#" fetchpriority="high""#
        } else {
            r#" loading="lazy""#
        };
        let class = class
            .map(|c| format!(r#" class="{}""#, escape_attribute(&c)))
            .unwrap_or_default();
        Ok(Value::from_safe_string(format!(
            r#"<img src="{}" alt="{}" width="{width}" height="{height}"{loading} decoding="async"{class}>"#,
            escape_attribute(src),
            escape_attribute(alt)
        )))
    }

    fn size(&self, src: &str) -> Result<(u32, u32), Error> {
        if let Some(s) = self
            .sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(src)
        {
            return Ok(*s);
        }
        let rel = src.trim_start_matches('/');
        let missing = || {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("no image `{src}` in public/"),
            )
        };
        if rel.split('/').any(|s| s == "..") {
            return Err(missing());
        }
        let path = self.public.join(rel);
        let size = if rel.ends_with(".svg") {
            let text = std::fs::read_to_string(&path).map_err(|_| missing())?;
            svg_size(&text).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("image `{src}` has no width and height (or viewBox) to size it by"),
                )
            })?
        } else {
            let dim = imagesize::size(&path).map_err(|_| missing())?;
            (dim.width as u32, dim.height as u32)
        };
        self.sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(src.to_string(), size);
        Ok(size)
    }
}
