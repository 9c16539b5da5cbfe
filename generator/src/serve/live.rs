//! Live reload: the browser holds a server-sent events stream; every rebuild is
//! announced on it, and a failed one carries its diagnostics for the overlay.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::State;
use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;

pub const SCRIPT_PATH: &str = "/__site/live.js";
pub const EVENTS_PATH: &str = "/__site/events";
const SCRIPT: &str = include_str!("live.js");

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Reload,
    BuildError(String),
}

/// What the last build left to show on open pages.
#[derive(Debug, Clone, Default)]
enum Standing {
    #[default]
    Clean,
    Warnings(String),
    Error(String),
}

pub struct Live {
    tx: broadcast::Sender<Message>,
    /// The error or warnings of the last build, shown to pages that connect
    /// while it stands (a reloaded page connects again).
    standing: Mutex<Standing>,
}

impl Live {
    pub fn new() -> Live {
        let (tx, _) = broadcast::channel(16);
        Live {
            tx,
            standing: Mutex::new(Standing::Clean),
        }
    }

    /// A good build, with its warnings (empty for none), which pages that
    /// connect are shown. Open pages reload when `reload`: when it changed what
    /// they show.
    pub fn built(&self, warnings: String, reload: bool) {
        *self.standing.lock().unwrap_or_else(PoisonError::into_inner) = if warnings.is_empty() {
            Standing::Clean
        } else {
            Standing::Warnings(warnings)
        };
        if reload {
            let _ = self.tx.send(Message::Reload);
        }
    }

    /// Whether the last build failed.
    pub fn is_failed(&self) -> bool {
        matches!(self.standing(), Standing::Error(_))
    }

    pub fn failed(&self, text: String) {
        *self.standing.lock().unwrap_or_else(PoisonError::into_inner) =
            Standing::Error(text.clone());
        let _ = self.tx.send(Message::BuildError(text));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Message> {
        self.tx.subscribe()
    }

    fn standing(&self) -> Standing {
        self.standing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn event(message: &Message) -> Event {
    match message {
        Message::Reload => Event::default().event("reload").data("{}"),
        Message::BuildError(text) => Event::default()
            .event("build-error")
            .data(serde_json::to_string(text).unwrap_or_default()),
    }
}

pub async fn events(
    State(live): State<Arc<Live>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let first = match live.standing() {
        Standing::Error(text) => event(&Message::BuildError(text)),
        Standing::Warnings(text) => Event::default()
            .event("build-warnings")
            .data(serde_json::to_string(&text).unwrap_or_default()),
        Standing::Clean => Event::default().event("build-ok").data("{}"),
    };
    let updates = BroadcastStream::new(live.subscribe())
        .filter_map(|m| async move { m.ok().map(|m| Ok(event(&m))) });
    Sse::new(stream::once(async move { Ok(first) }).chain(updates)).keep_alive(KeepAlive::default())
}

pub async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        SCRIPT,
    )
}

/// Adds the live script to an HTML document, just before `</body>`.
pub fn inject(html: &[u8]) -> Vec<u8> {
    let tag = format!(r#"<script src="{SCRIPT_PATH}"></script>"#);
    let text = String::from_utf8_lossy(html);
    match text.rfind("</body>") {
        Some(i) => format!("{}{tag}{}", &text[..i], &text[i..]).into_bytes(),
        None => format!("{text}{tag}").into_bytes(),
    }
}
