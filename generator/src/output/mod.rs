//! The write stage. `site build` writes into a [`Staging`] folder beside the
//! output, pages as soon as each is rendered (in the render stage's parallel
//! pass), then everything else, and swaps it in whole: a failed build never
//! leaves a half-written site. Every file is recorded in [`Files`] (a path written
//! twice is an error). In `site serve`, only the files that changed are replaced
//! in place.

pub mod calendar;
pub mod collect;
pub mod compress;
pub mod feed;
pub mod headers;
pub mod hosts;
pub mod redirects;
pub mod search;
pub mod sitemap;
mod swap;
pub mod weight;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::diagnostics::IoError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("{0} is written twice: by {1} and by {2}")]
    Collision(String, String, String),
    #[error(transparent)]
    Search(#[from] search::Error),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::Io(IoError::at(path)(e))
}

/// Where a file's bytes come from.
#[derive(Debug)]
pub enum Source {
    Bytes(Vec<u8>),
    /// A rendered page and the hash of its HTML.
    Html(Arc<str>, blake3::Hash),
    Copy(PathBuf),
    /// A file that never changes (the bundle cache): hard-linked where possible.
    /// Files an editor may change in place (`public/`) are copied instead, so the
    /// previous output can never change through a link.
    Immutable(PathBuf),
    /// A page already written into the staging folder as it was rendered: its size.
    Written(u64),
}

impl Source {
    /// What identifies this version of the file, without reading files.
    fn fingerprint(&self) -> [u8; 32] {
        match self {
            Source::Bytes(bytes) => *blake3::hash(bytes).as_bytes(),
            Source::Html(_, hash) => *hash.as_bytes(),
            Source::Copy(path) => {
                let mut h = blake3::Hasher::new();
                h.update(path.to_string_lossy().as_bytes());
                if let Some(f) = crate::content::Fingerprint::of(path) {
                    h.update(format!("{f:?}").as_bytes());
                }
                *h.finalize().as_bytes()
            }
            Source::Immutable(path) => *blake3::hash(path.to_string_lossy().as_bytes()).as_bytes(),
            // Only `site build` writes pages as they render; it compares nothing.
            Source::Written(size) => *blake3::hash(&size.to_le_bytes()).as_bytes(),
        }
    }

    /// Writes the file at `path`; the number of bytes.
    fn write_to(&self, path: &Path) -> Result<u64, Error> {
        match self {
            Source::Bytes(bytes) => write_file(path, bytes),
            Source::Html(html, _) => write_file(path, html.as_bytes()),
            Source::Copy(from) => in_folder(path, || std::fs::copy(from, path)).map_err(io(from)),
            Source::Immutable(from) => match in_folder(path, || std::fs::hard_link(from, path)) {
                Ok(()) => std::fs::metadata(path).map(|m| m.len()).map_err(io(from)),
                Err(_) => std::fs::copy(from, path).map_err(io(from)),
            },
            Source::Written(size) => Ok(*size),
        }
    }
}

/// Does `make` (which creates `path`), making `path`'s folder first if it is
/// missing: a folder costs one call, made by whichever of its files comes first.
fn in_folder<T>(path: &Path, make: impl Fn() -> std::io::Result<T>) -> std::io::Result<T> {
    match make() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            make()
        }
        other => other,
    }
}

/// Writes `bytes` at `path`, making its folder when it is missing.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<u64, Error> {
    in_folder(path, || std::fs::write(path, bytes)).map_err(io(path))?;
    Ok(bytes.len() as u64)
}

/// Writes a page at `path`, making its folder first: a page's folder is its
/// own (`posts/<slug>/index.html`), so it is almost always new, and making it
/// first spares the open that would fail.
pub fn write_page(path: &Path, bytes: &[u8]) -> Result<u64, Error> {
    if let Some(parent) = path.parent() {
        match std::fs::create_dir(parent) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(_) => std::fs::create_dir_all(parent).map_err(io(parent))?,
        }
    }
    std::fs::write(path, bytes).map_err(io(path))?;
    Ok(bytes.len() as u64)
}

/// A new output being written beside the old one, swapped in by [`Staging::commit`]
/// and removed if the build stops before.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    out: PathBuf,
    committed: bool,
}

impl Staging {
    /// An empty folder beside `out`.
    pub fn new(out: &Path) -> Result<Staging, Error> {
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "dist".into());
        let dir = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
        }
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        Ok(Staging {
            dir,
            out: out.to_path_buf(),
            committed: false,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `files` (those not written yet), completes the output with `finish`
    /// (the search index) and puts it in the place of the old. The bytes of the
    /// files written here.
    pub fn commit(
        mut self,
        files: &Files,
        finish: &dyn Fn(&Path) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let entries: Vec<(&String, &Source)> = files.iter().collect();
        let bytes = write_entries(&self.dir, &entries)?;
        finish(&self.dir)?;
        swap::swap(&self.dir, &self.out)?;
        self.committed = true;
        Ok(bytes)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Everything that goes into the output, keyed by its path in the output.
#[derive(Debug, Default)]
pub struct Files {
    files: BTreeMap<String, (Source, Origin)>,
}

/// Where a file came from, for the message when two claim one path.
#[derive(Debug)]
enum Origin {
    /// A rendered page (named by its address when needed: a site has many).
    Page,
    Named(String),
}

impl Origin {
    fn describe(&self, path: &str) -> String {
        match self {
            Origin::Page => match path.strip_suffix("index.html") {
                Some(folder) => format!("page /{folder}"),
                None => format!("page {path}"),
            },
            Origin::Named(name) => name.clone(),
        }
    }
}

impl Files {
    /// Adds a file; `origin` says where it came from, for collision messages.
    pub fn add(&mut self, path: String, source: Source, origin: &str) -> Result<(), Error> {
        self.insert(path, source, Origin::Named(origin.to_string()))
    }

    /// Adds the page at `route`.
    pub fn add_page(&mut self, route: &str, source: Source) -> Result<(), Error> {
        self.insert(route_file(route), source, Origin::Page)
    }

    fn insert(&mut self, path: String, source: Source, origin: Origin) -> Result<(), Error> {
        match self.files.entry(path) {
            std::collections::btree_map::Entry::Occupied(taken) => Err(Error::Collision(
                taken.key().clone(),
                taken.get().1.describe(taken.key()),
                origin.describe(taken.key()),
            )),
            std::collections::btree_map::Entry::Vacant(free) => {
                free.insert((source, origin));
                Ok(())
            }
        }
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// The top-level files and folders (`true`) the output has so far.
    pub fn top_level(&self) -> Vec<(String, bool)> {
        let mut top: Vec<(String, bool)> = Vec::new();
        for path in self.files.keys() {
            let (name, folder) = match path.split_once('/') {
                Some((dir, _)) => (dir, true),
                None => (path.as_str(), false),
            };
            if top
                .last()
                .is_none_or(|(last, f)| last != name || *f != folder)
            {
                top.push((name.to_string(), folder));
            }
        }
        top.sort();
        top.dedup();
        top
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Adds every file under `dir` (hidden files skipped) at the same relative path.
    pub fn add_tree(&mut self, dir: &Path, origin: &str) -> Result<(), Error> {
        if !dir.is_dir() {
            return Ok(());
        }
        for entry in walkdir::WalkDir::new(dir)
            .follow_links(true)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|e| io(dir)(e.into()))?;
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if hidden || !entry.file_type().is_file() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let label = format!("{origin}/{rel}");
            self.add(rel, Source::Copy(entry.into_path()), &label)?;
        }
        Ok(())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Source)> {
        self.files.iter().map(|(k, (s, _))| (k, s))
    }
}

/// The output file of a route: `/` → `index.html`, `/about/` → `about/index.html`.
pub fn route_file(route: &str) -> String {
    let trimmed = route.trim_matches('/');
    if trimmed.is_empty() {
        "index.html".to_string()
    } else {
        format!("{trimmed}/index.html")
    }
}

/// Writes `files` as the new content of `out`, replacing what was there in one step;
/// `finish` completes the new output (the search index) before it replaces the old.
/// Returns the number of bytes written.
pub fn write(
    out: &Path,
    files: &Files,
    finish: &dyn Fn(&Path) -> Result<(), Error>,
) -> Result<u64, Error> {
    Staging::new(out)?.commit(files, finish)
}

/// Writes files below `dir` in parallel, each folder made by its first file.
fn write_entries(dir: &Path, entries: &[(&String, &Source)]) -> Result<u64, Error> {
    entries
        .par_iter()
        .map(|(rel, source)| source.write_to(&dir.join(rel)))
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// What `site serve` last wrote to its output, file by file.
#[derive(Debug, Default)]
pub struct Written {
    out: Option<PathBuf>,
    files: HashMap<String, [u8; 32]>,
}

/// Brings `out` to `files`, writing only what changed since the last call: each
/// changed file is written beside its place and renamed over it, files no longer
/// produced are removed. The first call writes the whole output. Returns the
/// number of files written.
pub fn update(
    out: &Path,
    files: &Files,
    written: &mut Written,
    finish: &dyn Fn(&Path) -> Result<(), Error>,
) -> Result<usize, Error> {
    if written.out.as_deref() != Some(out) || !out.is_dir() {
        write(out, files, finish)?;
        *written = Written {
            out: Some(out.to_path_buf()),
            files: files
                .files
                .par_iter()
                .map(|(rel, (source, _))| (rel.clone(), source.fingerprint()))
                .collect(),
        };
        return Ok(files.len());
    }
    // Compared with what was written in place: a save changes a file or two of
    // thousands, and nothing is copied for the others.
    let changed: Vec<(&String, &Source, [u8; 32])> = files
        .files
        .par_iter()
        .filter_map(|(rel, (source, _))| {
            let fingerprint = source.fingerprint();
            (written.files.get(rel) != Some(&fingerprint)).then_some((rel, source, fingerprint))
        })
        .collect();
    let added = changed
        .iter()
        .filter(|(rel, ..)| !written.files.contains_key(*rel))
        .count();
    // Files no longer produced (none when every file written before still is).
    let gone: Vec<String> = match written.files.len() + added == files.len() {
        true => Vec::new(),
        false => written
            .files
            .keys()
            .filter(|rel| !files.files.contains_key(*rel))
            .cloned()
            .collect(),
    };
    // Written beside their place under a hidden name, then renamed over it.
    let staged: Vec<(PathBuf, PathBuf, &Source)> = changed
        .iter()
        .map(|(rel, source, _)| {
            let target = out.join(rel);
            let name = target
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let tmp = target.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
            (tmp, target, *source)
        })
        .collect();
    let result: Result<(), Error> = (|| {
        for (_, target, _) in &staged {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
        }
        staged.par_iter().try_for_each(|(tmp, target, source)| {
            let _ = std::fs::remove_file(tmp);
            source.write_to(tmp)?;
            std::fs::rename(tmp, target).map_err(io(target))
        })
    })();
    if let Err(e) = result {
        for (tmp, _, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        // The folder may now be a mix; the next update writes it whole.
        written.out = None;
        return Err(e);
    }
    for rel in &gone {
        let _ = std::fs::remove_file(out.join(rel));
        // Its folders too, up to the first that still holds something.
        let mut folder = out.join(rel);
        while folder.pop() && folder != out && std::fs::remove_dir(&folder).is_ok() {}
        written.files.remove(rel);
    }
    for (rel, _, fingerprint) in &changed {
        written.files.insert((*rel).clone(), *fingerprint);
    }
    if !changed.is_empty() || !gone.is_empty() {
        finish(out)?;
    }
    Ok(changed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_map_to_index_files() {
        assert_eq!(route_file("/"), "index.html");
        assert_eq!(route_file("/about/"), "about/index.html");
        assert_eq!(route_file("/services/cloud/"), "services/cloud/index.html");
    }

    #[test]
    fn a_path_written_twice_is_an_error() {
        let mut files = Files::default();
        files
            .add("a/index.html".into(), Source::Bytes(vec![]), "page /a")
            .unwrap();
        let err = files
            .add(
                "a/index.html".into(),
                Source::Bytes(vec![]),
                "public/a/index.html",
            )
            .unwrap_err();
        assert!(err.to_string().contains("page /a"));
    }

    #[test]
    fn replaces_the_previous_output_whole() {
        let dir = std::env::temp_dir().join(format!("site-output-test-{}", std::process::id()));
        let out = dir.join("dist");
        std::fs::create_dir_all(out.join("old")).unwrap();
        std::fs::write(out.join("old/file.txt"), "old").unwrap();
        let mut files = Files::default();
        files
            .add("index.html".into(), Source::Bytes(b"new".to_vec()), "test")
            .unwrap();
        write(&out, &files, &|_| Ok(())).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            "new"
        );
        assert!(!out.join("old").exists());
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn serve_rewrites_only_what_changed_and_removes_what_went() {
        let dir = std::env::temp_dir().join(format!("site-update-test-{}", std::process::id()));
        let out = dir.join("dist");
        let _ = std::fs::remove_dir_all(&dir);
        let page = |text: &str| Source::Html(text.into(), blake3::hash(text.as_bytes()));
        let mut files = Files::default();
        files.add("a/index.html".into(), page("a1"), "t").unwrap();
        files.add("b/index.html".into(), page("b1"), "t").unwrap();
        let mut written = Written::default();
        assert_eq!(
            update(&out, &files, &mut written, &|_| Ok(())).unwrap(),
            2,
            "the first update writes all"
        );
        let b_inode = {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(out.join("b/index.html")).unwrap().ino()
        };

        let mut next = Files::default();
        next.add("a/index.html".into(), page("a2"), "t").unwrap();
        next.add("b/index.html".into(), page("b1"), "t").unwrap();
        next.add("c/index.html".into(), page("c1"), "t").unwrap();
        assert_eq!(update(&out, &next, &mut written, &|_| Ok(())).unwrap(), 2);
        assert_eq!(
            std::fs::read_to_string(out.join("a/index.html")).unwrap(),
            "a2"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("c/index.html")).unwrap(),
            "c1"
        );
        {
            use std::os::unix::fs::MetadataExt;
            let ino = std::fs::metadata(out.join("b/index.html")).unwrap().ino();
            assert_eq!(ino, b_inode, "an unchanged file is not touched");
        }

        let mut last = Files::default();
        last.add("a/index.html".into(), page("a2"), "t").unwrap();
        update(&out, &last, &mut written, &|_| Ok(())).unwrap();
        assert!(!out.join("b/index.html").exists());
        assert!(!out.join("c/index.html").exists());
        let hidden: Vec<_> = walkdir::WalkDir::new(&out)
            .into_iter()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(hidden.is_empty(), "no staging file left: {hidden:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
