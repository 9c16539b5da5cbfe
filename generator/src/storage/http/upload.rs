//! Uploads: `POST /storage/v1/object/{bucket}/{key}`. The body is either a
//! multipart form (what storage-js sends for a `Blob` or `File`: a
//! `cacheControl` field, then the file) or, as the real server also takes it, the
//! file's bytes themselves (what storage-js sends for an `ArrayBuffer`, a typed
//! array, a stream or a string: the type in `Content-Type`, the cache control in
//! `Cache-Control`, the length in `Content-Length` when known). The real server
//! tells them apart by whether `Content-Type` starts with `multipart/form-data`.
//!
//! Either body is read in a task of its own and bounded (the bucket's limit and a
//! little more; a form's each text field and the fields before its file), then
//! checked in the real server's order by the same code ([`admit`], [`store_file`])
//! and stored whole or not at all.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::header::AsHeaderName;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};

use super::{authorize, path_params, Role};
use crate::cors::cors;
use crate::storage::{content_matches, Bucket, StorageError, Store};

/// What a form may carry besides its file: boundaries, part headers, text fields.
pub(super) const FORM_OVERHEAD: u64 = 64 * 1024;
/// The longest text field (`cacheControl`, `contentType`, `metadata`), and the
/// longest `Cache-Control` header of a raw body.
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
                    Some(Err(_)) => {
                        // Said, not only ended: a raw body's end is its file's end.
                        if let Some(sender) = tx.as_ref() {
                            let _ = sender
                                .send(Err(std::io::Error::other("the body was cut short")))
                                .await;
                        }
                        break;
                    }
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
    let headers = request.headers();
    let declared_length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.parse::<u64>().ok());
    let form = is_form(headers);
    // A form's length counts its fields too: only the body's bound applies before
    // reading. A raw body's length is its file's, held to the bucket's limit below.
    if form && declared_length.is_some_and(|length| length > limit) {
        return Err(StorageError::TooLarge);
    }
    // The real server upserts only with the string `true`.
    let upsert = header_text(headers, "x-upsert").as_deref() == Some("true");
    let (bucket_name, key) = path_params(path)?;
    let role = authorize(store, request.headers())?;
    let bucket = store.bucket(&bucket_name)?.clone();
    let asked = Asked {
        key: &key,
        upsert,
        role,
    };
    let id = if form {
        receive_form(store, &bucket, asked, request).await?
    } else {
        receive_raw(store, &bucket, asked, declared_length, request).await?
    };
    Ok((bucket_name, key, id))
}

/// Whether the body is a form: the real server's test, case and all (any other
/// body, `Multipart/Form-Data` included, is the file itself).
fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"multipart/form-data"))
}

/// A header's text as Node.js hands it to the real server: repeated values joined
/// with `, `, bytes past ASCII not refused.
fn header_text(headers: &HeaderMap, name: impl AsHeaderName) -> Option<String> {
    let values: Vec<String> = headers
        .get_all(name)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// What every upload asks for, whatever its body: a key, whether to upsert, as whom.
struct Asked<'a> {
    key: &'a str,
    upsert: bool,
    role: Role,
}

/// A multipart body: at most [`MAX_FIELDS`] text fields, then the file.
async fn receive_form(
    store: &Store,
    bucket: &Bucket,
    asked: Asked<'_>,
    request: Request,
) -> Result<String, StorageError> {
    let mut multipart = form_fields(request).await?;

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
            asked,
            mime: &essence(&declared),
            cache_control: cache_control.as_deref().unwrap_or("no-cache"),
            declared_size: None,
        };
        return store_file(
            store,
            bucket,
            wanted,
            field.map(|c| c.map_err(multipart_error)),
        )
        .await;
    }
}

/// A form's fields, its body read through [`EndApart`].
async fn form_fields(request: Request) -> Result<Multipart, StorageError> {
    let request = request.map(|body| Body::from_stream(EndApart::new(body.into_data_stream())));
    Multipart::from_request(request, &())
        .await
        .map_err(|e| StorageError::BadRequest(e.body_text()))
}

/// A form's body as the multipart parser (multer 3.1) must be given it: its end
/// on a poll of its own, never in the same poll as its last bytes. While looking
/// for the first boundary, the parser polls the body a second time when the bytes
/// so far do not hold it, and if that poll brings the rest of the body and its
/// end, it answers "incomplete multipart stream" without searching what it
/// brought (`poll_next_field`, its `FindingFirstBoundary` stage; when a release
/// searches again there, this can go). A form whose bytes arrive all at once just after the parser first
/// asked, as [`BoundedBody`]'s task forwards a small form, would be refused so.
/// Told apart, the end comes on a later poll, which searches the bytes first.
struct EndApart<S> {
    body: S,
    /// The last poll returned bytes.
    after_bytes: bool,
    ended: bool,
}

impl<S> EndApart<S> {
    fn new(body: S) -> EndApart<S> {
        EndApart {
            body,
            after_bytes: false,
            ended: false,
        }
    }
}

impl<S: Stream + Unpin> Stream for EndApart<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = &mut *self;
        if !this.ended {
            match this.body.poll_next_unpin(cx) {
                Poll::Ready(Some(item)) => {
                    this.after_bytes = true;
                    return Poll::Ready(Some(item));
                }
                Poll::Ready(None) => this.ended = true,
                Poll::Pending => {
                    this.after_bytes = false;
                    return Poll::Pending;
                }
            }
        }
        if std::mem::take(&mut this.after_bytes) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(None)
    }
}

/// A raw body: the file itself, its type and cache control in the headers, taken
/// as the real server takes them (the whole `Content-Type`, parameters and all,
/// else `application/octet-stream`; the whole `Cache-Control`, else `no-cache`).
async fn receive_raw(
    store: &Store,
    bucket: &Bucket,
    asked: Asked<'_>,
    declared_length: Option<u64>,
    request: Request,
) -> Result<String, StorageError> {
    let headers = request.headers();
    let mime = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "application/octet-stream".into());
    let cache_control = header_text(headers, header::CACHE_CONTROL)
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "no-cache".into());
    // The real server's Node.js takes 16 KiB of headers in all; stored, this one
    // is sent with every download.
    if cache_control.len() > FIELD_LIMIT {
        return Err(StorageError::BadRequest(format!(
            "the Cache-Control header is longer than {FIELD_LIMIT} bytes"
        )));
    }
    let wanted = Wanted {
        asked,
        mime: &mime,
        cache_control: &cache_control,
        declared_size: declared_length,
    };
    let body = request.into_body().into_data_stream();
    store_file(store, bucket, wanted, body.map(|c| c.map_err(body_error))).await
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

/// A raw body that could not be read whole (over the bound, which `upload`
/// answers as too large, or cut short).
fn body_error(e: axum::Error) -> StorageError {
    StorageError::BadRequest(format!("the body could not be read: {e}"))
}

/// `image/png; charset=utf-8` → `image/png`: the real server stores the bare type.
fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// What an upload asks for, its body read this far.
struct Wanted<'a> {
    asked: Asked<'a>,
    mime: &'a str,
    /// As stored and sent with each download.
    cache_control: &'a str,
    /// The file's length when known before reading it: a raw body's `Content-Length`.
    declared_size: Option<u64>,
}

/// The refusal of the database's row-level security, word for word.
fn refused_by_policy() -> StorageError {
    StorageError::AccessDenied("new row violates row-level security policy".into())
}

/// The checks made before the file is read, in the real server's order: type,
/// declared size, key, policy, duplicate.
fn admit(store: &Store, bucket: &Bucket, wanted: &Wanted<'_>) -> Result<(), StorageError> {
    let Asked { key, upsert, role } = wanted.asked;
    if !bucket.allows(wanted.mime) {
        return Err(StorageError::InvalidMimeType(wanted.mime.to_string()));
    }
    if wanted
        .declared_size
        .is_some_and(|size| size > bucket.size_limit)
    {
        return Err(StorageError::TooLarge);
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
    Ok(())
}

/// Admits the upload, then streams `file` to disk: its leading bytes must be its
/// type's, its size within the bucket's limit, and a Word document must be one.
async fn store_file(
    store: &Store,
    bucket: &Bucket,
    wanted: Wanted<'_>,
    file: impl Stream<Item = Result<Bytes, StorageError>>,
) -> Result<String, StorageError> {
    admit(store, bucket, &wanted)?;
    let Wanted {
        asked,
        mime,
        cache_control,
        ..
    } = wanted;
    let mut file = std::pin::pin!(file);
    let mut upload = store.begin(bucket, asked.key)?;
    let mut head: Vec<u8> = Vec::with_capacity(16);
    while let Some(chunk) = file.next().await {
        let chunk = chunk?;
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

    /// The parser polls once and finds nothing, then the whole form and its end
    /// are there at its second poll: as a small form comes from `BoundedBody`'s
    /// task when that task is a moment late.
    #[tokio::test]
    async fn a_form_that_arrives_whole_after_the_first_poll_is_read() {
        const FORM: &[u8] = b"--b\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n\
                              3600\r\n--b--\r\n";
        let mut polls = 0;
        let body = futures_util::stream::poll_fn(move |cx| {
            polls += 1;
            match polls {
                1 => {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
                2 => Poll::Ready(Some(Ok::<_, std::io::Error>(Bytes::from_static(FORM)))),
                _ => Poll::Ready(None),
            }
        });
        let request = Request::post("/")
            .header(header::CONTENT_TYPE, "multipart/form-data; boundary=b")
            .body(Body::from_stream(body))
            .unwrap();
        let mut form = form_fields(request).await.unwrap();
        let field = form.next_field().await.unwrap().unwrap();
        assert_eq!(field.name(), Some("cacheControl"));
        assert_eq!(field.text().await.unwrap(), "3600");
        assert!(form.next_field().await.unwrap().is_none());
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
