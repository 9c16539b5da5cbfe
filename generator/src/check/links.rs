//! The findings about a page's links: placeholders and `javascript:`, text
//! that says nothing, new tabs without `noopener noreferrer`, and internal
//! addresses, assets and `#fragments` that do not resolve (or that a host
//! answers with a redirect).

use std::collections::{BTreeMap, HashSet};

use super::html_page::{Link, Page};

/// Link texts that say nothing about where the link goes (Lighthouse's list).
const GENERIC_LINK_TEXT: &[&str] = &[
    "click here",
    "click this",
    "go",
    "here",
    "this",
    "start",
    "right here",
    "more",
    "learn more",
    "read more",
    "continue",
    "more info",
    "more information",
];

pub(super) fn check_link(
    addr: &str,
    link: &Link,
    pages: &BTreeMap<String, Page>,
    files: &HashSet<String>,
    found: &mut impl FnMut(String),
) {
    let href = link.href.trim();
    if href.is_empty() || href == "#" {
        found(format!(
            "placeholder link href=\"{href}\": link somewhere real or show inert text"
        ));
        return;
    }
    if href.to_ascii_lowercase().starts_with("javascript:") {
        found(format!("link to {href}: use a button for actions"));
        return;
    }
    if let Some(text) = &link.text {
        if GENERIC_LINK_TEXT.contains(&text.to_lowercase().as_str()) {
            found(format!(
                "link to {href} says only \"{text}\": say where it goes"
            ));
        }
    }
    if link.new_tab {
        let rel: HashSet<&str> = link.rel.split_whitespace().collect();
        if !(rel.contains("noopener") && rel.contains("noreferrer")) {
            found(format!(
                "link to {href} opens a new tab without rel=\"noopener noreferrer\""
            ));
        }
    }
    if let Some(problem) = resolve(addr, href, pages, files) {
        found(format!("link to {href}: {problem}"));
    }
}

/// Why an internal address does not resolve, or `None` when it does (or is external).
pub(super) fn resolve(
    addr: &str,
    href: &str,
    pages: &BTreeMap<String, Page>,
    files: &HashSet<String>,
) -> Option<String> {
    let external = href.starts_with("//")
        || href.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    if external {
        return None;
    }
    let (before_fragment, fragment) = match href.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (href, None),
    };
    let path = before_fragment.split('?').next().unwrap_or("");
    let target = if path.is_empty() {
        addr.to_string()
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        // Relative to the page's own folder.
        let folder = &addr[..addr.rfind('/').map_or(0, |i| i + 1)];
        without_dot_segments(&format!("{folder}{path}"))
    };
    if let Some(page) = pages.get(&target) {
        return match fragment {
            Some(f) if !f.is_empty() && !page.ids.contains(f) => {
                Some(format!("there is no element with id \"{f}\" on {target}"))
            }
            _ => None,
        };
    }
    // A page's other spellings are answered with a redirect (or a second copy)
    // by the hosts, so each costs the visitor a round trip.
    let page_form = match target.strip_suffix("index.html") {
        Some(folder) if folder.ends_with('/') => folder.to_string(),
        _ => format!("{}/", target.trim_end_matches('/')),
    };
    if page_form != target && pages.contains_key(&page_form) {
        let mut canonical = page_form;
        if let Some(f) = fragment {
            canonical.push('#');
            canonical.push_str(f);
        }
        return Some(format!(
            "hosts answer it with a redirect to {canonical}; link to {canonical}"
        ));
    }
    let file = target.trim_start_matches('/');
    if files.contains(file) {
        None
    } else {
        Some("no such page or file".into())
    }
}

/// `/about/../contact/` → `/contact/`, as a browser resolves it.
pub(super) fn without_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        // A path ending in `.` or `..` names a folder.
        if last && matches!(*segment, "." | "..") {
            out.push("");
        }
    }
    format!("/{}", out.join("/"))
}
