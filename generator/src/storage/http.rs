//! The storage API over HTTP, as `@supabase/storage-js` speaks it (see
//! `shared/storage-protocol.md`): `POST /storage/v1/object/{bucket}/{key}` with a
//! multipart body, and `GET /storage/v1/object/public/{bucket}/{key}`.
//!
//! Like the real server, every 4xx error is sent with HTTP 400 and the real status
//! as a string in the JSON body (`{"statusCode","error","message","code"}`), and the
//! checks run in its order: authorization, bucket, type, key, duplicate, size.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::{content_matches, Bucket, StorageError, Store};
use crate::conditional::etag_matches;

/// The largest request body read at all; the bucket's own limit is enforced while
/// streaming, and what follows it is read and dropped so the client gets the reply.
const MAX_BODY: usize = 64 * 1024 * 1024;

pub fn router(store: Arc<Store>) -> Router {
    Router::new()
        .route(
            "/storage/v1/object/public/{bucket}/{*key}",
            get(public_object).options(preflight),
        )
        .route(
            "/storage/v1/object/{bucket}/{*key}",
            post(upload).options(preflight),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(store)
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
            TooLarge => ("413", "Payload too large", "EntityTooLarge"),
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
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET,HEAD,POST,PUT,OPTIONS"),
    );
    if let Some(requested) = headers.get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("3600"),
    );
    cors(response)
}

fn cors(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
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
    match receive(&store, path, request).await {
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
        Err(e) => e.into_response(),
    }
}

async fn receive(
    store: &Store,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
) -> Result<(String, String, String), StorageError> {
    if let Some(length) = request.headers().get(header::CONTENT_LENGTH) {
        let length: u64 = length
            .to_str()
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if length > MAX_BODY as u64 {
            return Err(StorageError::TooLarge);
        }
    }
    // The real server upserts only with the string `true`.
    let upsert = request
        .headers()
        .get("x-upsert")
        .is_some_and(|v| v.as_bytes() == b"true");
    let checked = path_params(path).and_then(|(bucket_name, key)| {
        authorize(store, request.headers())?;
        let bucket = store.bucket(&bucket_name)?.clone();
        Ok((bucket_name, key, bucket))
    });
    let (bucket_name, key, bucket) = match checked {
        Ok(c) => c,
        Err(e) => {
            drain(request.into_body()).await;
            return Err(e);
        }
    };
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| StorageError::BadRequest(e.body_text()))?;

    let mut cache_control: Option<String> = None;
    let mut content_type_field: Option<String> = None;
    let result = loop {
        let field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break Err(StorageError::NoContent),
            Err(e) => break Err(multipart_error(e)),
        };
        if field.file_name().is_none() {
            let name = field.name().unwrap_or("").to_string();
            let value = match field.text().await {
                Ok(v) => v,
                Err(e) => break Err(multipart_error(e)),
            };
            match name.as_str() {
                "cacheControl" => cache_control = Some(value),
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
        };
        break store_file(store, &bucket, wanted, field).await;
    };
    // Read what is left so the client receives the reply instead of a reset.
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(_)) = field.chunk().await {}
    }
    result.map(|id| (bucket_name, key, id))
}

/// Reads a body to its end, dropping it: a reply sent while the client is still
/// sending would reach it as a connection reset instead of the error.
async fn drain(body: Body) {
    use futures_util::StreamExt;
    let mut stream = body.into_data_stream();
    while let Some(Ok(_)) = stream.next().await {}
}

fn authorize(store: &Store, headers: &HeaderMap) -> Result<(), StorageError> {
    let auth = headers
        .get(header::AUTHORIZATION)
        .ok_or(StorageError::NoAuthorization)?
        .to_str()
        .unwrap_or("");
    // Header values lose trailing spaces on the way, so an empty key arrives as `Bearer`.
    let token = auth.strip_prefix("Bearer").unwrap_or(auth).trim();
    if token == store.anon_key {
        Ok(())
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
    } = wanted;
    if !bucket.allows(mime) {
        return Err(StorageError::InvalidMimeType(mime.to_string()));
    }
    super::validate_key(key)?;
    // The production policy lets the public insert new objects under its folder
    // and nothing else; an upsert needs UPDATE, which the public does not have.
    if upsert || !bucket.permits_insert(key) {
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
    let cache_control = match cache_control {
        Some(seconds) => format!("max-age={seconds}"),
        None => "no-cache".into(),
    };
    let meta = tokio::task::block_in_place(|| upload.commit(mime, &cache_control))?;
    Ok(meta.id)
}

async fn public_object(
    State(store): State<Arc<Store>>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    match read_public(&store, path, &method, &headers).await {
        Ok(r) => cors(r),
        Err(e) => e.into_response(),
    }
}

async fn read_public(
    store: &Store,
    path: Result<Path<(String, String)>, PathRejection>,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Response, StorageError> {
    let (bucket_name, key) = path_params(path)?;
    let bucket = store.bucket(&bucket_name)?;
    if !bucket.public {
        return Err(StorageError::NoSuchBucket);
    }
    let (meta, data) = store.get(bucket, &key)?;
    let content_type = if meta.content_type.starts_with("text/html") {
        "text/plain".to_string()
    } else {
        meta.content_type.clone()
    };
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(meta.created),
    );
    let mut builder = Response::builder()
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, &meta.cache_control)
        .header(header::ETAG, &meta.etag)
        .header(header::LAST_MODIFIED, last_modified)
        .header(header::ACCEPT_RANGES, "bytes")
        .header("X-Robots-Tag", "none");

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
    fn ranges_are_read_like_http_says() {
        assert_eq!(parse_range("bytes=0-9", 100), Some((0, 9)));
        assert_eq!(parse_range("bytes=90-", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=-10", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=50-500", 100), Some((50, 99)));
        assert_eq!(parse_range("bytes=200-300", 100), None);
        assert_eq!(parse_range("bytes=0-1,5-6", 100), None);
    }
}
