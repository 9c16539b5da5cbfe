//! Only the editor may use the routes `site serve` gives it: a request must
//! carry `X-Site-Editor` (which a page of another origin cannot send without a
//! preflight this server never grants), name a loopback host (no DNS
//! rebinding), and come from this origin when it says where it comes from.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// The header the editor sends with every request.
pub const EDITOR_HEADER: &str = "x-site-editor";

/// Every route answers the editor alone.
pub async fn editor_only(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match allowed(request.headers()) {
        Ok(()) => next.run(request).await,
        Err(why) => (StatusCode::FORBIDDEN, why).into_response(),
    }
}

/// Refuses a request that is not the editor's, saying why.
fn allowed(headers: &HeaderMap) -> Result<(), &'static str> {
    let refuse = |why: &'static str| Err(why);
    if !headers.contains_key(EDITOR_HEADER) {
        return refuse("only the content editor at /admin/ may use this");
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    if !["127.0.0.1", "localhost", "[::1]"].contains(&name) {
        return refuse("the site's folder is served to this machine only");
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        if origin != format!("http://{host}") {
            return refuse("a page of another origin may not change the site");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_without_the_editors_header_or_from_elsewhere_is_refused() {
        let with = |pairs: &[(&'static str, &str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, v.parse().unwrap());
            }
            allowed(&h).is_ok()
        };
        assert!(with(&[("host", "127.0.0.1:8080"), (EDITOR_HEADER, "1")]));
        assert!(with(&[
            ("host", "localhost:8080"),
            (EDITOR_HEADER, "1"),
            ("origin", "http://localhost:8080")
        ]));
        assert!(!with(&[("host", "127.0.0.1:8080")]));
        assert!(!with(&[
            ("host", "evil.example:8080"),
            (EDITOR_HEADER, "1")
        ]));
        assert!(!with(&[
            ("host", "127.0.0.1:8080"),
            (EDITOR_HEADER, "1"),
            ("origin", "https://evil.example")
        ]));
    }
}
