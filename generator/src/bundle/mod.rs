//! The bundle stage. esbuild builds two parts, each hashed and cached on its own
//! under `.site/bundle/`, so an edit to one never rebuilds the other:
//! - **styles**: every `styles/*.css` that is not a partial (`_name.css`);
//! - **islands**: every `islands/<Name>.tsx` and the hydration runtime for the
//!   browser (ESM, code splitting, a chunk per island), plus the server-render
//!   bundle for Node.
//!
//! Names are content-hashed and a metafile records what each output imports. An
//! unchanged part is read from its cache without starting esbuild; `site serve`
//! keeps esbuild's incremental contexts alive, so a changed part is rebuilt in
//! milliseconds.
//!
//! This file is what the stage gives (a [`Bundle`]); the stage at work, and what
//! `site serve` keeps of it, is `bundles.rs`; the folders it reads and writes,
//! `part_folders.rs`.

mod bundles;
pub mod esbuild;
mod metafile;
mod part_folders;
pub mod toolchain;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::{Diagnostic, IoError};
pub use bundles::Bundles;
pub use metafile::{Chunk, Part};

pub(super) const RUNTIME: &str = "islands/runtime.ts";
pub(super) const SERVER: &str = "islands/server.tsx";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("esbuild failed")]
    Esbuild(Vec<Diagnostic>),
    #[error("esbuild's metafile could not be read: {0}")]
    Metafile(String),
    #[error("{0}")]
    Bundler(String),
    /// The bundler's process ended mid-run; a new one may succeed.
    #[error("the bundler stopped unexpectedly{0}")]
    BundlerStopped(String),
    #[error(transparent)]
    Toolchain(#[from] toolchain::Error),
    #[error("islands/ has islands but no {0}")]
    MissingIslandFile(&'static str),
}

impl Error {
    pub fn into_diagnostics(self, root: &Path) -> Vec<Diagnostic> {
        match self {
            Error::Esbuild(d) => d,
            Error::Io(e) => vec![e.diagnostic(root)],
            Error::Toolchain(e) => vec![Diagnostic::new("node_modules/", e.to_string())],
            Error::MissingIslandFile(f) => vec![Diagnostic::new(
                f,
                "missing: every site with islands needs the hydration runtime and the server-render entry",
            )],
            other => vec![Diagnostic::new("islands/", other.to_string())],
        }
    }
}

pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io(IoError::at(path)(source))
}

/// The islands part: the browser build, the server-render bundle, the names.
#[derive(Debug)]
pub struct Islands {
    pub browser: Part,
    pub server: PathBuf,
    pub names: Vec<String>,
}

/// An island's browser entry and every chunk it imports statically.
#[derive(Debug, Clone)]
pub struct Entry {
    pub url: String,
    pub preload: Vec<String>,
}

/// Both parts of a site's bundle (either may be absent).
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    pub styles: Option<Arc<Part>>,
    pub islands: Option<Arc<Islands>>,
}

impl Bundle {
    /// The hash that keys server renders: only the islands' (a style edit keeps them).
    pub fn islands_hash(&self) -> &str {
        self.islands
            .as_ref()
            .map_or("none", |i| i.browser.hash.as_str())
    }

    /// Both parts' hashes: whatever a page's HTML may refer to.
    pub fn hash(&self) -> String {
        format!(
            "{}+{}",
            self.styles.as_ref().map_or("none", |s| s.hash.as_str()),
            self.islands_hash()
        )
    }

    fn parts(&self) -> impl Iterator<Item = &Part> {
        self.styles
            .as_deref()
            .into_iter()
            .chain(self.islands.as_deref().map(|i| &i.browser))
    }

    /// Every output file: public URL → file.
    pub fn files(&self) -> impl Iterator<Item = (&String, &PathBuf)> {
        self.parts().flat_map(|p| p.files.iter())
    }

    /// The public URL of a bundled source (`styles/main.css`).
    pub fn entry_url(&self, source: &str) -> Option<&str> {
        self.parts()
            .find_map(|p| p.entries.get(source).map(String::as_str))
    }

    /// The web fonts the stylesheets load (`/assets/media/*.woff2`), which every
    /// page preloads.
    pub fn fonts(&self) -> Vec<&str> {
        self.styles
            .as_deref()
            .map(|p| {
                p.files
                    .keys()
                    .filter(|u| u.ends_with(".woff2"))
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn island_names(&self) -> &[String] {
        self.islands.as_ref().map_or(&[], |i| i.names.as_slice())
    }

    /// An island's browser entry with what it imports statically.
    pub fn island(&self, name: &str) -> Option<Entry> {
        self.entry(&format!("islands/{name}.tsx"))
    }

    /// The files of the bundle only the entry `source` uses (an entry the
    /// build added beside the islands): neither an island nor the runtime loads
    /// them.
    pub fn only_of(&self, source: &str) -> std::collections::BTreeSet<String> {
        let Some(only) = self.entry(source) else {
            return Default::default();
        };
        let mut used = std::collections::BTreeSet::new();
        let others = self
            .islands
            .iter()
            .flat_map(|i| i.names.iter().map(|n| format!("islands/{n}.tsx")))
            .chain(std::iter::once(RUNTIME.to_string()));
        for source in others {
            if let Some(entry) = self.entry(&source) {
                used.insert(entry.url);
                used.extend(entry.preload);
            }
        }
        std::iter::once(only.url)
            .chain(only.preload)
            .filter(|url| !used.contains(url))
            .collect()
    }

    /// The hydration runtime, when the site has islands.
    pub fn runtime(&self) -> Option<Entry> {
        self.entry(RUNTIME)
    }

    fn entry(&self, source: &str) -> Option<Entry> {
        let part = &self.islands.as_ref()?.browser;
        let url = part.entries.get(source)?.clone();
        let preload = part.static_closure(&[&url]).into_iter().collect();
        Some(Entry { url, preload })
    }

    /// A chunk's imports, in whichever part it is.
    pub fn chunk(&self, url: &str) -> Option<&Chunk> {
        self.parts().find_map(|p| p.chunks.get(url))
    }

    /// The server-render bundle, when the site has islands.
    pub fn server(&self) -> Option<&Path> {
        self.islands.as_ref().map(|i| i.server.as_path())
    }
}
