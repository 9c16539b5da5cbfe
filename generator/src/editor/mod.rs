//! `/admin/`: the content editor, Sveltia CMS, served from the site's own
//! files. Its configuration is generated from the content models
//! (`cms_config.rs`); `islands/admin/main.ts` loads it with the formats that keep
//! a file's comments and order, and, under `site serve`, the folder it edits
//! (`folder.rs`) and the preview of a page as it has it (`preview.rs`), both
//! for the editor alone (`guard.rs`). The build asks for its files
//! ([`files`]) and writes them with the output's.

mod cms;
pub mod cms_config;
pub mod folder;
mod guard;
pub mod languages;
pub mod preview;
mod strings;
mod widgets;

use std::path::{Path, PathBuf};

use axum::Router;
use serde_json::json;

use crate::bundle::Bundle;
use crate::content::site::{Admin, PublishMode};
use crate::content::Content;
use crate::output::Source;
pub use guard::EDITOR_HEADER;
pub use preview::{has_preview, Draft, Drafts, Preview, NO_PREVIEW};

/// Where the editor is served.
pub const PREFIX: &str = "/admin/";
/// The editor's script, bundled with the islands.
pub const ENTRY: &str = "islands/admin/main.ts";
/// The editor's own build, as npm installs it.
pub const CMS_PACKAGE: &str = "@sveltia/cms";
/// The editor's configuration, in the output: JSON, which the editor reads with
/// the browser's own parser (the page's `cms-config-url` link says so). As YAML
/// (`config.yml`), its YAML parser took about a tenth of an opening's CPU time.
pub const CONFIG: &str = "admin/config.json";

/// The editor's Content-Security-Policy, in place of the site's on `/admin/`:
/// Sveltia CMS sets styles inline and reads pictures it was given as `data:`
/// and `blob:` URLs. On the live site it speaks to GitHub's API (and its
/// status page) and shows the editor's GitHub picture; under `site serve`
/// (`serving`) it works in the site's folder and asks no other host. Scripts
/// are the site's own.
pub fn content_security_policy(admin: &Admin, serving: bool) -> String {
    let (pictures, hosts) = match serving {
        true => (String::new(), String::new()),
        false => {
            let api = admin
                .api_root
                .as_deref()
                .map(crate::output::headers::origin)
                .unwrap_or_else(|| "https://api.github.com".to_string());
            (
                " https://avatars.githubusercontent.com".to_string(),
                format!(" {api} https://www.githubstatus.com"),
            )
        }
    };
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob:{pictures}; \
         connect-src 'self' data: blob:{hosts}; font-src 'self'; \
         frame-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; \
         frame-ancestors 'none'"
    )
}

/// Where the editor saves: the site's folder under `site serve` (its "Work
/// with Local Repository"), the GitHub repository of `admin:` on the live site.
fn backend(admin: &Admin, site_name: &str, serving: bool) -> Result<serde_json::Value, Error> {
    let repo = match (&admin.repo, serving) {
        (Some(repo), _) if valid_repo(repo) => repo.clone(),
        (Some(repo), _) => return Err(Error::Repo(format!("`{repo}` is not owner/name"))),
        (None, true) => format!("local/{}", slug(site_name)),
        (None, false) => {
            return Err(Error::Repo(
                "it is needed when admin.enabled is true".into(),
            ))
        }
    };
    let mut backend = json!({ "name": "github", "repo": repo, "branch": admin.branch });
    if let Some(url) = &admin.auth_url {
        backend["base_url"] = json!(url);
    }
    if let Some(api) = &admin.api_root {
        backend["api_root"] = json!(api);
    }
    Ok(backend)
}

fn valid_repo(repo: &str) -> bool {
    let ok = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    };
    matches!(repo.split_once('/'), Some((owner, name)) if ok(owner) && ok(name))
}

/// Why the editor's files cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the content editor needs {CMS_PACKAGE} in node_modules/ (run `npm ci`): {0}")]
    MissingEditor(String),
    #[error("admin.repo, the GitHub repository the editor publishes to: {0}")]
    Repo(String),
    #[error("the content editor's script {ENTRY} was not bundled")]
    MissingEntry,
    #[error("{CMS_PACKAGE} has changed how it loads {0}: its files under /admin/ need updating (src/editor/cms.rs)")]
    Unexpected(&'static str),
    #[error("the content editor needs {0} at version {1}, found {2}: install the version package.json names (npm ci)")]
    FontVersion(String, String, String),
}

/// The routes `site serve` gives the editor: the site's folder, and the
/// preview, which hands each draft to `drafts`.
pub fn routes(root: PathBuf, drafts: Drafts) -> Router {
    folder::router(root).merge(preview::router(drafts))
}

/// A file of `/admin/`: its path in the output, and its text or the file it copies.
#[derive(Clone)]
enum File {
    Text(String, std::sync::Arc<str>),
    Copy(String, PathBuf),
}

impl File {
    /// The file as the output takes it: its path, where its bytes come from.
    fn into_output(self) -> (String, Source) {
        match self {
            File::Text(rel, text) => (rel, Source::Bytes(text.as_bytes().to_vec())),
            File::Copy(rel, path) => (rel, Source::Immutable(path)),
        }
    }
}

/// The editor's files, as the output writes them: its page, its configuration,
/// and Sveltia CMS's build; none for a site without the editor's script.
/// `base_url` is the build's (site.yaml's, or the environment's or command
/// line's in its place), which the editor links to. `serving` makes the page
/// edit the site's folder through `site serve`.
pub fn files(
    root: &Path,
    content: &Content,
    base_url: &str,
    bundle: &Bundle,
    node_modules: &Path,
    serving: bool,
) -> Result<Option<Vec<(String, Source)>>, Error> {
    if !root.join(ENTRY).is_file() {
        return Ok(None);
    }
    let package = node_modules.join(CMS_PACKAGE);
    let version = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .ok_or_else(|| Error::MissingEditor(package.display().to_string()))?;
    let entry = bundle.entry_url(ENTRY).ok_or(Error::MissingEntry)?;
    // Versioned, because the editor finds its chunk beside its own script.
    let cms = format!("admin/cms/{version}");
    let backend = backend(&content.config.admin, &content.config.name, serving)?;
    let (mut config, kinds) = cms_config::config(root, content, backend);
    let mut files_extra = Vec::new();
    if content.config.admin.publish_mode == PublishMode::EditorialWorkflow && !serving {
        config["publish_mode"] = json!("editorial_workflow");
    }
    if !base_url.is_empty() {
        config["site_url"] = json!(base_url);
    }
    // The site's own icon, where it has one.
    let icon = match root.join("public").join("favicon.svg").is_file() {
        true => "<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n",
        false => "",
    };
    // A host that sends no headers gets the editor's policy in its page.
    let policy = match content.config.host.sends_custom_headers() {
        true => String::new(),
        false => format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
            content_security_policy(&content.config.admin, serving)
                .replace("; frame-ancestors 'none'", "")
        ),
    };
    let page = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex, nofollow\">\n{policy}{icon}\
         <title>Content editor · {name}</title>\n\
         <link rel=\"cms-config-url\" href=\"/{CONFIG}\" type=\"application/json\">\n\
         <script type=\"module\" src=\"{entry}\" data-cms=\"/{cms}/sveltia-cms.js\"{served}></script>\n\
         </head>\n<body></body>\n</html>\n",
        name = crate::html::escape_attribute(&content.config.name),
        served = if serving { " data-served" } else { "" },
    );
    // Under `site serve`, the preview shows each file's page as served.
    if serving {
        let routes: serde_json::Map<String, serde_json::Value> = content
            .pages
            .iter()
            .map(|p| (p.source.clone(), json!(p.route)))
            .collect();
        let folders: serde_json::Map<String, serde_json::Value> = config["collections"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| {
                let name = c.get("name")?.as_str()?;
                let folder = c.get("folder")?;
                Some((
                    name.to_string(),
                    json!({ "folder": folder, "extension": c.get("extension") }),
                ))
            })
            .collect();
        let preview = json!({ "routes": routes, "folders": folders });
        files_extra.push(File::Text(
            "admin/preview.json".into(),
            (preview.to_string() + "\n").into(),
        ));
    }
    // What a save of a translation records of its source, from the models' rules.
    let translations = languages::translations_file(content.languages(), &kinds);
    let mut files = vec![
        File::Text("admin/index.html".into(), page.into()),
        File::Text(
            CONFIG.into(),
            (serde_json::to_string(&config).unwrap_or_default() + "\n").into(),
        ),
        File::Text(
            languages::TRANSLATIONS_FILE.into(),
            (translations.to_string() + "\n").into(),
        ),
    ];
    files.extend(files_extra);
    files.extend(cms::files(node_modules, &cms)?);
    Ok(Some(files.into_iter().map(File::into_output).collect()))
}

/// "Meridian Digital" → "meridian-digital".
fn slug(name: &str) -> String {
    crate::content::markdown::slug(name)
}

impl Error {
    /// The file the problem is in.
    pub fn file(&self) -> &'static str {
        match self {
            Error::Repo(_) => "content/site.yaml",
            _ => ENTRY,
        }
    }
}
