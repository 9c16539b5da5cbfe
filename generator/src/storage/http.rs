//! The storage API over HTTP, as `@supabase/storage-js` speaks it (see
//! `shared/storage-protocol.md`): `POST /storage/v1/object/{bucket}/{key}` with a
//! multipart body, `GET /storage/v1/object/public/{bucket}/{key}` for a public
//! bucket, and `GET /storage/v1/object/authenticated/{bucket}/{key}` (or without
//! `authenticated/`), which only the service key may read: the public has no
//! SELECT policy, so to it every object there is not found.
//!
//! Like the real server, every 4xx error is sent with HTTP 400 and the real status
//! as a string in the JSON body (`{"statusCode","error","message","code"}`), and the
//! checks run in its order: authorization, bucket, type, key, duplicate, size.
//!
//! Nothing a client sends is held whole: the body is read in its own task and at
//! most the bucket's size limit and a little more is handed to the upload; each text
//! field is bounded; objects are served so a browser never runs them as a page.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures_util::StreamExt;

use super::{content_matches, Bucket, StorageError, Store};
use crate::conditional::etag_matches;
use crate::cors::cors;

/// What a form may carry besides its file: boundaries, part headers, text fields.
const FORM_OVERHEAD: u64 = 64 * 1024;
/// The longest text field (`cacheControl`, `contentType`, `metadata`).
pub const FIELD_LIMIT: usize = 16 * 1024;
/// The real server reads at most this many fields before the file.
const MAX_FIELDS: usize = 10;
/// How long a body is still read, and dropped, after the answer was decided: a
/// client that is still sending receives the answer instead of a reset.
const LINGER: Duration = Duration::from_secs(2);

pub fn router(store: Arc<Store>) -> Router {
    Router::new()
        .route(
            "/storage/v1/object/public/{bucket}/{*key}",
            get(public_object).options(preflight),
        )
        .route(
            "/storage/v1/object/authenticated/{bucket}/{*key}",
            get(authenticated_object).options(preflight),
        )
        .route(
            "/storage/v1/object/{bucket}/{*key}",
            post(upload).get(authenticated_object).options(preflight),
        )
        // Bounded by `BoundedBody` instead, which also lets the client hear the 413.
        .layer(DefaultBodyLimit::disable())
        .with_state(store)
}

/// The largest body any bucket of `store` can need.
fn body_limit(store: &Store) -> u64 {
    store
        .buckets()
        .map(|b| b.size_limit)
        .max()
        .unwrap_or(0)
        .saturating_add(FORM_OVERHEAD)
}

/// A request body read in a task of its own: up to `limit` bytes go to the
/// upload; past the limit, or once the upload stops reading, the rest is read and
/// dropped for at most [`LINGER`], then the connection is closed.
struct BoundedBody {
    body: Body,
    over_limit: Arc<AtomicBool>,
    complete: Arc<AtomicBool>,
}

impl BoundedBody {
    fn spawn(body: Body, limit: u64) -> BoundedBody {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(4);
        let over_limit = Arc::new(AtomicBool::new(false));
        let complete = Arc::new(AtomicBool::new(false));
        let (over, done) = (over_limit.clone(), complete.clone());
        tokio::spawn(async move {
            let mut stream = body.into_data_stream();
            let mut received: u64 = 0;
            let mut tx = Some(tx);
            let mut linger_until = None;
            loop {
                let next = match linger_until {
                    None => stream.next().await,
                    Some(until) => match tokio::time::timeout_at(until, stream.next()).await {
                        Ok(next) => next,
                        Err(_) => break,
                    },
                };
                let chunk = match next {
                    None => {
                        done.store(true, Ordering::Relaxed);
                        break;
                    }
                    Some(Err(_)) => break,
                    Some(Ok(chunk)) => chunk,
                };
                received = received.saturating_add(chunk.len() as u64);
                let Some(sender) = tx.as_ref() else {
                    continue;
                };
                let delivered = if received > limit {
                    over.store(true, Ordering::Relaxed);
                    let _ = sender
                        .send(Err(std::io::Error::other("the body is over the limit")))
                        .await;
                    false
                } else {
                    sender.send(Ok(chunk)).await.is_ok()
                };
                if !delivered {
                    tx = None;
                    linger_until = Some(tokio::time::Instant::now() + LINGER);
                }
            }
        });
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
        BoundedBody {
            body: Body::from_stream(stream),
            over_limit,
            complete,
        }
    }
}

impl StorageError {
    fn parts(&self) -> (&'static str, &'static str, &'static str) {
        use StorageError::*;
        match self {
            NoAuthorization => ("400", "Error", "InvalidRequest"),
            AccessDenied(_) => ("403", "Unauthorized", "AccessDenied"),
            NoSuchBucket => ("404", "Bucket not found", "NoSuchBucket"),
            NoSuchKey => ("404", "not_found", "NoSuchKey"),
            InvalidKey(_) => ("400", "InvalidKey", "InvalidKey"),
            InvalidMimeType(_) | ContentMismatch(_) => {
                ("415", "invalid_mime_type", "InvalidMimeType")
            }
            Duplicate => ("409", "Duplicate", "KeyAlreadyExists"),
            TooLarge | FieldTooLarge(_) => ("413", "Payload too large", "EntityTooLarge"),
            NoContent | BadRequest(_) => ("400", "InvalidRequest", "InvalidRequest"),
            Internal(_) => ("500", "internal", "InternalError"),
        }
    }
}

impl IntoResponse for StorageError {
    fn into_response(self) -> Response {
        let (status_code, error, code) = self.parts();
        if let StorageError::Internal(detail) = &self {
            eprintln!("storage: internal error: {detail}");
        }
        let http = if status_code == "500" {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::BAD_REQUEST
        };
        // Field order is the server's: statusCode, error, message, code.
        let body = format!(
            r#"{{"statusCode":{},"error":{},"message":{},"code":{}}}"#,
            json(status_code),
            json(error),
            json(&self.to_string()),
            json(code)
        );
        let mut response = (http, body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        cors(response)
    }
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Cross-origin uploads (a site on a CDN using `site serve`'s storage) send a
/// preflight; answer it as the gateway in front of the real server does.
async fn preflight(headers: HeaderMap) -> Response {
    crate::cors::preflight(&headers, "GET,HEAD,POST,PUT,OPTIONS")
}

fn path_params(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), StorageError> {
    path.map(|Path(p)| p)
        .map_err(|e| StorageError::BadRequest(format!("the URL is not valid: {}", e.body_text())))
}

async fn upload(
    State(store): State<Arc<Store>>,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let limit = body_limit(&store);
    let bounded = BoundedBody::spawn(body, limit);
    let (over_limit, complete) = (bounded.over_limit.clone(), bounded.complete.clone());
    let request = Request::from_parts(parts, bounded.body);
    let mut response = match receive(&store, path, request, limit).await {
        Ok((bucket, key, id)) => {
            let body =
                serde_json::json!({ "Id": id, "Key": format!("{bucket}/{key}") }).to_string();
            let mut response = (StatusCode::OK, body).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json; charset=utf-8"),
            );
            cors(response)
        }
        Err(_) if over_limit.load(Ordering::Relaxed) => StorageError::TooLarge.into_response(),
        Err(e) => e.into_response(),
    };
    // The rest of the body is dropped, so the connection cannot carry another request.
    if !complete.load(Ordering::Relaxed) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

async fn receive(
    store: &Store,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
    limit: u64,
) -> Result<(String, String, String), StorageError> {
    let declared_length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.parse::<u64>().ok());
    if declared_length.is_some_and(|length| length > limit) {
        return Err(StorageError::TooLarge);
    }
    // The real server upserts only with the string `true`.
    let upsert = request
        .headers()
        .get("x-upsert")
        .is_some_and(|v| v.as_bytes() == b"true");
    let (bucket_name, key) = path_params(path)?;
    let role = authorize(store, request.headers())?;
    let bucket = store.bucket(&bucket_name)?.clone();
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| StorageError::BadRequest(e.body_text()))?;

    let mut cache_control: Option<String> = None;
    let mut content_type_field: Option<String> = None;
    let mut fields = 0;
    loop {
        let mut field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => return Err(StorageError::NoContent),
            Err(e) => return Err(multipart_error(e)),
        };
        if field.file_name().is_none() {
            fields += 1;
            if fields > MAX_FIELDS {
                return Err(StorageError::BadRequest(format!(
                    "a form has at most {MAX_FIELDS} fields before its file"
                )));
            }
            let name = field.name().unwrap_or("").to_string();
            let value = bounded_text(&mut field, &name).await?;
            match name.as_str() {
                "cacheControl" => cache_control = Some(max_age(&value)?),
                "contentType" => content_type_field = Some(value),
                _ => {}
            }
            continue;
        }
        let declared = content_type_field
            .clone()
            .or_else(|| field.content_type().map(str::to_string))
            .unwrap_or_else(|| "application/octet-stream".into());
        let wanted = Wanted {
            key: &key,
            mime: &essence(&declared),
            cache_control: cache_control.as_deref(),
            upsert,
            role,
        };
        let id = store_file(store, &bucket, wanted, field).await?;
        return Ok((bucket_name, key, id));
    }
}

/// A text field's value, refused past [`FIELD_LIMIT`] bytes.
async fn bounded_text(
    field: &mut axum::extract::multipart::Field<'_>,
    name: &str,
) -> Result<String, StorageError> {
    let mut value = Vec::new();
    loop {
        match field.chunk().await {
            Ok(Some(chunk)) => {
                if value.len() + chunk.len() > FIELD_LIMIT {
                    return Err(StorageError::FieldTooLarge(name.to_string()));
                }
                value.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return Err(multipart_error(e)),
        }
    }
    String::from_utf8(value)
        .map_err(|_| StorageError::BadRequest(format!("the form field `{name}` is not UTF-8 text")))
}

/// `3600` → `max-age=3600`. Anything but a number of seconds is refused: the value
/// becomes a response header of every later download.
fn max_age(seconds: &str) -> Result<String, StorageError> {
    let seconds = seconds.trim();
    if !seconds.is_empty() && seconds.len() <= 10 && seconds.bytes().all(|b| b.is_ascii_digit()) {
        Ok(format!("max-age={seconds}"))
    } else {
        Err(StorageError::BadRequest(format!(
            "cacheControl must be a number of seconds, such as 3600, not {:?}",
            seconds.chars().take(40).collect::<String>()
        )))
    }
}

/// Who a request is: the public (the anon key), or the project's service role,
/// which row-level security does not bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Anon,
    Service,
}

fn authorize(store: &Store, headers: &HeaderMap) -> Result<Role, StorageError> {
    let auth = headers
        .get(header::AUTHORIZATION)
        .ok_or(StorageError::NoAuthorization)?
        .to_str()
        .unwrap_or("");
    // Exactly `Bearer <key>`. Header values lose trailing spaces on the way, so an
    // empty key arrives as `Bearer`.
    let is = |key: &str| {
        let expected = format!("Bearer {key}");
        auth == expected || auth == expected.trim_end()
    };
    if !store.service_key.is_empty() && is(&store.service_key) {
        Ok(Role::Service)
    } else if is(&store.anon_key) {
        Ok(Role::Anon)
    } else {
        Err(StorageError::AccessDenied("Invalid Compact JWS".into()))
    }
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> StorageError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        StorageError::TooLarge
    } else {
        StorageError::BadRequest(e.body_text())
    }
}

/// `image/png; charset=utf-8` → `image/png`: the real server stores the bare type.
fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// What an upload asks for.
struct Wanted<'a> {
    key: &'a str,
    mime: &'a str,
    cache_control: Option<&'a str>,
    upsert: bool,
    role: Role,
}

/// The refusal of the database's row-level security, word for word.
fn refused_by_policy() -> StorageError {
    StorageError::AccessDenied("new row violates row-level security policy".into())
}

async fn store_file(
    store: &Store,
    bucket: &Bucket,
    wanted: Wanted<'_>,
    mut field: axum::extract::multipart::Field<'_>,
) -> Result<String, StorageError> {
    let Wanted {
        key,
        mime,
        cache_control,
        upsert,
        role,
    } = wanted;
    if !bucket.allows(mime) {
        return Err(StorageError::InvalidMimeType(mime.to_string()));
    }
    super::validate_key(key)?;
    // The production policy lets the public insert new objects under its folder
    // and nothing else; an upsert needs UPDATE, which the public does not have.
    // (Here nothing is ever overwritten, the service role's uploads included.)
    if role == Role::Anon && (upsert || !bucket.permits_insert(key, &store.takes_applications)) {
        return Err(refused_by_policy());
    }
    if store.exists(bucket, key)? {
        return Err(StorageError::Duplicate);
    }
    let mut upload = store.begin(bucket, key)?;
    let mut head: Vec<u8> = Vec::with_capacity(16);
    loop {
        let chunk = match field.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => return Err(multipart_error(e)),
        };
        if head.len() < 16 {
            head.extend(chunk.iter().take(16 - head.len()));
            if head.len() >= 8 && !content_matches(mime, &head) {
                return Err(StorageError::ContentMismatch(mime.to_string()));
            }
        }
        if upload.size() + chunk.len() as u64 > bucket.size_limit {
            return Err(StorageError::TooLarge);
        }
        upload.write(&chunk)?;
    }
    if !content_matches(mime, &head) {
        return Err(StorageError::ContentMismatch(mime.to_string()));
    }
    let cache_control = cache_control.unwrap_or("no-cache");
    let meta = tokio::task::block_in_place(|| {
        // A Word document is a ZIP of particular parts, known only once whole.
        if !upload.is_whole(mime)? {
            return Err(StorageError::ContentMismatch(mime.to_string()));
        }
        upload.commit(mime, cache_control)
    })?;
    Ok(meta.id)
}

async fn public_object(
    State(store): State<Arc<Store>>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let read = async {
        let (bucket_name, key) = path_params(path)?;
        let bucket = store.bucket(&bucket_name)?;
        if !bucket.public {
            return Err(StorageError::NoSuchBucket);
        }
        read_object(&store, bucket, &key, &method, &headers).await
    };
    match read.await {
        Ok(r) => cors(r),
        Err(e) => e.into_response(),
    }
}

/// An object read with a key: the service role reads any; the public, with no
/// SELECT policy on `storage.objects`, finds none.
async fn authenticated_object(
    State(store): State<Arc<Store>>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let read = async {
        let (bucket_name, key) = path_params(path)?;
        let role = authorize(&store, &headers)?;
        let bucket = store.bucket(&bucket_name)?;
        if role == Role::Anon {
            return Err(StorageError::NoSuchKey);
        }
        read_object(&store, bucket, &key, &method, &headers).await
    };
    match read.await {
        Ok(r) => cors(r),
        Err(e) => e.into_response(),
    }
}

async fn read_object(
    store: &Store,
    bucket: &Bucket,
    key: &str,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Response, StorageError> {
    let key = key.to_string();
    let (meta, data) = store.get(bucket, &key)?;
    let content_type = if meta.content_type.starts_with("text/html") {
        "text/plain".to_string()
    } else {
        meta.content_type.clone()
    };
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(meta.created),
    );
    // Stored values are checked on upload; older objects may hold anything, and
    // an unusable value must not make the object unreadable.
    let value = |text: &str, otherwise: &'static str| {
        HeaderValue::from_str(text).unwrap_or(HeaderValue::from_static(otherwise))
    };
    let mut builder = Response::builder()
        .header(
            header::CONTENT_TYPE,
            value(&content_type, "application/octet-stream"),
        )
        .header(
            header::CACHE_CONTROL,
            value(&meta.cache_control, "no-cache"),
        )
        .header(header::ETAG, value(&meta.etag, "\"\""))
        .header(header::LAST_MODIFIED, last_modified)
        .header(header::ACCEPT_RANGES, "bytes")
        .header("X-Robots-Tag", "none")
        // Whatever the bytes hold (a picture with a page behind it), a browser
        // takes them as the stored type and never runs them.
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; sandbox",
        )
        .header(
            header::CONTENT_DISPOSITION,
            content_disposition(&content_type, &key),
        );

    let not_modified = etag_matches(headers, &meta.etag);
    if not_modified {
        return builder
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .map_err(|e| StorageError::Internal(e.to_string()));
    }

    let bytes = tokio::fs::read(&data)
        .await
        .map_err(|e| StorageError::Internal(e.to_string()))?;
    let total = bytes.len() as u64;
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|r| parse_range(r, total));
    let (status, body) = match range {
        Some((start, end)) => {
            builder = builder.header(
                header::CONTENT_RANGE,
                format!("bytes {start}-{end}/{total}"),
            );
            (
                StatusCode::PARTIAL_CONTENT,
                bytes[start as usize..=end as usize].to_vec(),
            )
        }
        None => (StatusCode::OK, bytes),
    };
    let length = body.len();
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(body)
    };
    builder
        .status(status)
        .header(header::CONTENT_LENGTH, length)
        .body(body)
        .map_err(|e| StorageError::Internal(e.to_string()))
}

/// Pictures are shown in place, anything else is a download; the file name is
/// the key's last segment in characters that need no quoting or escaping.
fn content_disposition(content_type: &str, key: &str) -> String {
    const SHOWN: [&str; 5] = [
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/avif",
    ];
    let kind = if SHOWN.contains(&content_type) {
        "inline"
    } else {
        "attachment"
    };
    let name: String = key
        .rsplit('/')
        .next()
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_start_matches('.');
    if name.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}; filename=\"{name}\"")
    }
}

/// One `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `total` bytes.
fn parse_range(value: &str, total: u64) -> Option<(u64, u64)> {
    let spec = value.strip_prefix("bytes=")?;
    if spec.contains(',') || total == 0 {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (start, end) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (total.saturating_sub(n), total - 1)
        }
        (a, "") => (a.parse().ok()?, total - 1),
        (a, b) => (a.parse().ok()?, b.parse::<u64>().ok()?.min(total - 1)),
    };
    (start <= end && start < total).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_are_stored_without_their_parameters() {
        assert_eq!(essence("image/png;charset=utf-8"), "image/png");
        assert_eq!(essence(" Image/PNG ; q=1"), "image/png");
        assert_eq!(essence("image/gif"), "image/gif");
    }

    #[test]
    fn cache_control_is_a_number_of_seconds() {
        assert_eq!(max_age("3600"), Ok("max-age=3600".into()));
        assert_eq!(max_age(" 60 "), Ok("max-age=60".into()));
        for bad in [
            "",
            "3600\r\nSet-Cookie: a=b",
            "-1",
            "1e3",
            "max-age=3600",
            "99999999999",
        ] {
            assert!(
                matches!(max_age(bad), Err(StorageError::BadRequest(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn downloads_are_named_safely_and_only_pictures_shown_in_place() {
        assert_eq!(
            content_disposition("image/png", "public/1700000000000_photo.png"),
            r#"inline; filename="1700000000000_photo.png""#
        );
        assert_eq!(
            content_disposition("image/png", "public/a\"; b=c'(1).png"),
            r#"inline; filename="a___b_c__1_.png""#
        );
        assert_eq!(
            content_disposition("text/plain", "public/notes.txt"),
            r#"attachment; filename="notes.txt""#
        );
        assert_eq!(content_disposition("image/gif", "public/..."), "inline");
    }

    #[test]
    fn ranges_are_read_like_http_says() {
        assert_eq!(parse_range("bytes=0-9", 100), Some((0, 9)));
        assert_eq!(parse_range("bytes=90-", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=-10", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=50-500", 100), Some((50, 99)));
        assert_eq!(parse_range("bytes=200-300", 100), None);
        assert_eq!(parse_range("bytes=0-1,5-6", 100), None);
    }
}
