//! Server rendering of islands: one long-lived Node process runs the server bundle
//! and answers `{island, props}` lines with React's `renderToString` HTML.
//!
//! Renders are memoised by (bundle hash, island, props) in memory and on disk
//! (`.site/cache/ssr-<bundle hash>.json`), so a header that differs only by its
//! active link renders once per link, and an unchanged site starts no Node at all.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("there is no server bundle: the site has no islands")]
    NoBundle,
    #[error("could not start Node ({node}): {source}")]
    Spawn {
        node: PathBuf,
        source: std::io::Error,
    },
    #[error("the server-render process stopped unexpectedly{0}")]
    Died(String),
    #[error("island `{island}` failed to render: {message}")]
    Island { island: String, message: String },
    #[error("island `{island}` was given props that islands/{island}.props.ts does not allow:{}", problems.iter().map(|p| format!("\n  - {p}")).collect::<String>())]
    InvalidProps {
        island: String,
        problems: Vec<String>,
    },
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin ends the render loop; kill covers a process that hangs.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Renderer {
    node: PathBuf,
    /// Where the bundle's packages (React) are loaded from.
    node_modules: Option<PathBuf>,
    /// The site root: the process's working folder, for paths in its errors.
    root: PathBuf,
    bundle: Option<PathBuf>,
    bundle_hash: String,
    cache_dir: PathBuf,
    process: Mutex<Option<Process>>,
    memo: Mutex<HashMap<String, Arc<str>>>,
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
        node: &Path,
        node_modules: Option<&Path>,
        bundle: Option<&Path>,
        bundle_hash: &str,
        root: &Path,
    ) -> Renderer {
        let cache_dir = root.join(".site").join("cache");
        let memo = load_memo(&cache_dir.join(format!("ssr-{bundle_hash}.json")));
        Renderer {
            node: node.to_path_buf(),
            node_modules: node_modules.map(Path::to_path_buf),
            root: root.to_path_buf(),
            bundle: bundle.map(Path::to_path_buf),
            bundle_hash: bundle_hash.to_string(),
            cache_dir,
            process: Mutex::new(None),
            saved: AtomicUsize::new(memo.len()),
            memo: Mutex::new(memo),
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
        let memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        let html = memo.get(key).cloned();
        if html.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        html
    }

    /// Server HTML of `island` with `props_json` (a JSON object).
    pub fn render(&self, island: &str, props_json: &str) -> Result<Arc<str>, Error> {
        let key = self.key(island, props_json);
        if let Some(html) = self.memoised(&key) {
            return Ok(html);
        }
        let mut process = self.process.lock().unwrap_or_else(PoisonError::into_inner);
        // Another page may have rendered the same island while this one waited.
        if let Some(html) = self.memoised(&key) {
            return Ok(html);
        }
        if process.is_none() {
            *process = Some(self.spawn()?);
        }
        let result = process
            .as_mut()
            .map(|p| exchange(p, island, props_json))
            .unwrap_or_else(|| Err(Error::Died(String::new())));
        let html: Arc<str> = match result {
            Ok(html) => html.into(),
            Err(e) => {
                if matches!(e, Error::Died(_)) {
                    *process = None;
                }
                return Err(e);
            }
        };
        self.rendered.fetch_add(1, Ordering::Relaxed);
        self.memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, html.clone());
        Ok(html)
    }

    fn spawn(&self) -> Result<Process, Error> {
        let bundle = self.bundle.as_ref().ok_or(Error::NoBundle)?;
        let mut command = Command::new(&self.node);
        if let Some(modules) = &self.node_modules {
            command.env("NODE_PATH", modules);
        }
        // Errors are reported at the island's own line through the source map.
        let mut child = command
            .arg("--enable-source-maps")
            .arg(bundle)
            .current_dir(&self.root)
            .env("NODE_ENV", "production")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| Error::Spawn {
                node: self.node.clone(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Died(": no pipes to Node".into()));
        };
        Ok(Process {
            child,
            stdin,
            stdout: BufReader::new(stdout),
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

fn exchange(p: &mut Process, island: &str, props_json: &str) -> Result<String, Error> {
    let props = serde_json::value::RawValue::from_string(props_json.to_string()).map_err(|e| {
        Error::Island {
            island: island.to_string(),
            message: format!("props are not JSON: {e}"),
        }
    })?;
    let mut line = serde_json::to_string(&Request {
        island,
        props: &props,
    })
    .map_err(|e| Error::Died(format!(": {e}")))?;
    line.push('\n');
    p.stdin
        .write_all(line.as_bytes())
        .and_then(|_| p.stdin.flush())
        .map_err(|e| Error::Died(format!(": {e}")))?;
    let mut reply = String::new();
    match p.stdout.read_line(&mut reply) {
        Ok(0) | Err(_) => return Err(Error::Died(String::new())),
        Ok(_) => {}
    }
    let reply: Reply = serde_json::from_str(&reply)
        .map_err(|e| Error::Died(format!(": unreadable reply ({e})")))?;
    match (reply.html, reply.invalid, reply.error) {
        (Some(html), None, None) => Ok(html),
        (_, Some(problems), _) => Err(Error::InvalidProps {
            island: island.to_string(),
            problems,
        }),
        (_, _, error) => Err(Error::Island {
            island: island.to_string(),
            message: error.unwrap_or_else(|| "no HTML in the reply".into()),
        }),
    }
}

fn load_memo(path: &Path) -> HashMap<String, Arc<str>> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<HashMap<String, String>>(&t).ok())
        .map(|m| m.into_iter().map(|(k, v)| (k, v.into())).collect())
        .unwrap_or_default()
}
