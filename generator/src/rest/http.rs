//! The insert PostgREST serves for the forms' tables, as the forms send it:
//! `POST /rest/v1/<table>` with the `apikey` header and a JSON object (or an
//! array of them). A row is decided as PostgreSQL decides it with the migration
//! applied, in its order: the columns PostgREST knows, the public's column
//! grants, each value's type, the guards' triggers and the rate limit's (by
//! name), the row-level security policy, NOT NULL, then the CHECK constraints
//! by name. A refusal has
//! PostgREST's status and body (`{"code","details","hint","message"}`); an accepted
//! row answers 201 with no body, as PostgREST's default `return=minimal` does.
//! Reading the table is refused as the missing SELECT grant refuses it.

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;

use super::{Inbox, Row};
use crate::content::openings::Opening;
use crate::cors::{cors, preflight};
use crate::forms::guards::{Stored, World};
use crate::forms::postgres::{self, Refusal, Value};
use crate::forms::sender;
use crate::forms::table::{Table, SEND_KEY};
use crate::storage::Store;

/// The local address a request's connection reached: the one address of this
/// server that a client cannot choose, unlike its `Host` header. The server that
/// accepts the connection attaches it to each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalAddr(pub SocketAddr);

/// The largest request body: a message is at most a few tens of kilobytes.
const BODY_LIMIT: usize = 1024 * 1024;

/// What the server needs to decide a request.
pub struct Backend {
    /// One per form's table.
    pub inboxes: Vec<Inbox>,
    pub anon_key: String,
    /// The built-in storage, where a row's file must be.
    pub store: Arc<Store>,
    /// The postings of the last build, as `public.job_openings` has them.
    pub openings: Arc<RwLock<Vec<Opening>>>,
    /// `storage.url`: where the form's images are, when not on this server.
    pub storage_url: String,
    /// Behind a proxy that sets CF-Connecting-IP or appends to X-Forwarded-For
    /// (`site serve --trust-proxy`): the sender is the address it saw. Otherwise
    /// both headers are the client's own words, and the connection's address is
    /// the sender.
    pub trust_proxy: bool,
}

pub fn router(backend: Arc<Backend>) -> Router {
    Router::new()
        .route("/rest/v1/{table}", any(table))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(backend)
}

/// A refusal as PostgREST sends it.
struct Error {
    status: StatusCode,
    code: &'static str,
    message: String,
    details: Option<String>,
    hint: Option<String>,
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        // PostgREST's table: 42501 is 403 for a request that carries a role (the
        // anon key does), PTxyz is xyz, the rest of a row's refusals 400.
        let status = match r.code {
            "42501" => StatusCode::FORBIDDEN,
            "23503" | "23505" => StatusCode::CONFLICT,
            raised if raised.starts_with("PT") => raised[2..]
                .parse()
                .ok()
                .and_then(|n| StatusCode::from_u16(n).ok())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            _ => StatusCode::BAD_REQUEST,
        };
        Error {
            status,
            code: r.code,
            message: r.message,
            details: r.details,
            hint: None,
        }
    }
}

impl Error {
    fn pgrst(status: StatusCode, code: &'static str, message: String) -> Error {
        Error {
            status,
            code,
            message,
            details: None,
            hint: None,
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "code": self.code,
            "details": self.details,
            "hint": self.hint,
            "message": self.message,
        });
        let mut response = (self.status, body.to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        cors(response)
    }
}

async fn table(
    State(backend): State<Arc<Backend>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    use axum::http::Method;
    let (parts, body) = request.into_parts();
    let (method, headers) = (parts.method, parts.headers);
    if method == Method::OPTIONS {
        return preflight(&headers, "GET,HEAD,POST,PATCH,DELETE,OPTIONS");
    }
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(a)| *a);
    let local = parts.extensions.get::<LocalAddr>().map(|LocalAddr(a)| *a);
    let body = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let mut response = Error::pgrst(
                StatusCode::PAYLOAD_TOO_LARGE,
                "PGRST413",
                format!("The request body is larger than {BODY_LIMIT} bytes"),
            )
            .into_response();
            // The rest of the body is left unread, so the connection ends with
            // this answer: said, so that no client sends its next request on it.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    let answer = (|| {
        authorize(&backend, &headers)?;
        let Some(inbox) = backend.inboxes.iter().find(|i| i.table.name == name) else {
            return Err(Error::pgrst(
                StatusCode::NOT_FOUND,
                "PGRST205",
                format!("Could not find the table 'public.{name}' in the schema cache"),
            ));
        };
        match method {
            Method::POST => {
                let address = sender_of(&headers, peer, backend.trust_proxy);
                let project = project_url(&backend.storage_url, &headers, local);
                insert(&backend, inbox, &headers, &body, address, &project)
            }
            // No SELECT, UPDATE or DELETE grant: PostgreSQL refuses before RLS.
            Method::GET | Method::HEAD | Method::PATCH | Method::DELETE | Method::PUT => {
                Err(postgres::permission_denied(inbox.table).into())
            }
            _ => Err(Error::pgrst(
                StatusCode::METHOD_NOT_ALLOWED,
                "PGRST117",
                format!("Unsupported HTTP method: {method}"),
            )),
        }
    })();
    match answer {
        Ok(()) => cors((StatusCode::CREATED, "").into_response()),
        Err(e) => e.into_response(),
    }
}

/// Supabase's gateway wants the project's key in `apikey`.
fn authorize(backend: &Backend, headers: &HeaderMap) -> Result<(), Error> {
    match headers.get("apikey").map(|v| v.to_str().unwrap_or("")) {
        None => Err(Error {
            hint: Some("No `apikey` request header or url param was found.".into()),
            ..Error::pgrst(
                StatusCode::UNAUTHORIZED,
                "PGRST301",
                "No API key found in request".into(),
            )
        }),
        Some(key) if key.trim() == backend.anon_key.trim() => Ok(()),
        Some(_) => Err(Error {
            hint: Some("Double check the provided API key".into()),
            ..Error::pgrst(
                StatusCode::UNAUTHORIZED,
                "PGRST301",
                "Invalid API key".into(),
            )
        }),
    }
}

/// The sender as the migration's trigger counts it (`sender::sender`) when a
/// trusted proxy is in front, else the connection's own address.
fn sender_of(headers: &HeaderMap, peer: Option<SocketAddr>, trust_proxy: bool) -> Option<String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let proxied = trust_proxy
        .then(|| sender::sender(header("cf-connecting-ip"), header("x-forwarded-for")))
        .flatten();
    proxied.or_else(|| peer.map(|p| sender::sender_address(p.ip())))
}

/// The project's URL, as Vault's `project_url` is to the migration: the
/// configured storage, else this server, which is the storage. The browser names
/// this server by its address bar (`window.location.origin`), which reaches here
/// as `Host`; but a client writes its own `Host`, and a project URL taken from it
/// would let anyone store a link to a server of their choosing. So `Host` is
/// taken only when it names the address the connection reached (or `localhost`
/// for a loopback one); anything else falls back to that address itself.
fn project_url(storage_url: &str, headers: &HeaderMap, local: Option<SocketAddr>) -> String {
    if !storage_url.trim().is_empty() {
        return storage_url.trim().trim_end_matches('/').to_string();
    }
    let Some(local) = local else {
        return "http://127.0.0.1".into();
    };
    match headers.get(header::HOST).and_then(|v| v.to_str().ok()) {
        Some(host) if names_local(host, local) => format!("http://{host}"),
        _ => format!(
            "http://{}",
            SocketAddr::new(local.ip().to_canonical(), local.port())
        ),
    }
}

/// Whether a `Host` header names `local`: its address (or `localhost`, when
/// `local` is loopback) and its port, which HTTP leaves out when it is 80.
fn names_local(host: &str, local: SocketAddr) -> bool {
    let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    if host.contains('@') || authority.port_u16().unwrap_or(80) != local.port() {
        return false;
    }
    let ip = local.ip().to_canonical();
    let name = authority.host();
    match name
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(named) => named.to_canonical() == ip,
        Err(_) => name.eq_ignore_ascii_case("localhost") && ip.is_loopback(),
    }
}

fn insert(
    backend: &Backend,
    inbox: &Inbox,
    headers: &HeaderMap,
    body: &[u8],
    address: Option<String>,
    project_url: &str,
) -> Result<(), Error> {
    let json: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        Error::pgrst(
            StatusCode::BAD_REQUEST,
            "PGRST102",
            format!("Empty or invalid json: {e}"),
        )
    })?;
    let objects: Vec<&serde_json::Map<String, serde_json::Value>> = match &json {
        serde_json::Value::Object(o) => vec![o],
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_object())
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::pgrst(
                    StatusCode::BAD_REQUEST,
                    "PGRST102",
                    "All object keys must match".into(),
                )
            })?,
        _ => {
            return Err(Error::pgrst(
                StatusCode::BAD_REQUEST,
                "PGRST102",
                "Empty or invalid json".into(),
            ))
        }
    };
    let keys: Vec<&String> = objects
        .first()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    if objects.iter().any(|o| o.keys().collect::<Vec<_>>() != keys) {
        return Err(Error::pgrst(
            StatusCode::BAD_REQUEST,
            "PGRST102",
            "All object keys must match".into(),
        ));
    }
    let table = inbox.table;
    // PostgREST's schema cache knows the columns; a name it lacks is its error.
    for key in &keys {
        if table.column(key).is_none() {
            return Err(Error::pgrst(
                StatusCode::BAD_REQUEST,
                "PGRST204",
                format!(
                    "Could not find the '{key}' column of '{}' in the schema cache",
                    table.name
                ),
            ));
        }
    }
    // Privileges are checked before a row is read: a column without a grant, or
    // a representation asked back (RETURNING needs SELECT).
    let prefers = |wanted: &str| {
        headers
            .get_all("prefer")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|p| p.trim() == wanted)
    };
    let wants_rows = prefers("return=representation");
    if wants_rows
        || keys
            .iter()
            .any(|k| table.column(k).is_some_and(|c| !c.anon_insert))
    {
        return Err(postgres::permission_denied(table).into());
    }

    let mut rows = Vec::with_capacity(objects.len());
    for object in &objects {
        rows.push(read_row(table, object)?);
    }
    // The guards' triggers fire before the rate limit's (by name).
    let openings = backend.openings.read().unwrap_or_else(|p| p.into_inner());
    let stored = |bucket: &crate::storage::policy::BucketPolicy, key: &str| {
        let bucket = backend.store.bucket(bucket.name).ok()?;
        let (meta, _) = backend.store.get(bucket, key).ok()?;
        Some(Stored {
            size: meta.size,
            mimetype: meta.content_type,
        })
    };
    let opening = |job: &str| openings.iter().find(|o| o.job_id == job).cloned();
    let world = World {
        project_url,
        stored: &stored,
        opening: &opening,
        now: chrono::Utc::now(),
    };
    for row in &rows {
        let get = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
        if let Some(r) = table.guards.iter().find_map(|g| g.refusal(&get, &world)) {
            return Err(r.into());
        }
    }
    // The rate limit's trigger first finds the repeats of earlier sends, which
    // it skips: not counted, not checked further, not stored, and the request
    // answered as a success. Its lock on their keys is held until the rows are
    // stored.
    let mut sent = inbox.sent.lock().unwrap_or_else(|p| p.into_inner());
    let repeats = repeats(table, &rows, &sent)?;
    let now = Instant::now();
    let rate_keys: Vec<Vec<String>> = rows
        .iter()
        .zip(&repeats)
        .filter(|(_, repeat)| !**repeat)
        .map(|(r, _)| rate_keys(table, r, &address))
        .collect();
    // The trigger runs before the policy and the constraints.
    if let Err(key) = inbox.may_admit(&rate_keys, now) {
        return Err(postgres::rate_limited(table, &key).into());
    }
    for (row, _) in rows.iter().zip(&repeats).filter(|(_, r)| !**r) {
        let get = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
        if !postgres::passes_insert_policy(table, &get) {
            return Err(postgres::refused_by_policy(table).into());
        }
        if let Some(r) = postgres::not_null_violation(table, &get) {
            return Err(r.into());
        }
        if let Some(r) = postgres::check_violation(table, &get) {
            return Err(r.into());
        }
    }
    // Counted only now, as a refused row's count rolls back with it.
    if let Err(key) = inbox.admit(&rate_keys, now) {
        return Err(postgres::rate_limited(table, &key).into());
    }
    for (row, _) in rows.iter().zip(&repeats).filter(|(_, r)| !**r) {
        if let Some(Value::Text(key)) = row.get(SEND_KEY.name) {
            sent.insert(key.clone(), row.clone());
        }
        inbox.store(row).map_err(|e| {
            eprintln!("{}: {e}", table.name);
            Error::pgrst(
                StatusCode::INTERNAL_SERVER_ERROR,
                "XX000",
                "the row could not be stored".into(),
            )
        })?;
    }
    Ok(())
}

/// Which of `rows` repeat a send already stored, or an earlier row of the same
/// request, as the rate limit's trigger finds them. A key sent before with
/// other words is refused.
fn repeats(
    table: &Table,
    rows: &[Row],
    sent: &std::collections::HashMap<String, Row>,
) -> Result<Vec<bool>, Error> {
    let words = |row: &Row| -> Vec<Value> {
        table
            .repeat_columns()
            .map(|c| row.get(c.name).cloned().unwrap_or(Value::Null))
            .collect()
    };
    let mut found = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let Some(Value::Text(key)) = row.get(SEND_KEY.name) else {
            found.push(false);
            continue;
        };
        let same_key = |r: &&Row| r.get(SEND_KEY.name) == Some(&Value::Text(key.clone()));
        let earlier = sent.get(key).or_else(|| rows[..i].iter().find(same_key));
        match earlier {
            Some(earlier) if words(earlier) != words(row) => {
                return Err(Refusal::new(
                    postgres::REUSED_KEY_CODE,
                    postgres::REUSED_KEY_MESSAGE.into(),
                )
                .into())
            }
            Some(_) => found.push(true),
            None => found.push(false),
        }
    }
    Ok(found)
}

/// A row with the given values read as their columns' types, and the rest their
/// defaults, as PostgreSQL fills them.
fn read_row(
    table: &Table,
    object: &serde_json::Map<String, serde_json::Value>,
) -> Result<Row, Error> {
    let mut row = Row::new();
    for c in table.columns {
        let value = match object.get(c.name) {
            Some(json) => postgres::read_value(c.ty, json)?,
            None => c.default.map_or(Value::Null, |d| d.value()),
        };
        row.insert(c.name.to_string(), value);
    }
    Ok(row)
}

/// The trigger's keys: the sender's address and the e-mail address, lowercased.
fn rate_keys(table: &Table, row: &Row, address: &Option<String>) -> Vec<String> {
    let mut keys = Vec::new();
    if let Some(a) = address {
        keys.push(format!("{}{a}", postgres::ADDRESS_KEY));
    }
    if let Some(Value::Text(email)) = row.get(table.spam.email) {
        keys.push(format!("{}{}", postgres::EMAIL_KEY, email.to_lowercase()));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(host: Option<&str>, local: &str) -> String {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        }
        project_url("", &headers, Some(local.parse().unwrap()))
    }

    #[test]
    fn the_project_url_is_the_host_the_browser_named_when_it_is_this_server() {
        for (host, local) in [
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("localhost:8080", "127.0.0.1:8080"),
            ("LOCALHOST:8080", "[::1]:8080"),
            ("[::1]:8080", "[::1]:8080"),
            ("192.168.1.5:8080", "192.168.1.5:8080"),
            ("192.168.1.5", "192.168.1.5:80"),
            // Reached over IPv4 on a dual-stack socket.
            ("127.0.0.1:8080", "[::ffff:127.0.0.1]:8080"),
        ] {
            assert_eq!(
                url(Some(host), local),
                format!("http://{host}"),
                "{host} at {local}"
            );
        }
    }

    #[test]
    fn a_host_that_names_another_server_is_not_the_project_url() {
        for (host, local) in [
            (Some("evil.example"), "127.0.0.1:8080"),
            (Some("evil.example:8080"), "127.0.0.1:8080"),
            (Some("127.0.0.1:9999"), "127.0.0.1:8080"),
            (Some("127.0.0.1"), "127.0.0.1:8080"),
            (Some("10.0.0.1:8080"), "127.0.0.1:8080"),
            (Some("localhost:8080@evil.example"), "127.0.0.1:8080"),
            (Some("evil@127.0.0.1:8080"), "127.0.0.1:8080"),
            (Some("127.0.0.1:8080/x"), "127.0.0.1:8080"),
            (Some(""), "127.0.0.1:8080"),
            // localhost is loopback only.
            (Some("localhost:8080"), "192.168.1.5:8080"),
            (None, "[::1]:8080"),
        ] {
            assert_eq!(
                url(host, local),
                format!("http://{local}"),
                "{host:?} at {local}"
            );
        }
    }

    #[test]
    fn a_configured_storage_url_is_the_project_url_whatever_the_host() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("evil.example"));
        let local = Some("127.0.0.1:8080".parse().unwrap());
        assert_eq!(
            project_url(" https://abc.supabase.co/ ", &headers, local),
            "https://abc.supabase.co"
        );
    }
}
