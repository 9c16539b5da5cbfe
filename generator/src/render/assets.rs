//! `asset(path)`: the public URL of a bundled entry (`styles/main.css` → its hashed
//! file) or of a file under `public/`; anything else is an error, not a broken link.
//! And `organization_jsonld()`: schema.org data about the company.

use std::path::Path;

use minijinja::{Error, ErrorKind};

use super::text::script_safe_json;
use crate::bundle::Bundle;
use crate::content::SiteConfig;

pub fn asset_url(bundle: &Bundle, public: &Path, path: &str) -> Result<String, Error> {
    if let Some(url) = bundle.entry_url(path) {
        return Ok(url.to_string());
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

/// schema.org data about the company, for search engines, as a JSON-LD script
/// (data, not code: a strict CSP allows it). `base_url` is the address the build
/// publishes to, which the command line or environment may set over `site.yaml`.
pub fn organization_jsonld(site: &SiteConfig, base_url: &str) -> String {
    let json = serde_json::json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": site.name,
        "url": format!("{}/", base_url.trim_end_matches('/')),
        "description": site.description,
        "foundingDate": site.figures.founded,
        "email": site.contact.email,
        "telephone": site.contact.phone,
        "address": { "@type": "PostalAddress", "streetAddress": site.contact.address },
        "sameAs": site.social.iter().map(|s| s.href.clone()).collect::<Vec<_>>(),
    });
    format!(
        r#"<script type="application/ld+json">{}</script>"#,
        script_safe_json(&json.to_string())
    )
}
