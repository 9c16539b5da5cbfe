//! The built site served as its host serves it: `/about/` is `about/index.html`,
//! `/about` redirects to `/about/` (308 on Cloudflare Pages, 301 elsewhere), a
//! missing route gets its language's `404.html` (`/de/404.html` under `/de/`,
//! as each host finds it) with status 404, every response carries the
//! headers the host will send, and text is sent gzip or brotli compressed with
//! ETags and `304 Not Modified`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use crate::conditional::etag_matches;
use crate::content::publishing::Moved;
use crate::content::site::Host;
use crate::output::headers::{self, Rule};
use crate::output::hosts::HostOutput;
use crate::output::search;
use crate::serve::live;

/// Compressed bodies by (ETag, encoding), so each version is compressed once.
type CompressedCache = Mutex<HashMap<(String, Encoding), Arc<Vec<u8>>>>;

pub struct Files {
    pub out: PathBuf,
    /// The host the last good build was made for, and the headers it sends.
    served: RwLock<(Host, Vec<Rule>)>,
    /// The addresses that redirect, by each of their forms: (status, target).
    redirects: RwLock<HashMap<String, (u16, String)>>,
    /// Each language's 404 page (`/404.html`, `/de/404.html`).
    not_found: RwLock<Vec<String>>,
    /// Whether HTML gets the live-reload script.
    pub live: bool,
    compressed: CompressedCache,
    /// The search index, made when a page first asks for it after a build
    /// wrote pages.
    pub search: search::Deferred,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Encoding {
    Brotli,
    Gzip,
}

impl Encoding {
    fn token(self) -> &'static str {
        match self {
            Encoding::Brotli => "br",
            Encoding::Gzip => "gzip",
        }
    }
}

impl Files {
    pub fn new(out: &Path, live: bool) -> Files {
        Files {
            out: out.to_path_buf(),
            served: RwLock::new((Host::default(), Vec::new())),
            redirects: RwLock::new(HashMap::new()),
            not_found: RwLock::new(Vec::new()),
            live,
            compressed: Mutex::new(HashMap::new()),
            search: search::Deferred::default(),
        }
    }

    /// Takes the host, headers, redirects and 404 pages of a new good build.
    /// GitHub Pages has no redirects: its build has a page at each old address
    /// instead.
    pub fn built(&self, host: Host, rules: Vec<Rule>, moved: &[Moved], not_found: &[String]) {
        *self
            .not_found
            .write()
            .unwrap_or_else(PoisonError::into_inner) = not_found.to_vec();
        *self.served.write().unwrap_or_else(PoisonError::into_inner) = (host, rules);
        let redirects = match host {
            Host::GithubPages => HashMap::new(),
            _ => moved
                .iter()
                .flat_map(|m| m.forms().into_iter().map(|f| (f, (m.status, m.to.clone()))))
                .collect(),
        };
        *self
            .redirects
            .write()
            .unwrap_or_else(PoisonError::into_inner) = redirects;
    }
}

/// A URL path as a file path below the output, or `None` if it tries to leave it.
fn decode_path(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(out).ok()?;
    let safe = decoded.starts_with('/')
        && !decoded.contains('\0')
        && !decoded.contains('\\')
        && decoded.split('/').all(|s| s != ".." && s != ".");
    safe.then_some(decoded)
}

/// What the host answers for a path.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    File(PathBuf),
    /// A redirect to the address the host serves (the query is added later).
    Redirect(u16, String),
    NotFound,
}

/// The host's path rules: `/about/` is `about/index.html`; `/about` redirects to
/// `/about/`; `/about/index.html` redirects to `/about/` where the host does so;
/// `/favicon.svg/` redirects to `/favicon.svg`; the host's own files are hidden.
fn resolve(out: &Path, host: Host, path: &str) -> Resolved {
    let rel = path.trim_start_matches('/');
    let visible = |rel: &str| !rel.split('/').any(|s| host.is_config_file(s)) || rel.is_empty();
    if !visible(rel) {
        return Resolved::NotFound;
    }
    if rel.is_empty() || rel.ends_with('/') {
        let index = out.join(rel).join("index.html");
        if index.is_file() {
            return Resolved::File(index);
        }
        let file = rel.trim_end_matches('/');
        if !file.is_empty() && out.join(file).is_file() {
            return Resolved::Redirect(host.folder_redirect(), format!("/{file}"));
        }
        return Resolved::NotFound;
    }
    if let Some(folder) = rel.strip_suffix("index.html") {
        if host.redirects_index_html() && (folder.is_empty() || folder.ends_with('/')) {
            return Resolved::Redirect(308, format!("/{folder}"));
        }
    }
    let file = out.join(rel);
    if file.is_file() {
        return Resolved::File(file);
    }
    if file.join("index.html").is_file() {
        return Resolved::Redirect(host.folder_redirect(), format!("/{rel}/"));
    }
    Resolved::NotFound
}

fn content_type(path: &Path) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let text = mime.type_() == "text"
        || matches!(
            mime.subtype().as_str(),
            "javascript" | "json" | "xml" | "svg"
        );
    if text {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    }
}

fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || ["javascript", "json", "xml", "svg"]
            .iter()
            .any(|t| content_type.contains(t))
}

/// The encoding to send: brotli over gzip, when the client accepts it (q > 0).
fn negotiate(headers: &HeaderMap) -> Option<Encoding> {
    let accept = headers.get(header::ACCEPT_ENCODING)?.to_str().ok()?;
    let accepted = |name: &str| {
        accept.split(',').any(|part| {
            let mut pieces = part.trim().split(';');
            let token = pieces.next().unwrap_or("").trim();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            (token == name || token == "*") && q > 0.0
        })
    };
    if accepted("br") {
        Some(Encoding::Brotli)
    } else if accepted("gzip") {
        Some(Encoding::Gzip)
    } else {
        None
    }
}

fn compress(bytes: &[u8], encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Brotli => {
            let mut out = Vec::with_capacity(bytes.len() / 3);
            {
                let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                let _ = w.write_all(bytes);
            }
            out
        }
        Encoding::Gzip => {
            let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = w.write_all(bytes);
            w.finish().unwrap_or_default()
        }
    }
}

pub async fn serve(
    State(files): State<Arc<Files>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
        )
            .into_response();
    }
    let Some(path) = decode_path(uri.path()) else {
        return (StatusCode::BAD_REQUEST, "Bad request").into_response();
    };
    let under_index = path[1..]
        .strip_prefix(search::FOLDER)
        .is_some_and(|rest| rest.starts_with('/'));
    if under_index {
        let shared = files.clone();
        let made = tokio::task::spawn_blocking(move || shared.search.make())
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        if let Err(why) = made {
            return (StatusCode::INTERNAL_SERVER_ERROR, why).into_response();
        }
    }
    let (host, _) = files
        .served
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    // An old address answers as the host answers it: with its redirect.
    let moved = files
        .redirects
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&path)
        .cloned();
    let resolved = match moved {
        Some((status, to)) => Resolved::Redirect(status, to),
        None => resolve(&files.out, host, &path),
    };
    let (status, file) = match resolved {
        Resolved::File(f) => (StatusCode::OK, f),
        Resolved::Redirect(code, mut location) => {
            if let Some(q) = uri.query() {
                location = format!("{location}?{q}");
            }
            let code = StatusCode::from_u16(code).unwrap_or(StatusCode::MOVED_PERMANENTLY);
            return (code, [(header::LOCATION, location)]).into_response();
        }
        Resolved::NotFound => {
            // The 404 page the host would answer with: the language's own.
            let pages = files
                .not_found
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let page = host.not_found_page(&path, &pages, |page| {
                files.out.join(page.trim_start_matches('/')).is_file()
            });
            (
                StatusCode::NOT_FOUND,
                files.out.join(page.trim_start_matches('/')),
            )
        }
    };
    let mut body = match tokio::fs::read(&file).await {
        Ok(b) => b,
        Err(_) => return (StatusCode::NOT_FOUND, "Not found").into_response(),
    };
    let content_type = content_type(&file);
    // The editor is a page of its own: a reload on each save would lose what
    // is being typed.
    let editor = path.starts_with(crate::editor::PREFIX);
    if files.live && content_type.starts_with("text/html") && !editor {
        body = live::inject(&body);
    }
    let hash = blake3::hash(&body).to_hex();
    let encoding = if compressible(&content_type) && body.len() > 512 {
        negotiate(&headers)
    } else {
        None
    };
    let etag = match encoding {
        Some(e) => format!("\"{}-{}\"", &hash[..20], e.token()),
        None => format!("\"{}\"", &hash[..20]),
    };

    let mut response_headers = HeaderMap::new();
    for (k, v) in headers::for_path(
        &files
            .served
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .1,
        &path,
    ) {
        if let (Ok(k), Ok(v)) = (
            header::HeaderName::try_from(k.as_str()),
            HeaderValue::from_str(v),
        ) {
            response_headers.append(k, v);
        }
    }
    let set = |h: &mut HeaderMap, k: header::HeaderName, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(k, v);
        }
    };
    set(&mut response_headers, header::CONTENT_TYPE, &content_type);
    set(&mut response_headers, header::ETAG, &etag);
    if compressible(&content_type) {
        set(&mut response_headers, header::VARY, "Accept-Encoding");
    }

    let not_modified = status == StatusCode::OK && etag_matches(&headers, &etag);
    if not_modified {
        return (StatusCode::NOT_MODIFIED, response_headers).into_response();
    }

    let payload: Arc<Vec<u8>> = match encoding {
        Some(e) => {
            set(&mut response_headers, header::CONTENT_ENCODING, e.token());
            let key = (etag.clone(), e);
            let cached = files
                .compressed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&key)
                .cloned();
            match cached {
                Some(c) => c,
                None => {
                    let c = Arc::new(tokio::task::block_in_place(|| compress(&body, e)));
                    let mut cache = files
                        .compressed
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    if cache.len() > 500 {
                        cache.clear();
                    }
                    cache.insert(key, c.clone());
                    c
                }
            }
        }
        None => Arc::new(body),
    };
    set(
        &mut response_headers,
        header::CONTENT_LENGTH,
        &payload.len().to_string(),
    );
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(payload.as_ref().clone())
    };
    (status, response_headers, body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_leave_the_output() {
        assert_eq!(decode_path("/about").as_deref(), Some("/about"));
        assert_eq!(decode_path("/a%20b").as_deref(), Some("/a b"));
        assert_eq!(decode_path("/../etc/passwd"), None);
        assert_eq!(decode_path("/%2e%2e/secret"), None);
        assert_eq!(decode_path("/a%5c..%5cb"), None);
        assert_eq!(decode_path("/bad%zz"), None);
    }

    #[test]
    fn folders_are_served_at_their_address_with_the_slash() {
        let out = std::env::temp_dir().join(format!("site-files-test-{}", std::process::id()));
        std::fs::create_dir_all(out.join("about")).unwrap();
        std::fs::write(out.join("index.html"), "home").unwrap();
        std::fs::write(out.join("about/index.html"), "about").unwrap();
        std::fs::write(out.join("favicon.svg"), "<svg/>").unwrap();
        std::fs::write(out.join("_headers"), "").unwrap();
        let cf = Host::CloudflarePages;
        let r = |host: Host, p: &str| resolve(&out, host, p);
        assert_eq!(r(cf, "/"), Resolved::File(out.join("index.html")));
        assert_eq!(
            r(cf, "/about/"),
            Resolved::File(out.join("about/index.html"))
        );
        assert_eq!(r(cf, "/about"), Resolved::Redirect(308, "/about/".into()));
        assert_eq!(
            r(Host::Netlify, "/about"),
            Resolved::Redirect(301, "/about/".into())
        );
        assert_eq!(
            r(cf, "/about/index.html"),
            Resolved::Redirect(308, "/about/".into())
        );
        assert_eq!(
            r(Host::GithubPages, "/about/index.html"),
            Resolved::File(out.join("about/index.html"))
        );
        assert_eq!(
            r(cf, "/favicon.svg"),
            Resolved::File(out.join("favicon.svg"))
        );
        assert_eq!(
            r(cf, "/favicon.svg/"),
            Resolved::Redirect(308, "/favicon.svg".into())
        );
        assert_eq!(r(cf, "/_headers"), Resolved::NotFound);
        assert_eq!(r(cf, "/missing/"), Resolved::NotFound);
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn prefers_brotli_then_gzip() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
            m
        };
        assert_eq!(negotiate(&h("gzip, deflate, br")), Some(Encoding::Brotli));
        assert_eq!(negotiate(&h("gzip")), Some(Encoding::Gzip));
        assert_eq!(negotiate(&h("br;q=0, gzip")), Some(Encoding::Gzip));
        assert_eq!(negotiate(&h("identity")), None);
        assert_eq!(negotiate(&HeaderMap::new()), None);
    }
}
