//! The site's folder for the content editor at `/admin/`: `site serve` lists,
//! reads, writes and deletes the files under `content/` and `public/images/`,
//! which `islands/admin/folder.ts` offers the editor as the folder a browser's
//! File System Access API would give it. A save lands in the working tree, the
//! watcher rebuilds, and `git diff` shows the change. Only the editor may use
//! these routes (`guard.rs`).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use super::guard::editor_only;

/// Where the folder is served.
pub const PREFIX: &str = "/__site/files";
/// The folders the editor may see and change, under the site root.
const FOLDERS: [&str; 2] = ["content", "public/images"];
/// A picture or a page larger than this is refused.
const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The folder's routes, under [`PREFIX`].
pub fn router(root: PathBuf) -> Router {
    let root = Arc::new(root);
    Router::new()
        .route(PREFIX, get(list_root))
        .route(&format!("{PREFIX}/"), get(list_root))
        .route(
            &format!("{PREFIX}/{{*path}}"),
            get(read).put(write).delete(remove).post(make_folder),
        )
        .route_layer(axum::middleware::from_fn(editor_only))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(root)
}

/// What the editor sees at the root: the folders it may change, and an empty
/// `.git`, by which the editor knows a repository's root.
async fn list_root() -> Response {
    Json(json!({"entries": [
        {"name": ".git", "kind": "directory"},
        {"name": "content", "kind": "directory"},
        {"name": "public", "kind": "directory"},
    ]}))
    .into_response()
}

/// The file under the root a request names, if the editor may touch it:
/// `public` itself lists `images` only.
enum Target {
    File(PathBuf),
    /// `public` or `.git`: folders the editor sees but never changes.
    Fixed(&'static [&'static str]),
}

fn target(root: &Path, path: &str) -> Option<Target> {
    let rel = Path::new(path.trim_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let text = rel.to_string_lossy();
    match text.as_ref() {
        "public" => return Some(Target::Fixed(&["images"])),
        ".git" => return Some(Target::Fixed(&[])),
        _ => {}
    }
    FOLDERS
        .iter()
        .any(|f| text == *f || text.starts_with(&format!("{f}/")))
        .then(|| Target::File(root.join(rel)))
}

/// The file a request of the editor's may change, or why not.
fn changeable(root: &Path, path: &str) -> Result<PathBuf, &'static str> {
    match target(root, path) {
        Some(Target::File(file)) => Ok(file),
        _ => Err(OUTSIDE),
    }
}

/// Why a path outside the editor's folders is refused.
const OUTSIDE: &str = "the editor may change content/ and public/images/ only";

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "no such file").into_response()
}

async fn read(State(root): State<Arc<PathBuf>>, UrlPath(path): UrlPath<String>) -> Response {
    let file = match target(&root, &path) {
        Some(Target::File(file)) => file,
        Some(Target::Fixed(names)) => {
            let entries: Vec<_> = names
                .iter()
                .map(|n| json!({"name": n, "kind": "directory"}))
                .collect();
            return Json(json!({ "entries": entries })).into_response();
        }
        None => return not_found(),
    };
    let Ok(meta) = tokio::fs::metadata(&file).await else {
        return not_found();
    };
    if meta.is_dir() {
        let Ok(mut dir) = tokio::fs::read_dir(&file).await else {
            return not_found();
        };
        let mut entries = Vec::new();
        while let Ok(Some(entry)) = dir.next_entry().await {
            let Ok(kind) = entry.file_type().await else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            entries.push(json!({
                "name": entry.file_name().to_string_lossy(),
                "kind": if kind.is_dir() { "directory" } else { "file" },
            }));
        }
        return Json(json!({ "entries": entries })).into_response();
    }
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            let modified = meta
                .modified()
                .ok()
                .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis());
            (
                [
                    (header::CONTENT_TYPE, "application/octet-stream".to_string()),
                    (header::CACHE_CONTROL, "no-store".to_string()),
                    (header::LAST_MODIFIED, modified.to_string()),
                ],
                bytes,
            )
                .into_response()
        }
        Err(_) => not_found(),
    }
}

/// Writes a file whole: into a temporary file beside it, then renamed over it,
/// so the watcher and the build never see half a file.
async fn write(
    State(root): State<Arc<PathBuf>>,
    UrlPath(path): UrlPath<String>,
    body: Bytes,
) -> Response {
    let file = match changeable(&root, &path) {
        Ok(file) => file,
        Err(why) => return (StatusCode::FORBIDDEN, why).into_response(),
    };
    let Some(parent) = file.parent() else {
        return not_found();
    };
    let result = async {
        tokio::fs::create_dir_all(parent).await?;
        let name = file.file_name().map(|n| n.to_string_lossy().to_string());
        let temporary = parent.join(format!(".{}.saving", name.unwrap_or_default()));
        tokio::fs::write(&temporary, &body).await?;
        tokio::fs::rename(&temporary, &file).await
    }
    .await;
    match result {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn make_folder(State(root): State<Arc<PathBuf>>, UrlPath(path): UrlPath<String>) -> Response {
    match target(&root, &path) {
        Some(Target::File(dir)) => match tokio::fs::create_dir_all(&dir).await {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => (StatusCode::CONFLICT, e.to_string()).into_response(),
        },
        Some(Target::Fixed(_)) => StatusCode::NO_CONTENT.into_response(),
        None => (StatusCode::FORBIDDEN, OUTSIDE).into_response(),
    }
}

async fn remove(State(root): State<Arc<PathBuf>>, UrlPath(path): UrlPath<String>) -> Response {
    let file = match changeable(&root, &path) {
        Ok(file) => file,
        Err(why) => return (StatusCode::FORBIDDEN, why).into_response(),
    };
    // The editor's own folders stay, even when it empties them.
    if FOLDERS.iter().any(|f| root.join(f) == file) {
        return (StatusCode::FORBIDDEN, "this folder stays").into_response();
    }
    let result = match tokio::fs::metadata(&file).await {
        Ok(meta) if meta.is_dir() => tokio::fs::remove_dir(&file).await,
        Ok(_) => tokio::fs::remove_file(&file).await,
        Err(_) => return not_found(),
    };
    match result {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => (StatusCode::CONFLICT, e.to_string()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_content_and_pictures_can_be_reached() {
        let root = Path::new("/site");
        let file = |p: &str| match target(root, p) {
            Some(Target::File(f)) => Some(f),
            _ => None,
        };
        assert_eq!(
            file("content/pages/index.yaml"),
            Some(PathBuf::from("/site/content/pages/index.yaml"))
        );
        assert!(file("public/images/a.png").is_some());
        for refused in [
            "content/../Makefile",
            "Makefile",
            "public/_headers",
            "public/imagesx/a.png",
            "/etc/passwd",
            "templates/base.html",
            ".git/config",
        ] {
            assert!(file(refused).is_none(), "{refused}");
        }
    }
}
