//! Uploads: `POST /storage/v1/object/{bucket}/{key}` with a multipart body,
//! read in a task of its own and bounded (the bucket's limit and a little more;
//! each text field; the fields before the file), then checked in the real
//! server's order and stored whole or not at all.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::{authorize, path_params, Role};
use crate::cors::cors;
use crate::storage::{content_matches, Bucket, StorageError, Store};

/// What a form may carry besides its file: boundaries, part headers, text fields.
pub(super) const FORM_OVERHEAD: u64 = 64 * 1024;
/// The longest text field (`cacheControl`, `contentType`, `metadata`).
pub const FIELD_LIMIT: usize = 16 * 1024;
/// The real server reads at most this many fields before the file.
const MAX_FIELDS: usize = 10;
/// How long a body is still read, and dropped, after the answer was decided: a
/// client that is still sending receives the answer instead of a reset.
const LINGER: Duration = Duration::from_secs(2);

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

pub(super) async fn upload(
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
    crate::storage::validate_key(key)?;
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
}
