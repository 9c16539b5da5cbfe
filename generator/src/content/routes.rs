//! Addresses. A page `content/pages/about.yaml` is written to `about/index.html`
//! and its address is `/about/`, with the trailing slash: that is the one form
//! Cloudflare Pages, Netlify, GitHub Pages and nginx all answer with 200. Each of
//! them redirects `/about` to `/about/` (see docs/deploy.md), so every internal
//! link the site writes uses the slash form.

use std::path::Path;

/// `about.yaml` → `/about/`, `services/cloud.md` → `/services/cloud/`, `index.yaml` → `/`.
pub fn route_for(pages_dir: &Path, path: &Path) -> Result<String, String> {
    let rel = path
        .strip_prefix(pages_dir)
        .unwrap_or(path)
        .with_extension("");
    let mut segments: Vec<String> = Vec::new();
    for part in rel.components() {
        let part = part.as_os_str().to_string_lossy().to_string();
        let valid = !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !valid {
            return Err(format!(
                "`{part}` cannot be part of a web address: name content files and folders with lowercase letters, digits and hyphens"
            ));
        }
        segments.push(part);
    }
    if segments.last().map(String::as_str) == Some("index") {
        segments.pop();
    }
    if segments.is_empty() {
        Ok("/".to_string())
    } else {
        Ok(format!("/{}/", segments.join("/")))
    }
}

/// The form of an internal link that hosts serve without a redirect: a path on
/// this site whose last segment has no extension gets its trailing slash
/// (`/about#team` → `/about/#team`). Files (`/favicon.svg`), other sites,
/// `mailto:`, `tel:` and fragments on the same page are left as they are.
pub fn canonical_href(href: &str) -> String {
    if !href.starts_with('/') || href.starts_with("//") {
        return href.to_string();
    }
    let end = href.find(['?', '#']).unwrap_or(href.len());
    let (path, rest) = href.split_at(end);
    let last = path.rsplit('/').next().unwrap_or("");
    if path.ends_with('/') || last.contains('.') {
        return href.to_string();
    }
    format!("{path}/{rest}")
}

const SCHEMES: [&str; 4] = ["https", "http", "mailto", "tel"];

/// The link rule: a link an editor may write is a relative path, a `#fragment`,
/// or an `https:`, `http:`, `mailto:` or `tel:` URL. Anything else
/// (`javascript:`, `data:`) could run code or mislead, and is refused, saying why.
pub fn check_link(href: &str) -> Result<(), String> {
    if href.is_empty() {
        return Err("the link is empty; leave `href` out to show the label as plain text".into());
    }
    // Browsers drop tabs and line breaks inside URLs: `java\tscript:` runs.
    if href.chars().any(char::is_control) {
        return Err("a link cannot contain tabs or line breaks".into());
    }
    let first = href.find(['/', '?', '#']).unwrap_or(href.len());
    if let Some(colon) = href[..first].find(':') {
        let scheme = &href[..colon];
        if SCHEMES.contains(&scheme) {
            return Ok(());
        }
        let hint = if SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) {
            format!("; write `{}:` in lowercase", scheme.to_ascii_lowercase())
        } else {
            String::new()
        };
        return Err(format!(
            "`{scheme}:` links are not allowed; a link is a path on this site (`/about`), a `#fragment`, or an https:, http:, mailto: or tel: address{hint}"
        ));
    }
    Ok(())
}

/// `https://example.com` + `/about/` → `https://example.com/about/`.
pub fn canonical_url(base_url: &str, route: &str) -> String {
    format!("{}{}", base_url.trim_end_matches('/'), route)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_come_from_file_paths_and_end_in_a_slash() {
        let dir = Path::new("/s/content/pages");
        let route = |p: &str| route_for(dir, &dir.join(p));
        assert_eq!(route("index.yaml").unwrap(), "/");
        assert_eq!(route("about.yaml").unwrap(), "/about/");
        assert_eq!(route("services/cloud.md").unwrap(), "/services/cloud/");
        assert_eq!(route("services/index.md").unwrap(), "/services/");
        assert!(route("Our Team.md").is_err());
    }

    #[test]
    fn internal_links_get_the_form_hosts_serve_without_a_redirect() {
        assert_eq!(canonical_href("/about"), "/about/");
        assert_eq!(canonical_href("/about/"), "/about/");
        assert_eq!(canonical_href("/"), "/");
        assert_eq!(
            canonical_href("/about#leadership-team"),
            "/about/#leadership-team"
        );
        assert_eq!(canonical_href("/search?q=a"), "/search/?q=a");
        assert_eq!(canonical_href("/services/cloud"), "/services/cloud/");
    }

    #[test]
    fn files_other_sites_and_fragments_are_left_alone() {
        for href in [
            "/favicon.svg",
            "/sitemap.xml",
            "/images/map.svg#pin",
            "https://example.com/about",
            "//cdn.example.com/x",
            "mailto:hello@example.com",
            "tel:+914045208800",
            "#faq",
            "relative/path",
        ] {
            assert_eq!(canonical_href(href), href);
        }
    }
}
