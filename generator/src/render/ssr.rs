//! Server rendering of islands: one long-lived Node process (`ssr-process.cjs`)
//! loads the server bundle and answers `{island, props}` lines with the island's
//! HTML, after checking the props against the island's schema. The process, a
//! [`Worker`], outlives bundles: when the islands change it loads the new bundle
//! and keeps React loaded.
//!
//! Renders are memoised by (bundle hash, island, props) in memory and on disk
//! (`.site/cache/ssr-<bundle hash>.json`), so a header that differs only by its
//! active link renders once per link, and an unchanged site starts no Node at all.
//!
//! A render has a time limit (`timeouts.render` of site.yaml): an island that does
//! not answer in time has its process stopped and fails the page, and every later
//! page that shows it fails at once instead of waiting again. A process that dies
//! is started anew and the render tried once more.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::json_lines::{self, Process};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("there is no server bundle: the site has no islands")]
    NoBundle,
    #[error("could not start Node ({node}): {source}")]
    Spawn {
        node: PathBuf,
        source: std::io::Error,
    },
    #[error("the server-render process stopped unexpectedly{how} while rendering island `{island}`, and again when started anew")]
    Died { island: String, how: String },
    #[error("island `{island}` did not finish rendering within {} (on this page or an earlier one), so it was stopped: look in islands/{island}.tsx for a loop that never ends or a wait that never finishes (`timeouts.render` in content/site.yaml sets the limit)", json_lines::seconds(*limit))]
    TimedOut { island: String, limit: Duration },
    #[error("island `{island}` failed to render: {message}")]
    Island { island: String, message: String },
    #[error("island `{island}` was given props that islands/{island}.props.ts does not allow:{}", problems.iter().map(|p| format!("\n  - {p}")).collect::<String>())]
    InvalidProps {
        island: String,
        problems: Vec<String>,
    },
}

const PROCESS: &str = include_str!("ssr-process.cjs");

/// The Node process and the bundle it has loaded (by hash: serve rebuilds in
/// place), shared by the renderers of successive bundles.
#[derive(Default)]
pub struct Worker {
    running: Mutex<Option<(Process, String)>>,
}

pub struct Renderer {
    worker: Arc<Worker>,
    node: PathBuf,
    /// Where the bundle's packages (React) are loaded from.
    node_modules: Option<PathBuf>,
    /// The site root: the process's working folder, for paths in its errors.
    root: PathBuf,
    bundle: Option<PathBuf>,
    bundle_hash: String,
    cache_dir: PathBuf,
    memo: Mutex<HashMap<String, Arc<str>>>,
    /// How long one render may take, in milliseconds.
    limit_ms: AtomicU64,
    /// Islands whose render ran out of time with this bundle.
    stuck: Mutex<HashSet<String>>,
    saved: AtomicUsize,
    rendered: AtomicUsize,
    reused: AtomicUsize,
}

#[derive(Serialize)]
struct Request<'a> {
    island: &'a str,
    props: &'a serde_json::value::RawValue,
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    invalid: Option<Vec<String>>,
    #[serde(default)]
    error: Option<String>,
}

/// How many renders a build did, and how many it took from the memo.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub rendered: usize,
    pub reused: usize,
}

impl Renderer {
    pub fn bundle_hash(&self) -> &str {
        &self.bundle_hash
    }

    pub fn new(
        worker: Arc<Worker>,
        node: &Path,
        node_modules: Option<&Path>,
        bundle: Option<&Path>,
        bundle_hash: &str,
        root: &Path,
    ) -> Renderer {
        let cache_dir = root.join(".site").join("cache");
        let memo = load_memo(&cache_dir.join(format!("ssr-{bundle_hash}.json")));
        Renderer {
            worker,
            node: node.to_path_buf(),
            node_modules: node_modules.map(Path::to_path_buf),
            root: root.to_path_buf(),
            bundle: bundle.map(Path::to_path_buf),
            bundle_hash: bundle_hash.to_string(),
            cache_dir,
            saved: AtomicUsize::new(memo.len()),
            memo: Mutex::new(memo),
            limit_ms: AtomicU64::new(10_000),
            stuck: Mutex::new(HashSet::new()),
            rendered: AtomicUsize::new(0),
            reused: AtomicUsize::new(0),
        }
    }

    /// The renders since the last call (one build's).
    pub fn take_stats(&self) -> Stats {
        Stats {
            rendered: self.rendered.swap(0, Ordering::Relaxed),
            reused: self.reused.swap(0, Ordering::Relaxed),
        }
    }

    fn key(&self, island: &str, props_json: &str) -> String {
        let mut h = blake3::Hasher::new();
        for part in [self.bundle_hash.as_str(), island, props_json] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }

    fn memoised(&self, key: &str) -> Option<Arc<str>> {
        let memo = lock(&self.memo);
        let html = memo.get(key).cloned();
        if html.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        html
    }

    /// How long one render may take from now on (site.yaml may change it between
    /// two builds of `site serve`).
    pub fn set_limit(&self, limit: Duration) {
        let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX).max(1);
        if self.limit_ms.swap(ms, Ordering::Relaxed) != ms {
            lock(&self.stuck).clear();
        }
    }

    fn limit(&self) -> Duration {
        Duration::from_millis(self.limit_ms.load(Ordering::Relaxed))
    }

    /// Server HTML of `island` with `props_json` (a JSON object).
    pub fn render(&self, island: &str, props_json: &str) -> Result<Arc<str>, Error> {
        let key = self.key(island, props_json);
        if let Some(html) = self.memoised(&key) {
            return Ok(html);
        }
        let bundle = self.bundle.as_ref().ok_or(Error::NoBundle)?;
        let mut running = lock(&self.worker.running);
        // Another page may have rendered the same island while this one waited.
        if let Some(html) = self.memoised(&key) {
            return Ok(html);
        }
        let limit = self.limit();
        let timed_out = || Error::TimedOut {
            island: island.to_string(),
            limit,
        };
        if lock(&self.stuck).contains(island) {
            return Err(timed_out());
        }
        let mut died_before = false;
        let html: Arc<str> = loop {
            match self.attempt(&mut running, bundle, island, props_json, limit) {
                Ok(html) => break html.into(),
                Err(Failure::Died(how)) => {
                    *running = None;
                    if died_before {
                        return Err(Error::Died {
                            island: island.to_string(),
                            how,
                        });
                    }
                    died_before = true;
                }
                Err(Failure::TimedOut) => {
                    *running = None;
                    lock(&self.stuck).insert(island.to_string());
                    return Err(timed_out());
                }
                Err(Failure::Failed(e)) => return Err(e),
            }
        };
        self.rendered.fetch_add(1, Ordering::Relaxed);
        lock(&self.memo).insert(key, html.clone());
        Ok(html)
    }

    /// One try: starts the process and loads the bundle when needed, then renders.
    fn attempt(
        &self,
        running: &mut MutexGuard<'_, Option<(Process, String)>>,
        bundle: &Path,
        island: &str,
        props_json: &str,
        limit: Duration,
    ) -> Result<String, Failure> {
        if running.is_none() {
            **running = Some((self.spawn().map_err(Failure::Failed)?, String::new()));
        }
        let Some((process, loaded)) = running.as_mut() else {
            return Err(Failure::Died(String::new()));
        };
        if *loaded != self.bundle_hash {
            load(process, bundle, limit.max(LOAD_AT_LEAST))?;
            loaded.clone_from(&self.bundle_hash);
        }
        exchange(process, island, props_json, limit)
    }

    fn spawn(&self) -> Result<Process, Error> {
        let mut command = Command::new(&self.node);
        if let Some(modules) = &self.node_modules {
            command.env("NODE_PATH", modules);
        }
        // Errors are reported at the island's own line through the source map.
        command
            .arg("--enable-source-maps")
            .arg("--eval")
            .arg(PROCESS)
            .current_dir(&self.root)
            .env("NODE_ENV", "production");
        Process::spawn(command).map_err(|e| match e {
            json_lines::Error::Spawn { source, .. } => Error::Spawn {
                node: self.node.clone(),
                source,
            },
            other => Error::Island {
                island: "(all)".into(),
                message: format!("the server-render process did not start: {other}"),
            },
        })
    }

    /// Writes the memo for the next build when this one added to it.
    pub fn save(&self) {
        let memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        if memo.len() == self.saved.swap(memo.len(), Ordering::Relaxed) {
            return;
        }
        let file = self
            .cache_dir
            .join(format!("ssr-{}.json", self.bundle_hash));
        let sorted: std::collections::BTreeMap<&str, &str> =
            memo.iter().map(|(k, v)| (k.as_str(), &**v)).collect();
        if std::fs::create_dir_all(&self.cache_dir).is_err() {
            return;
        }
        if let Ok(text) = serde_json::to_string(&sorted) {
            let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &file);
            }
        }
        // Memos of older bundles can never match again.
        if let Ok(entries) = std::fs::read_dir(&self.cache_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if name.starts_with("ssr-") && entry.path() != file {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }
}

#[derive(Serialize)]
struct Load<'a> {
    load: &'a Path,
}

/// Why one try did not render.
enum Failure {
    /// The process ended; a new one may succeed.
    Died(String),
    /// No answer in time; the process was stopped.
    TimedOut,
    /// An answer that is the island's (or the bundle's) own error.
    Failed(Error),
}

impl From<json_lines::Error> for Failure {
    fn from(e: json_lines::Error) -> Failure {
        match e {
            json_lines::Error::TimedOut(_) => Failure::TimedOut,
            json_lines::Error::Stopped(how) => Failure::Died(how),
            other => Failure::Died(format!(": {other}")),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// However short the render limit (`timeouts.render`), a server bundle has this
/// long to load: loading every island's module is not one island's render, and
/// takes longer on a busy machine.
const LOAD_AT_LEAST: Duration = Duration::from_secs(10);

/// Has the process load a server bundle.
fn load(p: &mut Process, bundle: &Path, limit: Duration) -> Result<(), Failure> {
    let reply: Reply = match p.exchange(&Load { load: bundle }, limit) {
        Ok(reply) => reply,
        Err(json_lines::Error::TimedOut(limit)) => {
            return Err(Failure::Failed(Error::Island {
                island: "(all)".into(),
                message: format!(
                    "the server bundle did not load within {}: look for code that runs forever \
                     at the top of a module of islands/",
                    json_lines::seconds(limit)
                ),
            }))
        }
        Err(e) => return Err(e.into()),
    };
    match reply.error {
        None => Ok(()),
        Some(message) => Err(Failure::Failed(Error::Island {
            island: "(all)".into(),
            message: format!("the server bundle did not load: {message}"),
        })),
    }
}

fn exchange(
    p: &mut Process,
    island: &str,
    props_json: &str,
    limit: Duration,
) -> Result<String, Failure> {
    let props = serde_json::value::RawValue::from_string(props_json.to_string()).map_err(|e| {
        Failure::Failed(Error::Island {
            island: island.to_string(),
            message: format!("props are not JSON: {e}"),
        })
    })?;
    let reply: Reply = p.exchange(
        &Request {
            island,
            props: &props,
        },
        limit,
    )?;
    match (reply.html, reply.invalid, reply.error) {
        (Some(html), None, None) => Ok(html),
        (_, Some(problems), _) => Err(Failure::Failed(Error::InvalidProps {
            island: island.to_string(),
            problems,
        })),
        (_, _, error) => Err(Failure::Failed(Error::Island {
            island: island.to_string(),
            message: error.unwrap_or_else(|| "no HTML in the reply".into()),
        })),
    }
}

fn load_memo(path: &Path) -> HashMap<String, Arc<str>> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<HashMap<String, String>>(&t).ok())
        .map(|m| m.into_iter().map(|(k, v)| (k, v.into())).collect())
        .unwrap_or_default()
}
