//! Downloads: a public bucket's objects to anyone, a private bucket's to the
//! service key alone, with the stored type, ETag/304 and ranges, and headers
//! that keep a browser from running an object as a page.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{authorize, path_params, Role};
use crate::conditional::etag_matches;
use crate::cors::cors;
use crate::storage::{Bucket, StorageError, Store};

pub(super) async fn public_object(
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
pub(super) async fn authenticated_object(
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
