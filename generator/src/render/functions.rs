//! Template functions and filters other than islands: asset URLs from the esbuild
//! metafile, the active navigation link, Markdown.

use std::path::Path;
use std::sync::Arc;

use minijinja::{Environment, Error, ErrorKind, Value};

use crate::bundle::Bundle;
use crate::content::Content;
use crate::markdown;

pub fn register(
    env: &mut Environment<'static>,
    root: &Path,
    bundle: &Arc<Bundle>,
    content: &Content,
) {
    let public = root.join("public");
    let bundle = bundle.clone();
    env.add_function("asset", move |path: &str| asset_url(&bundle, &public, path));

    let nav: Vec<String> = content.config.nav.iter().map(|l| l.href.clone()).collect();
    env.add_function("nav_active", move |route: &str| nav_active(&nav, route));

    env.add_filter("markdown", |text: &str| {
        Value::from_safe_string(markdown::render(text))
    });
    env.add_filter("markdown_inline", |text: &str| {
        Value::from_safe_string(markdown::render_inline(text))
    });
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
/// that is a parent of it (`/services/cloud` → `/services`). Home matches only `/`.
pub fn nav_active(nav: &[String], route: &str) -> String {
    nav.iter()
        .filter(|href| {
            let href = href.as_str();
            route == href
                || (href != "/" && route.starts_with(href) && route[href.len()..].starts_with('/'))
        })
        .max_by_key(|href| href.len())
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_active_navigation_link() {
        let nav: Vec<String> = ["/", "/about", "/services", "/contact"]
            .map(String::from)
            .to_vec();
        assert_eq!(nav_active(&nav, "/"), "/");
        assert_eq!(nav_active(&nav, "/services"), "/services");
        assert_eq!(nav_active(&nav, "/services/cloud"), "/services");
        assert_eq!(nav_active(&nav, "/servicesx"), "");
        assert_eq!(nav_active(&nav, "/privacy-policy"), "");
    }
}
