//! Conditional requests, for the static files of `site serve` and its storage API
//! alike: whether a request's `If-None-Match` names the current version.

use axum::http::{header, HeaderMap};

/// Whether `If-None-Match` lists `etag` (or `*`): the client's copy is current.
pub fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',').any(|t| {
                let t = t.trim();
                // A weak validator names the same version for a GET.
                t == etag || t == "*" || t.strip_prefix("W/") == Some(etag)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn matches_a_listed_strong_or_weak_tag_or_a_star() {
        assert!(etag_matches(&with(r#""a""#), r#""a""#));
        assert!(etag_matches(&with(r#""x", "a""#), r#""a""#));
        assert!(etag_matches(&with(r#"W/"a""#), r#""a""#));
        assert!(etag_matches(&with("*"), r#""a""#));
        assert!(!etag_matches(&with(r#""b""#), r#""a""#));
        assert!(!etag_matches(&HeaderMap::new(), r#""a""#));
    }
}
