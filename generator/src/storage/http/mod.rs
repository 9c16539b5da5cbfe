//! The storage API over HTTP, as `@supabase/storage-js` speaks it (see
//! `shared/storage-protocol.md`): `POST /storage/v1/object/{bucket}/{key}` with a
//! multipart body or the file's bytes as the whole body,
//! `GET /storage/v1/object/public/{bucket}/{key}` for a public
//! bucket, and `GET /storage/v1/object/authenticated/{bucket}/{key}` (or without
//! `authenticated/`), which only the service key may read: the public has no
//! SELECT policy, so to it every object there is not found.
//!
//! Like the real server, every 4xx error is sent with HTTP 400 and the real status
//! as a string in the JSON body (`{"statusCode","error","message","code"}`), and the
//! checks run in its order: authorization, bucket, type, (a raw body's declared
//! length), key, policy, duplicate, size.
//!
//! Nothing a client sends is held whole: the body is read in its own task and at
//! most the bucket's size limit and a little more is handed to the upload; each text
//! field is bounded; objects are served so a browser never runs them as a page.
//!
//! This module routes the requests, decides who is asking (the anon key or the
//! service key) and words the errors; uploads are `upload.rs`'s, downloads
//! `download.rs`'s.

mod download;
mod upload;

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{DefaultBodyLimit, Path};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::{StorageError, Store};
use crate::cors::cors;
use download::{authenticated_object, public_object};
use upload::upload;
pub use upload::FIELD_LIMIT;

/// The storage API's routes over `store`.
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

pub(super) fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Cross-origin uploads (a site on a CDN using `site serve`'s storage) send a
/// preflight; answer it as the gateway in front of the real server does.
pub(super) async fn preflight(headers: HeaderMap) -> Response {
    crate::cors::preflight(&headers, "GET,HEAD,POST,PUT,OPTIONS")
}

pub(super) fn path_params(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), StorageError> {
    path.map(|Path(p)| p)
        .map_err(|e| StorageError::BadRequest(format!("the URL is not valid: {}", e.body_text())))
}

/// Who a request is: the public (the anon key), or the project's service role,
/// which row-level security does not bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Anon,
    Service,
}

pub(super) fn authorize(store: &Store, headers: &HeaderMap) -> Result<Role, StorageError> {
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
