//! Template functions and filters other than islands: asset URLs from the esbuild
//! metafile, the active navigation link, Markdown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::value::Kwargs;
use minijinja::{Environment, Error, ErrorKind, Value};

use crate::bundle::Bundle;
use crate::content::Content;
use crate::markdown;

pub fn register(
    env: &mut Environment<'static>,
    root: &Path,
    bundle: &Arc<Bundle>,
    content: &Content,
    node_modules: Option<&Path>,
) {
    let public = root.join("public");
    let bundle = bundle.clone();
    env.add_function("asset", move |path: &str| asset_url(&bundle, &public, path));

    let icons = Arc::new(Icons {
        dirs: [
            Some(root.join("templates").join("icons")),
            node_modules.map(|n| n.join("lucide-static").join("icons")),
        ]
        .into_iter()
        .flatten()
        .collect(),
        cache: Mutex::new(HashMap::new()),
    });
    env.add_function("icon", move |name: &str, kwargs: Kwargs| {
        icons.render(name, kwargs)
    });

    let images = Arc::new(Images {
        public: root.join("public"),
        sizes: Mutex::new(HashMap::new()),
    });
    env.add_function("image", move |src: &str, alt: &str, kwargs: Kwargs| {
        images.render(src, alt, kwargs)
    });

    let organization = organization_jsonld(&content.config);
    env.add_function("organization_jsonld", move || {
        Value::from_safe_string(organization.clone())
    });

    let nav: Vec<String> = content
        .config
        .nav
        .iter()
        .map(|l| l.href.as_str().to_string())
        .collect();
    env.add_function("nav_active", move |route: &str| nav_active(&nav, route));

    env.add_filter("markdown", |text: &str| {
        Value::from_safe_string(markdown::render(text))
    });
    env.add_filter("markdown_inline", |text: &str| {
        Value::from_safe_string(markdown::render_inline(text))
    });
}

/// Icons as inline SVG: the site's own `templates/icons/<name>.svg` first, then
/// lucide's. Inline SVG needs no request and takes the text colour.
struct Icons {
    dirs: Vec<PathBuf>,
    cache: Mutex<HashMap<String, Arc<str>>>,
}

impl Icons {
    fn render(&self, name: &str, kwargs: Kwargs) -> Result<Value, Error> {
        let size: Option<u32> = kwargs.get("size")?;
        let class: Option<String> = kwargs.get("class")?;
        kwargs.assert_all_used()?;
        let svg = self.load(name)?;
        let size = size.unwrap_or(24);
        let class = match class {
            Some(c) => format!("icon icon-{name} {c}"),
            None => format!("icon icon-{name}"),
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
        let text = self
            .dirs
            .iter()
            .filter(|_| valid)
            .find_map(|dir| std::fs::read_to_string(dir.join(format!("{name}.svg"))).ok())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("unknown icon `{name}`: it is neither in templates/icons/ nor a lucide icon (lucide.dev/icons)"),
                )
            })?;
        let svg: Arc<str> = clean_svg(&text).into();
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_string(), svg.clone());
        Ok(svg)
    }
}

/// An SVG file reduced to its `<svg>` element on one line, without the size,
/// class or title it came with (the caller sets those).
fn clean_svg(text: &str) -> String {
    let start = text.find("<svg").unwrap_or(0);
    let body = &text[start..];
    let tag_end = body.find('>').unwrap_or(0);
    let (tag, rest) = body.split_at(tag_end);
    let mut attrs = String::from("<svg");
    for attr in split_attributes(&tag[4..]) {
        let name = attr.split('=').next().unwrap_or("");
        if !matches!(name, "class" | "width" | "height" | "role") {
            attrs.push(' ');
            attrs.push_str(attr);
        }
    }
    let rest = strip_element(rest, "title");
    let joined: Vec<&str> = rest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    format!("{attrs}{}", joined.join(""))
}

fn split_attributes(tag: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (i, c) in tag.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => {
                quote = None;
                if let Some(s) = start.take() {
                    out.push(&tag[s..=i]);
                }
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&tag[s..i]);
                }
            }
            (None, _) if start.is_none() => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(tag[s..].trim_end_matches('/'));
    }
    out.into_iter()
        .filter(|a| !a.is_empty() && *a != "/")
        .collect()
}

fn strip_element(text: &str, name: &str) -> String {
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    match (text.find(&open), text.find(&close)) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &text[..a], &text[b + close.len()..]),
        _ => text.to_string(),
    }
}

/// `<img>` elements for files under `public/`, always with their intrinsic width
/// and height (so nothing shifts as they load) and lazy loading unless `eager`.
struct Images {
    public: PathBuf,
    sizes: Mutex<HashMap<String, (u32, u32)>>,
}

impl Images {
    fn render(&self, src: &str, alt: &str, kwargs: Kwargs) -> Result<Value, Error> {
        let eager: Option<bool> = kwargs.get("eager")?;
        let class: Option<String> = kwargs.get("class")?;
        kwargs.assert_all_used()?;
        let (width, height) = self.size(src)?;
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('"', "&quot;")
                .replace('<', "&lt;")
        };
        let loading = if eager.unwrap_or(false) {
            r#" fetchpriority="high""#
        } else {
            r#" loading="lazy""#
        };
        let class = class
            .map(|c| format!(r#" class="{}""#, esc(&c)))
            .unwrap_or_default();
        Ok(Value::from_safe_string(format!(
            r#"<img src="{}" alt="{}" width="{width}" height="{height}"{loading} decoding="async"{class}>"#,
            esc(src),
            esc(alt)
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

/// The size of an SVG from its `width` and `height`, or else its `viewBox`.
fn svg_size(text: &str) -> Option<(u32, u32)> {
    let start = text.find("<svg")?;
    let tag = &text[start..start + text[start..].find('>')?];
    let attr = |name: &str| -> Option<String> {
        let attrs = split_attributes(&tag[4..]);
        attrs.iter().find_map(|a| {
            let (k, v) = a.split_once('=')?;
            (k == name).then(|| v.trim_matches(['"', '\'']).to_string())
        })
    };
    let number = |v: String| v.trim_end_matches("px").parse::<f32>().ok();
    if let (Some(w), Some(h)) = (
        attr("width").and_then(number),
        attr("height").and_then(number),
    ) {
        return Some((w.round() as u32, h.round() as u32));
    }
    let view_box = attr("viewBox")?;
    let parts: Vec<f32> = view_box
        .split([' ', ','])
        .filter_map(|p| p.parse().ok())
        .collect();
    (parts.len() == 4).then(|| (parts[2].round() as u32, parts[3].round() as u32))
}

/// schema.org data about the company, for search engines, as a JSON-LD script
/// (data, not code: a strict CSP allows it).
fn organization_jsonld(site: &crate::content::SiteConfig) -> String {
    let json = serde_json::json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": site.name,
        "url": site.base_url,
        "description": site.description,
        "foundingDate": site.figures.founded,
        "email": site.contact.email,
        "telephone": site.contact.phone,
        "address": { "@type": "PostalAddress", "streetAddress": site.contact.address },
        "sameAs": site.social.iter().map(|s| s.href.clone()).collect::<Vec<_>>(),
    });
    format!(
        r#"<script type="application/ld+json">{}</script>"#,
        super::islands::script_safe_json(&json.to_string())
    )
}

/// The public URL of a bundled entry (`styles/main.css` → its hashed file) or of a
/// file under `public/`. Anything else is an error, not a broken link.
fn asset_url(bundle: &Bundle, public: &Path, path: &str) -> Result<String, Error> {
    if let Some(url) = bundle.entries.get(path) {
        return Ok(url.clone());
    }
    let rel = path.trim_start_matches('/');
    if !rel.split('/').any(|s| s == "..") && public.join(rel).is_file() {
        return Ok(format!("/{rel}"));
    }
    Err(Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "no asset `{path}`: it is neither a bundled entry (styles/*.css) nor a file in public/"
        ),
    ))
}

/// The navigation link that `route` belongs to: the exact link, or the longest link
/// that is a parent of it (`/services/cloud/` → `/services/`). Home matches only `/`.
pub fn nav_active(nav: &[String], route: &str) -> String {
    nav.iter()
        .filter(|href| {
            let href = href.as_str();
            route == href || (href != "/" && href.ends_with('/') && route.starts_with(href))
        })
        .max_by_key(|href| href.len())
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_files_become_one_clean_element() {
        let svg = clean_svg(
            "<!-- @license -->\n<svg\n  class=\"lucide\"\n  xmlns=\"http://www.w3.org/2000/svg\"\n  width=\"24\"\n  height=\"24\"\n  viewBox=\"0 0 24 24\"\n>\n  <title>X</title>\n  <path d=\"M1 1h2\" />\n</svg>\n",
        );
        assert_eq!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M1 1h2" /></svg>"#
        );
    }

    #[test]
    fn svg_size_comes_from_width_and_height_or_the_view_box() {
        assert_eq!(
            svg_size(r#"<svg width="640" height="400" viewBox="0 0 10 10">"#),
            Some((640, 400))
        );
        assert_eq!(
            svg_size(r#"<svg xmlns="x" viewBox="0 0 800 450">"#),
            Some((800, 450))
        );
        assert_eq!(svg_size(r#"<svg xmlns="x">"#), None);
    }

    #[test]
    fn finds_the_active_navigation_link() {
        let nav: Vec<String> = ["/", "/about/", "/services/", "/contact/"]
            .map(String::from)
            .to_vec();
        assert_eq!(nav_active(&nav, "/"), "/");
        assert_eq!(nav_active(&nav, "/services/"), "/services/");
        assert_eq!(nav_active(&nav, "/services/cloud/"), "/services/");
        assert_eq!(nav_active(&nav, "/servicesx/"), "");
        assert_eq!(nav_active(&nav, "/privacy-policy/"), "");
    }
}
