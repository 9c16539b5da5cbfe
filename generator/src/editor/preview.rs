//! The editor's preview of a page as it has it, saved or not: `POST
//! /__site/preview` takes the text a save would write and answers with the
//! page that text makes, or the build's own errors. The rendering is the
//! build's (`build/draft.rs`), done by whoever the route hands each
//! [`Draft`] to: `site serve`'s rebuild thread, between builds, with what the
//! last build kept.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;

use super::guard::editor_only;

/// Where the editor asks for the preview of a page as it has it.
pub const PREVIEW: &str = "/__site/preview";
/// A page larger than this is refused.
const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// Why a file has no preview.
pub const NO_PREVIEW: &str = "only a page under content/pages/ has a preview";

/// Whether `file` (relative to the site root) is a page file, which has a preview.
pub fn has_preview(file: &str) -> bool {
    file.starts_with("content/pages/") && !file.split('/').any(|part| part == "..")
}

/// A page as the editor has it, saved or not, rendered for its preview.
#[derive(Debug)]
pub struct Preview {
    /// Its address.
    pub route: String,
    pub html: String,
    /// What the build says of the page without refusing it (a translation
    /// older than its source, a link to no page), in the build's words.
    pub warnings: Vec<String>,
}

/// A page as the editor has it, to preview; the answer is its [`Preview`], or
/// the build's own errors as text.
pub struct Draft {
    /// The file, relative to the site root (`content/pages/about.yaml`).
    pub file: String,
    pub text: String,
    pub reply: tokio::sync::oneshot::Sender<Result<Preview, String>>,
}

/// Hands a draft to whoever renders it; false once that has stopped.
pub type Drafts = Arc<dyn Fn(Draft) -> bool + Send + Sync>;

/// The preview's route, handing each draft to `drafts`.
pub fn router(drafts: Drafts) -> Router {
    Router::new()
        .route(PREVIEW, axum::routing::post(preview))
        .route_layer(axum::middleware::from_fn(editor_only))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(drafts)
}

#[derive(serde::Deserialize)]
struct Asked {
    path: String,
    text: String,
}

/// `POST /__site/preview` `{"path": "content/pages/about.yaml", "text": "…"}`:
/// `{"route", "html", "warnings"}` of the page that text makes, or `{"error"}`
/// with the build's own messages (file, line, field); 422 for a file that is
/// no page.
async fn preview(State(drafts): State<Drafts>, Json(asked): Json<Asked>) -> Response {
    if !has_preview(&asked.path) {
        let error = NO_PREVIEW;
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"error": error})),
        )
            .into_response();
    }
    let (reply, answer) = tokio::sync::oneshot::channel();
    let draft = Draft {
        file: asked.path,
        text: asked.text,
        reply,
    };
    if !drafts(draft) {
        return (StatusCode::SERVICE_UNAVAILABLE, "the server is stopping").into_response();
    }
    match answer.await {
        Ok(Ok(page)) => Json(json!({
            "route": page.route,
            "html": page.html,
            "warnings": page.warnings,
        }))
        .into_response(),
        // A draft the build refuses is an answer too: the build's own messages.
        Ok(Err(error)) => Json(json!({"error": error})).into_response(),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "the server is stopping").into_response(),
    }
}
