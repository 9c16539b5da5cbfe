//! The bundle stage at work: which parts are cached, which esbuild builds (side
//! by side, in one request), and what `site serve` keeps between builds.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::esbuild::{self, Bundler, Kind, Spec};
use super::part_folders::{
    island_name, path_between, prepare_out, prune, scan, server_entry, write_if_changed, Inputs,
};
use super::toolchain::Toolchain;
use super::{io, Bundle, Error, Islands, Part, RUNTIME, SERVER};
use crate::diagnostics::{relative, Diagnostic};

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
    /// bundled with them when its file exists. `limit` is how long esbuild may
    /// take (site.yaml's `timeouts.bundle`, which the build reads).
    pub fn bundle(
        &mut self,
        root: &Path,
        extra: &[&str],
        limit: std::time::Duration,
    ) -> Result<Bundle, Error> {
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
            let lock = self.lock_hash(root);
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
                self.build(root, &specs, pending, limit)?;
            }
        }
        Ok(Bundle {
            styles: self.styles.clone().flatten(),
            islands: self.islands.clone().flatten(),
        })
    }

    /// A hash of what the bundle depends on besides the site's files: the options,
    /// the installed packages, and where they are from the root. esbuild names
    /// and comments its outputs by each module's path from the root, so a site
    /// whose packages are at the same place from it (moved, or a copy at the same
    /// depth) gets the same bundle, and its cache serves as it is.
    fn lock_hash(&self, root: &Path) -> String {
        let Some(tools) = &self.tools else {
            return String::new();
        };
        let mut h = blake3::Hasher::new();
        h.update(esbuild::OPTIONS_VERSION.as_bytes());
        // As esbuild resolves them: through links, to the real folders.
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        h.update(path_between(&real(root), &real(&tools.node_modules)).as_bytes());
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
    fn build(
        &mut self,
        root: &Path,
        specs: &[Spec],
        pending: Pending,
        limit: std::time::Duration,
    ) -> Result<(), Error> {
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
