//! The site's search index: Pagefind (npm `pagefind`, its native binary for this
//! platform) run over the written pages, when `site.yaml` sets `search: true`.
//! Only each page's `data-pagefind-body` element (the main content, never the
//! header or the footer) is indexed. The index is written beside the output and
//! put in place as `pagefind/` in one step; Pagefind's own UI files, which the
//! site does not use, are left out. An index is kept under `.site/search/` by the
//! hash of the pages it was made from, so a build whose pages did not change
//! links that copy instead of running Pagefind again.
//!
//! `site serve` makes it when a page first asks for it after the pages changed
//! ([`Deferred`]), not on every save: a save's reload waits for no indexer, and
//! saves that no one searches between cost no index.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where the index is served from.
pub const FOLDER: &str = "pagefind";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the search indexer was not found (looked for {0}); run `npm ci` in the project")]
    NotFound(String),
    #[error("the search indexer could not be started: {0}")]
    Spawn(std::io::Error),
    #[error("the search indexer failed{status}: {output}")]
    Failed { status: String, output: String },
    #[error("the search indexer did not finish within {}, so it was stopped (`timeouts.index` in content/site.yaml sets the limit)", crate::json_lines::seconds(*.0))]
    TimedOut(Duration),
    #[error("the search index could not be put in place: {0}")]
    Io(std::io::Error),
}

/// Pagefind's binary: the one `SITE_PAGEFIND` names, else the package's in
/// `node_modules` for this platform.
pub fn indexer(node_modules: &Path) -> Result<PathBuf, Error> {
    if let Some(named) = std::env::var_os("SITE_PAGEFIND") {
        return Ok(PathBuf::from(named));
    }
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let bin = node_modules
        .join("@pagefind")
        .join(format!("{os}-{arch}"))
        .join("bin");
    ["pagefind_extended", "pagefind"]
        .iter()
        .map(|name| bin.join(name))
        .find(|path| path.is_file())
        .ok_or_else(|| Error::NotFound(bin.join("pagefind_extended").display().to_string()))
}

/// Indexes the pages of `site` into `site/pagefind/`, replacing the index there;
/// `cache` keeps the last index made.
pub fn index(indexer: &Path, site: &Path, cache: &Path, limit: Duration) -> Result<(), Error> {
    let staged = site.join(format!(".{FOLDER}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staged);
    let kept = cache.join(pages_hash(indexer, site));
    let made = if kept.join("pagefind.js").is_file() {
        link_tree(&kept, &staged).map_err(Error::Io)
    } else {
        run(indexer, site, &staged, limit).map(|()| {
            leave_out_ui(&staged);
            keep(&staged, cache, &kept);
        })
    };
    let result = made.and_then(|()| {
        let place = site.join(FOLDER);
        super::swap::swap(&staged, &place)
            .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    result
}

/// What an index is made with: the indexer, the site's pages, the kept copy's
/// folder and the time it may take.
#[derive(Debug, Clone)]
pub struct Job {
    pub indexer: PathBuf,
    pub site: PathBuf,
    pub cache: PathBuf,
    pub limit: Duration,
}

impl Job {
    pub fn run(&self) -> Result<(), Error> {
        index(&self.indexer, &self.site, &self.cache, self.limit)
    }
}

/// `site serve`'s index: made when a request for it finds the pages changed
/// since the last one was made, while the requests wait. A failure is told to
/// every request until the pages change again, not tried again on each.
#[derive(Debug, Default)]
pub struct Deferred(Mutex<State>);

#[derive(Debug, Default)]
enum State {
    /// Nothing to index (no search), or the index is of the pages as they are.
    #[default]
    Current,
    Pending(Job),
    Failed(String),
}

impl Deferred {
    /// The pages were written again: the next request makes the index.
    pub fn pages_changed(&self, job: Job) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = State::Pending(job);
    }

    /// Makes the index if the pages changed since it was made; the reason it
    /// could not be made otherwise.
    pub fn make(&self) -> Result<(), String> {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match &*state {
            State::Current => Ok(()),
            State::Failed(why) => Err(why.clone()),
            State::Pending(job) => match job.run() {
                Ok(()) => {
                    *state = State::Current;
                    Ok(())
                }
                Err(e) => {
                    let why = e.to_string();
                    *state = State::Failed(why.clone());
                    Err(why)
                }
            },
        }
    }
}

/// A hash of every page of `site` (path and bytes) and of the indexer.
fn pages_hash(indexer: &Path, site: &Path) -> String {
    let mut h = blake3::Hasher::new();
    h.update(indexer.to_string_lossy().as_bytes());
    let pages = walkdir::WalkDir::new(site)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html"));
    for page in pages {
        let rel = page.path().strip_prefix(site).unwrap_or(page.path());
        h.update(rel.to_string_lossy().as_bytes());
        // Read in pieces: a page may be a long article's 170 MB.
        let len = page.metadata().map_or(0, |m| m.len());
        h.update(&len.to_le_bytes());
        if let Ok(file) = std::fs::File::open(page.path()) {
            let _ = h.update_reader(file);
        }
    }
    h.finalize().to_hex()[..16].to_string()
}

/// Copies `from` to `to` (a new folder), hard-linking each file where possible.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else {
            // An index file never changes once written, like the bundle's.
            super::Source::Immutable(entry.path().to_path_buf())
                .write_to(&dest)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
    }
    Ok(())
}

/// Keeps a copy of a new index as `kept`, the only one in `cache`. A cache that
/// cannot be written costs the next build a run of Pagefind, nothing more.
fn keep(index: &Path, cache: &Path, kept: &Path) {
    if let Ok(entries) = std::fs::read_dir(cache) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let tmp = kept.with_extension(format!("tmp-{}", std::process::id()));
    if link_tree(index, &tmp).is_ok() && std::fs::rename(&tmp, kept).is_ok() {
        return;
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

fn run(indexer: &Path, site: &Path, into: &Path, limit: Duration) -> Result<(), Error> {
    let log = into.with_extension("log");
    let mut child = Command::new(indexer)
        .arg("--site")
        .arg(site)
        .arg("--output-path")
        .arg(into)
        .arg("--quiet")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // A file, not a pipe: a full pipe nobody reads would stop the indexer.
        .stderr(std::fs::File::create(&log).map_err(Error::Io)?)
        .spawn()
        .map_err(Error::Spawn)?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(Error::Io)? {
            Some(status) => break status,
            None if started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_file(&log);
                return Err(Error::TimedOut(limit));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    if status.success() && into.join("pagefind.js").is_file() {
        Ok(())
    } else {
        let status = if status.success() {
            " (it wrote no pagefind.js)".to_string()
        } else {
            format!(" ({status})")
        };
        Err(Error::Failed {
            status,
            output: output.trim().chars().take(2000).collect(),
        })
    }
}

/// Pagefind's ready-made interfaces: the site has its own.
fn leave_out_ui(index: &Path) {
    let Ok(entries) = std::fs::read_dir(index) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.contains("-ui.") || name == "pagefind-highlight.js" {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
