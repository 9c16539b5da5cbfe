//! What a build produced, read from esbuild's metafile: every output file by its
//! public URL, what each imports, and which source each entry came from. Saved
//! beside the outputs (`part.json`) so a cached part is read without esbuild.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::esbuild::Metafile;
use super::Error;
use crate::diagnostics::IoError;

/// What a chunk imports, by public URL.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Chunk {
    pub imports: Vec<String>,
    pub dynamic_imports: Vec<String>,
}

/// One build's outputs, in its folder.
#[derive(Debug, Default)]
pub struct Part {
    /// The hash of the build's inputs.
    pub hash: String,
    pub dir: PathBuf,
    /// Public URL → file.
    pub files: BTreeMap<String, PathBuf>,
    /// Public URL → what it imports.
    pub chunks: BTreeMap<String, Chunk>,
    /// Source path (`islands/Header.tsx`, `styles/main.css`) → public URL.
    pub entries: BTreeMap<String, String>,
    /// Gzip sizes of the scripts and stylesheets, computed once (`output::weight`).
    pub gzip_sizes: std::sync::OnceLock<BTreeMap<String, u64>>,
}

#[derive(Serialize, Deserialize)]
struct Saved {
    hash: String,
    files: Vec<String>,
    chunks: BTreeMap<String, Chunk>,
    entries: BTreeMap<String, String>,
}

const SAVED: &str = "part.json";

impl Part {
    /// The part a metafile describes. Output paths in it are relative to the site
    /// root and start with the output folder `out` (relative to the root too);
    /// what follows is the public path below `/assets/`.
    pub fn from_metafile(
        meta: &Metafile,
        hash: &str,
        dir: &Path,
        out: &str,
    ) -> Result<Part, Error> {
        let prefix = format!("{}/", out.trim_end_matches('/'));
        let url_of = |path: &str| -> Option<String> {
            let path = path.replace('\\', "/");
            path.strip_prefix(&prefix)
                .map(|rel| format!("/assets/{rel}"))
        };
        let mut part = Part {
            hash: hash.to_string(),
            dir: dir.to_path_buf(),
            ..Part::default()
        };
        for (path, info) in &meta.outputs {
            let url =
                url_of(path).ok_or_else(|| Error::Metafile(format!("unexpected output {path}")))?;
            if url.ends_with(".map") {
                continue;
            }
            let urls = |kind: &str| -> Vec<String> {
                info.imports
                    .iter()
                    .filter(|i| i.kind == kind && !i.external)
                    .filter_map(|i| url_of(&i.path))
                    .collect()
            };
            part.chunks.insert(
                url.clone(),
                Chunk {
                    imports: urls("import-statement"),
                    dynamic_imports: urls("dynamic-import"),
                },
            );
            if let Some(entry) = &info.entry_point {
                part.entries.insert(entry.clone(), url.clone());
            }
            part.files.insert(url.clone(), file_of(dir, &url));
        }
        Ok(part)
    }

    /// Writes `part.json` into the part's folder.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let saved = Saved {
            hash: self.hash.clone(),
            files: self.files.keys().cloned().collect(),
            chunks: self.chunks.clone(),
            entries: self.entries.clone(),
        };
        let text = serde_json::to_string(&saved).map_err(|e| Error::Metafile(e.to_string()))?;
        let path = dir.join(SAVED);
        std::fs::write(&path, text).map_err(|source| Error::Io(IoError { path, source }))
    }

    /// The part cached in `dir`, if it is whole.
    pub fn load(dir: &Path) -> Option<Part> {
        let text = std::fs::read_to_string(dir.join(SAVED)).ok()?;
        let saved: Saved = serde_json::from_str(&text).ok()?;
        Some(Part {
            hash: saved.hash,
            dir: dir.to_path_buf(),
            files: saved
                .files
                .into_iter()
                .map(|url| {
                    let file = file_of(dir, &url);
                    (url, file)
                })
                .collect(),
            chunks: saved.chunks,
            entries: saved.entries,
            gzip_sizes: std::sync::OnceLock::new(),
        })
    }

    /// Every chunk reachable from `url` through static imports, in a stable order:
    /// what a page must preload, and what it loads before an island can hydrate.
    pub fn static_closure(&self, roots: &[&str]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
        while let Some(u) = stack.pop() {
            if let Some(c) = self.chunks.get(&u) {
                for i in &c.imports {
                    if seen.insert(i.clone()) {
                        stack.push(i.clone());
                    }
                }
            }
        }
        seen
    }
}

fn file_of(dir: &Path, url: &str) -> PathBuf {
    dir.join(url.trim_start_matches("/assets/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(chunks: &[(&str, &[&str])]) -> Part {
        Part {
            chunks: chunks
                .iter()
                .map(|(url, imports)| {
                    (
                        url.to_string(),
                        Chunk {
                            imports: imports.iter().map(|s| s.to_string()).collect(),
                            dynamic_imports: Vec::new(),
                        },
                    )
                })
                .collect(),
            ..Part::default()
        }
    }

    #[test]
    fn the_static_closure_follows_imports_through_shared_chunks_once() {
        let p = part(&[
            ("/a.js", &["/shared.js", "/b.js"]),
            ("/b.js", &["/shared.js"]),
            ("/shared.js", &["/react.js"]),
            ("/react.js", &[]),
            ("/unrelated.js", &["/x.js"]),
        ]);
        let closure: Vec<String> = p.static_closure(&["/a.js"]).into_iter().collect();
        assert_eq!(closure, ["/b.js", "/react.js", "/shared.js"]);
    }

    #[test]
    fn outputs_get_their_public_urls() {
        let meta: Metafile = serde_json::from_str(
            r#"{"outputs": {
                ".site/bundle/x/islands/A-1.js": {"entryPoint": "islands/A.tsx", "imports": [{"path": ".site/bundle/x/chunks/c-2.js", "kind": "import-statement"}]},
                ".site/bundle/x/chunks/c-2.js": {"imports": []},
                ".site/bundle/x/islands/A-1.js.map": {"imports": []}
            }}"#,
        )
        .unwrap();
        let p = Part::from_metafile(&meta, "h", Path::new("/r/.site/bundle/x"), ".site/bundle/x")
            .unwrap();
        assert_eq!(p.entries["islands/A.tsx"], "/assets/islands/A-1.js");
        assert_eq!(
            p.chunks["/assets/islands/A-1.js"].imports,
            ["/assets/chunks/c-2.js"]
        );
        assert_eq!(
            p.files["/assets/chunks/c-2.js"],
            Path::new("/r/.site/bundle/x/chunks/c-2.js")
        );
        assert!(!p.files.keys().any(|u| u.ends_with(".map")));
    }
}
