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

pub mod esbuild;
mod metafile;
pub mod toolchain;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::{relative, Diagnostic, IoError};
use esbuild::{Bundler, Kind, Spec};
pub use metafile::{Chunk, Part};
use toolchain::Toolchain;

const RUNTIME: &str = "islands/runtime.ts";
const SERVER: &str = "islands/server.tsx";

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

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
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

/// What the bundle stage keeps between builds of `site serve`: each part until a
/// file of it changes, and the bundler with its incremental contexts.
#[derive(Default)]
pub struct Bundles {
    styles: Option<Option<Arc<Part>>>,
    islands: Option<Option<Arc<Islands>>>,
    bundler: Option<Bundler>,
    tools: Option<Toolchain>,
    /// Keep esbuild's contexts alive between builds (`site serve`).
    pub live: bool,
    /// Whether the last `bundle` call ran esbuild (else every part was cached).
    pub ran_esbuild: bool,
}

/// The inputs of a part, found on disk.
struct Inputs {
    hash: String,
    /// Entry points (relative to the root), or island names for the islands part.
    names: Vec<String>,
}

impl Bundles {
    /// A styles file changed: the styles part is looked at again.
    pub fn styles_changed(&mut self) {
        self.styles = None;
    }

    /// An islands file changed: the islands part is looked at again.
    pub fn islands_changed(&mut self) {
        self.islands = None;
    }

    /// Where the site's npm packages are, once the toolchain was needed.
    pub fn node_modules(&self) -> Option<&Path> {
        self.tools.as_ref().map(|t| t.node_modules.as_path())
    }

    /// The toolchain, once found.
    pub fn tools(&mut self, root: &Path) -> Result<&Toolchain, Error> {
        if self.tools.is_none() {
            self.tools = Some(Toolchain::find(root)?);
        }
        self.tools
            .as_ref()
            .ok_or(Error::Bundler("no toolchain".into()))
    }

    /// The site's bundle: cached parts as they are, the others from their cache
    /// folder or from esbuild. `extra` names browser entries under `islands/`
    /// the build adds beside the islands (the content editor's script), each
    /// bundled with them when its file exists.
    pub fn bundle(&mut self, root: &Path, extra: &[&str]) -> Result<Bundle, Error> {
        self.ran_esbuild = false;
        let want_styles = self.styles.is_none() && root.join("styles").is_dir();
        let want_islands = self.islands.is_none() && root.join("islands").is_dir();
        if !want_styles && self.styles.is_none() {
            self.styles = Some(None);
        }
        if !want_islands && self.islands.is_none() {
            self.islands = Some(None);
        }
        if want_styles || want_islands {
            self.tools(root)?;
            let lock = self.lock_hash();
            let mut specs = Vec::new();
            let mut pending = Pending::default();
            if want_styles {
                let inputs = scan(root, "styles", &lock, |name, depth| {
                    depth == 1 && name.ends_with(".css") && !name.starts_with('_')
                })?;
                match self.cached_or_spec(root, Kind::Styles, &inputs)? {
                    Cached::Hit(part) => self.styles = Some(Some(Arc::new(part))),
                    Cached::None => self.styles = Some(None),
                    Cached::Miss(spec, dir) => {
                        specs.push(spec);
                        pending.styles = Some((inputs, dir));
                    }
                }
            }
            if want_islands {
                // Islands are `islands/<Name>.tsx`: a capital first letter, no other dot.
                let inputs = scan(root, "islands", &lock, |name, depth| {
                    depth == 1
                        && name.ends_with(".tsx")
                        && name.matches('.').count() == 1
                        && name.starts_with(|c: char| c.is_ascii_uppercase())
                })?;
                let inputs = Inputs {
                    names: inputs
                        .names
                        .iter()
                        .map(|n| island_name(n).to_string())
                        .collect(),
                    ..inputs
                };
                match self.islands_cached_or_specs(root, &inputs, extra)? {
                    CachedIslands::Hit(islands) => self.islands = Some(Some(Arc::new(islands))),
                    CachedIslands::None => self.islands = Some(None),
                    CachedIslands::Miss(more, dir) => {
                        specs.extend(more);
                        pending.islands = Some((inputs, dir));
                    }
                }
            }
            if !specs.is_empty() {
                self.build(root, &specs, pending)?;
            }
        }
        Ok(Bundle {
            styles: self.styles.clone().flatten(),
            islands: self.islands.clone().flatten(),
        })
    }

    /// A hash of what the bundle depends on besides the site's files: the options
    /// and the installed packages.
    fn lock_hash(&self) -> String {
        let Some(tools) = &self.tools else {
            return String::new();
        };
        let mut h = blake3::Hasher::new();
        h.update(esbuild::OPTIONS_VERSION.as_bytes());
        for file in [
            "../package-lock.json",
            "esbuild/package.json",
            "react-dom/package.json",
        ] {
            if let Ok(bytes) = std::fs::read(tools.node_modules.join(file)) {
                h.update(file.as_bytes());
                h.update(&bytes);
            }
        }
        h.finalize().to_hex().to_string()
    }

    fn cache_dir(root: &Path, kind: &str, hash: &str) -> PathBuf {
        root.join(".site")
            .join("bundle")
            .join(format!("{kind}-{hash}"))
    }

    fn out_dir(&self, root: &Path, kind: &str, hash: &str) -> PathBuf {
        if self.live {
            root.join(".site")
                .join("bundle")
                .join(format!("{kind}-live"))
        } else {
            root.join(".site")
                .join("bundle")
                .join(format!("{kind}-{hash}.tmp-{}", std::process::id()))
        }
    }

    fn cached_or_spec(&self, root: &Path, kind: Kind, inputs: &Inputs) -> Result<Cached, Error> {
        if inputs.names.is_empty() {
            return Ok(Cached::None);
        }
        let dir = Self::cache_dir(root, kind.name(), &inputs.hash);
        if let Some(part) = Part::load(&dir) {
            return Ok(Cached::Hit(part));
        }
        let out = self.out_dir(root, kind.name(), &inputs.hash);
        prepare_out(&out, self.live)?;
        Ok(Cached::Miss(
            Spec {
                kind,
                entries: inputs.names.clone(),
                out: out.clone(),
            },
            out,
        ))
    }

    fn islands_cached_or_specs(
        &self,
        root: &Path,
        inputs: &Inputs,
        extra: &[&str],
    ) -> Result<CachedIslands, Error> {
        if inputs.names.is_empty() {
            return Ok(CachedIslands::None);
        }
        for f in [RUNTIME, SERVER] {
            if !root.join(f).is_file() {
                return Err(Error::MissingIslandFile(f));
            }
        }
        // Every island declares its props, so every `island()` call can be checked.
        let undeclared: Vec<Diagnostic> = inputs
            .names
            .iter()
            .filter(|n| !root.join(format!("islands/{n}.props.ts")).is_file())
            .map(|n| {
                Diagnostic::new(
                    format!("islands/{n}.tsx"),
                    format!(
                        "the island declares no props: add islands/{n}.props.ts exporting `props`, \
                         a schema of what templates pass it (zod: `export const props = z.strictObject({{…}})`); \
                         the build checks every island(\"{n}\", …) against it"
                    ),
                )
            })
            .collect();
        if !undeclared.is_empty() {
            return Err(Error::Esbuild(undeclared));
        }
        let dir = Self::cache_dir(root, "islands", &inputs.hash);
        if let Some(browser) = Part::load(&dir.join("browser")) {
            let server = dir.join("server.cjs");
            if server.is_file() {
                return Ok(CachedIslands::Hit(Islands {
                    browser,
                    server,
                    names: inputs.names.clone(),
                }));
            }
        }
        let out = self.out_dir(root, "islands", &inputs.hash);
        prepare_out(&out, self.live)?;
        let entry = root.join(".site").join("bundle").join("server-entry.tsx");
        write_if_changed(&entry, &server_entry(root, &inputs.names))?;
        let mut browser = vec![RUNTIME.to_string()];
        browser.extend(inputs.names.iter().map(|n| format!("islands/{n}.tsx")));
        // The entries the build adds (the content editor's script), bundled with
        // the islands they share React with; the output decides whether it keeps
        // their files. They are under `islands/`, so the part's hash covers them.
        for entry in extra {
            if root.join(entry).is_file() {
                browser.push(entry.to_string());
            }
        }
        Ok(CachedIslands::Miss(
            vec![
                Spec {
                    kind: Kind::Browser,
                    entries: browser,
                    out: out.join("browser"),
                },
                Spec {
                    kind: Kind::Server,
                    entries: vec![relative(&entry, root)],
                    out: out.join("server.cjs"),
                },
            ],
            out,
        ))
    }

    fn run_bundler(
        &mut self,
        root: &Path,
        specs: &[Spec],
        limit: std::time::Duration,
    ) -> Result<Vec<esbuild::Metafile>, Error> {
        if self.bundler.is_none() {
            let live = self.live;
            let tools = self.tools(root)?.clone();
            self.bundler = Some(Bundler::start(&tools, root, live)?);
        }
        let Some(bundler) = self.bundler.as_mut() else {
            return Err(Error::Bundler("no bundler".into()));
        };
        bundler.run(root, specs, limit)
    }

    /// Runs the builds a bundle needs, side by side, and takes their parts.
    fn build(&mut self, root: &Path, specs: &[Spec], pending: Pending) -> Result<(), Error> {
        let limit = crate::content::timeouts(root).bundle_limit();
        let mut result = self.run_bundler(root, specs, limit);
        // A process that died (killed, out of memory) is started anew, once.
        if matches!(result, Err(Error::BundlerStopped(_))) {
            self.bundler = None;
            result = self.run_bundler(root, specs, limit);
        }
        self.ran_esbuild = true;
        if matches!(result, Err(Error::Bundler(_) | Error::BundlerStopped(_))) || !self.live {
            // One-shot builds are done with the process; a dead one is started
            // again by the next build.
            self.bundler = None;
        }
        let metafiles = match result {
            Ok(m) => m,
            Err(e) => {
                if !self.live {
                    for (_, out) in pending.styles.iter().chain(pending.islands.iter()) {
                        let _ = std::fs::remove_dir_all(out);
                    }
                }
                return Err(e);
            }
        };
        let mut metas = metafiles.into_iter();
        let mut next = || {
            metas
                .next()
                .ok_or(Error::Bundler("a build gave no result".into()))
        };
        if let Some((inputs, out)) = pending.styles {
            let meta = next()?;
            let dir = self.final_dir(root, "styles", &inputs.hash, &out);
            let part = Part::from_metafile(&meta, &inputs.hash, &dir, &relative(&out, root))?;
            part.save(&out)?;
            self.commit(root, "styles", &inputs.hash, &out)?;
            self.styles = Some(Some(Arc::new(part)));
        }
        if let Some((inputs, out)) = pending.islands {
            let browser_meta = next()?;
            next()?; // the server build: one file, server.cjs
            let dir = self.final_dir(root, "islands", &inputs.hash, &out);
            let written = relative(&out.join("browser"), root);
            let browser =
                Part::from_metafile(&browser_meta, &inputs.hash, &dir.join("browser"), &written)?;
            browser.save(&out.join("browser"))?;
            self.commit(root, "islands", &inputs.hash, &out)?;
            self.islands = Some(Some(Arc::new(Islands {
                browser,
                server: dir.join("server.cjs"),
                names: inputs.names,
            })));
        }
        Ok(())
    }

    fn final_dir(&self, root: &Path, kind: &str, hash: &str, out: &Path) -> PathBuf {
        if self.live {
            out.to_path_buf()
        } else {
            Self::cache_dir(root, kind, hash)
        }
    }

    /// Moves a one-shot build's folder, whole, to its cache place, and drops the
    /// older ones.
    fn commit(&self, root: &Path, kind: &str, hash: &str, out: &Path) -> Result<(), Error> {
        if self.live {
            return Ok(());
        }
        let dir = Self::cache_dir(root, kind, hash);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::rename(out, &dir).map_err(io(&dir))?;
        prune(&root.join(".site").join("bundle"), kind, hash);
        Ok(())
    }
}

#[derive(Default)]
struct Pending {
    styles: Option<(Inputs, PathBuf)>,
    islands: Option<(Inputs, PathBuf)>,
}

enum Cached {
    Hit(Part),
    None,
    Miss(Spec, PathBuf),
}

enum CachedIslands {
    Hit(Islands),
    None,
    Miss(Vec<Spec>, PathBuf),
}

fn prepare_out(out: &Path, live: bool) -> Result<(), Error> {
    if !live {
        let _ = std::fs::remove_dir_all(out);
    }
    std::fs::create_dir_all(out).map_err(io(out))
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::write(path, text).map_err(io(path))
}

/// `islands/Header.tsx` → `Header`.
fn island_name(rel: &str) -> &str {
    rel.rsplit('/')
        .next()
        .unwrap_or(rel)
        .trim_end_matches(".tsx")
}

/// Hashes every file under `root/dir` (and `lock`, the packages), and lists the
/// files `entry(name, depth)` picks, relative to the root and sorted.
fn scan(
    root: &Path,
    dir: &str,
    lock: &str,
    entry: impl Fn(&str, usize) -> bool,
) -> Result<Inputs, Error> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(lock.as_bytes());
    hasher.update(root.to_string_lossy().as_bytes());
    let base = root.join(dir);
    let mut names = Vec::new();
    for e in walkdir::WalkDir::new(&base).sort_by_file_name() {
        let e = e.map_err(|err| io(&base)(err.into()))?;
        if !e.file_type().is_file() {
            continue;
        }
        let rel = relative(e.path(), root);
        let bytes = std::fs::read(e.path()).map_err(io(e.path()))?;
        hasher.update(rel.as_bytes());
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        let name = e.file_name().to_string_lossy();
        if !name.contains(".test.") && entry(&name, e.depth()) {
            names.push(rel);
        }
    }
    Ok(Inputs {
        hash: hasher.finalize().to_hex()[..16].to_string(),
        names,
    })
}

/// Keeps the cache of `kind` to its current part: older ones are never used again.
fn prune(cache: &Path, kind: &str, keep: &str) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    let current = format!("{kind}-{keep}");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let ours = name.starts_with(&format!("{kind}-"));
        if ours && name != current && !name.contains(".tmp-") && !name.ends_with("-live") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The Node entry: the site's `render` (`islands/server.tsx`) and every island with
/// the props schema it declares in `islands/<Name>.props.ts`, as a module for the
/// server-render process to load.
fn server_entry(root: &Path, islands: &[String]) -> String {
    let path =
        |rel: &str| serde_json::to_string(&root.join(rel).to_string_lossy()).unwrap_or_default();
    let mut src = format!("export {{ render }} from {};\n", path(SERVER));
    let mut table = Vec::new();
    for island in islands {
        src.push_str(&format!(
            "import {island} from {};\nimport {{ props as {island}Props }} from {};\n",
            path(&format!("islands/{island}.tsx")),
            path(&format!("islands/{island}.props.ts")),
        ));
        table.push(format!(
            "{island}: {{ component: {island}, props: {island}Props }}"
        ));
    }
    src.push_str(&format!(
        "export const islands = {{ {} }};\n",
        table.join(", ")
    ));
    src
}
