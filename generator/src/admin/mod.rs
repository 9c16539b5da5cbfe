//! `/admin/`: the content editor, Sveltia CMS, served from the site's own
//! files. Its configuration is generated from the content models
//! (`config.rs`); `islands/admin/main.ts` loads it with the formats that keep
//! a file's comments and order, and, under `site serve`, the folder it edits.

pub mod config;

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::bundle::Bundle;
use crate::content::Content;

/// Where the editor is served.
pub const PREFIX: &str = "/admin/";
/// The editor's script, bundled with the islands.
pub const ENTRY: &str = "islands/admin/main.ts";
/// The editor's own build, as npm installs it.
pub const CMS_PACKAGE: &str = "@sveltia/cms";

/// The editor's Content-Security-Policy, in place of the site's on `/admin/`:
/// Sveltia CMS sets styles inline, reads pictures it was given as `data:` and
/// `blob:` URLs, and speaks to GitHub's API. Scripts are still the site's own.
pub fn content_security_policy() -> String {
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob: https://avatars.githubusercontent.com; \
     connect-src 'self' data: blob: https://api.github.com https://www.githubstatus.com; font-src 'self' data:; \
     frame-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; \
     frame-ancestors 'none'"
        .to_string()
}

/// Why the editor's files cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the content editor needs {CMS_PACKAGE} in node_modules/ (run `npm ci`): {0}")]
    MissingEditor(String),
    #[error("the content editor's script {ENTRY} was not bundled")]
    MissingEntry,
}

/// A file of `/admin/`: its path in the output, and its text or the file it copies.
pub enum File {
    Text(String, String),
    Copy(String, PathBuf),
}

/// The editor's files: its page, its configuration, and Sveltia CMS's build;
/// none for a site without the editor's script. `serving` makes the page edit
/// the site's folder through `site serve`.
pub fn files(
    root: &Path,
    content: &Content,
    bundle: &Bundle,
    node_modules: &Path,
    serving: bool,
) -> Result<Option<Vec<File>>, Error> {
    if !root.join(ENTRY).is_file() {
        return Ok(None);
    }
    let package = node_modules.join(CMS_PACKAGE);
    let version = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .ok_or_else(|| Error::MissingEditor(package.display().to_string()))?;
    let dist = package.join("dist");
    let script = dist.join("sveltia-cms.js");
    let chunk = dist.join("chunks").join("react-dom.js");
    for file in [&script, &chunk] {
        if !file.is_file() {
            return Err(Error::MissingEditor(file.display().to_string()));
        }
    }
    let entry = bundle.entry_url(ENTRY).ok_or(Error::MissingEntry)?;
    // Versioned, because the editor finds its chunk beside its own script.
    let cms = format!("admin/cms/{version}");
    let backend = json!({
        "name": "github",
        "repo": format!("local/{}", slug(&content.config.name)),
        "branch": "main",
    });
    let config = config::config(content, backend);
    let page = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex, nofollow\">\n\
         <title>Content editor · {name}</title>\n\
         <script type=\"module\" src=\"{entry}\" data-cms=\"/{cms}/sveltia-cms.js\"{served}></script>\n\
         </head>\n<body></body>\n</html>\n",
        name = crate::render::text::escape_attribute(&content.config.name),
        served = if serving { " data-served" } else { "" },
    );
    Ok(Some(vec![
        File::Text("admin/index.html".into(), page),
        File::Text(
            "admin/config.yml".into(),
            serde_json::to_string_pretty(&config).unwrap_or_default() + "\n",
        ),
        File::Copy(format!("{cms}/sveltia-cms.js"), script),
        File::Copy(format!("{cms}/chunks/react-dom.js"), chunk),
    ]))
}

/// "Meridian Digital" → "meridian-digital".
fn slug(name: &str) -> String {
    crate::content::markdown::slug(name)
}
